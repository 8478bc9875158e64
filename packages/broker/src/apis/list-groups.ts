// ListGroups (key 16), versions 0-2.
//
// Request:  (empty)
// Response: throttle_time_ms INT32 (v1+), error_code INT16, groups [group_id STRING, protocol_type STRING]
//
// Groups known only through committed offsets (e.g. after a restart) are listed as Empty consumer groups.
import { ApiKey, ErrorCode, type ListGroupsRequest, type ListGroupsResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";

export const listGroupsApi = defineApi<ListGroupsRequest, ListGroupsResponse>({
  apiKey: ApiKey.ListGroups,
  name: "ListGroups",
  advertised: { min: 0, max: 2 },
  implemented: { min: 0, max: 2 },
  handle(ctx) {
    const b = ctx.broker;
    const all = b.authorizer.authorize(ctx.session, "DESCRIBE", CLUSTER_RESOURCE);
    const groups = b.groups
      .listGroups()
      .filter((g) => all || b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "GROUP", name: g.groupId }))
      .map((g) => ({ groupId: g.groupId, protocolType: g.protocolType }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, groups };
  },
});
