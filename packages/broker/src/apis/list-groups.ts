// ListGroups (key 16), versions 0-5.
//
// Request:  states_filter [STRING] (v4+, KIP-518), types_filter [STRING] (v5+, KIP-848)
// Response: throttle_time_ms INT32 (v1+), error_code INT16,
//           groups [group_id STRING, protocol_type STRING, group_state STRING (v4+), group_type STRING (v5+)]
//
// Filters as Kafka's GroupCoordinator applies them: an empty filter lists every group;
// states are matched case-insensitively against the group's state (classic: Empty,
// PreparingRebalance, CompletingRebalance, Stable, Dead; KIP-848 consumer groups:
// Empty, Assigning, Reconciling, Stable), types likewise against its type
// ("classic" or "consumer"; a consumer group's protocol_type is "consumer"). Classic groups come back from the
// group metadata log after a restart; groups known only through committed offsets
// (simple consumers, admin.setOffsets) are listed as Empty consumer groups.
import { ApiKey, ErrorCode, type ListGroupsRequest, type ListGroupsResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";

export const listGroupsApi = defineApi<ListGroupsRequest, ListGroupsResponse>({
  apiKey: ApiKey.ListGroups,
  name: "ListGroups",
  advertised: { min: 0, max: 5 },
  implemented: { min: 0, max: 5 },
  handle(ctx, req) {
    const b = ctx.broker;
    const all = b.authorizer.authorize(ctx.session, "DESCRIBE", CLUSTER_RESOURCE);
    const states = new Set((req.statesFilter ?? []).map((s) => s.toLowerCase()));
    const types = new Set((req.typesFilter ?? []).map((s) => s.toLowerCase()));
    const groups = b.groups
      .listGroups()
      .filter((g) => states.size === 0 || states.has(g.state.toLowerCase()))
      .filter((g) => types.size === 0 || types.has(g.type))
      .filter((g) => all || b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "GROUP", name: g.groupId }))
      .map((g) => ({ groupId: g.groupId, protocolType: g.protocolType, groupState: g.state, groupType: g.type }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, groups };
  },
});
