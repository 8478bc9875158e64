// DescribeGroups (key 15), versions 0-5 (flexible from 5).
//
// Request:  groups [STRING], include_authorized_operations BOOL (v3+)
// Response: throttle_time_ms INT32 (v1+), groups [error_code INT16, group_id STRING, group_state STRING,
//           protocol_type STRING, protocol_data STRING, members [member_id STRING, group_instance_id NULLABLE_STRING (v4+),
//           client_id STRING, client_host STRING, member_metadata BYTES, member_assignment BYTES],
//           authorized_operations INT32 (v3+)]
//
// An unknown group is error 0 with state "Dead" (BROKER-SPEC §4). Static members
// report their group_instance_id (v4+).
import { ApiKey, ErrorCode, type DescribeGroupsRequest, type DescribeGroupsResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { AUTHORIZED_OPERATIONS_OMITTED, authorizedOperations } from "./common.ts";

const EMPTY = Buffer.alloc(0);

export const describeGroupsApi = defineApi<DescribeGroupsRequest, DescribeGroupsResponse>({
  apiKey: ApiKey.DescribeGroups,
  name: "DescribeGroups",
  advertised: { min: 0, max: 5 },
  implemented: { min: 0, max: 5 },
  handle(ctx, req) {
    const b = ctx.broker;
    const groups: DescribeGroupsResponse["groups"] = req.groups.map((groupId) => {
      const unauthorized = { groupId, protocolType: "", protocolData: "", members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
      if (!b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "GROUP", name: groupId })) {
        return { ...unauthorized, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, groupState: "" };
      }
      const base = {
        ...unauthorized,
        authorizedOperations: req.includeAuthorizedOperations ? authorizedOperations(ctx, "GROUP", groupId) : AUTHORIZED_OPERATIONS_OMITTED,
      };
      const g = b.groups.get(groupId);
      if (!g || g.state === "Dead") return { ...base, errorCode: ErrorCode.NONE, groupState: b.groups.stateOf(groupId) };
      // Member metadata/assignment are only meaningful once a protocol is chosen (Kafka sends them only when Stable).
      const showPayload = g.state === "Stable";
      return {
        ...base,
        errorCode: ErrorCode.NONE,
        groupState: g.state,
        protocolType: g.protocolType ?? "",
        protocolData: g.state === "Stable" || g.state === "CompletingRebalance" ? (g.protocolName ?? "") : "",
        members: [...g.members.values()].map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          memberMetadata: showPayload ? (m.protocols.find((p) => p.name === g.protocolName)?.metadata ?? EMPTY) : EMPTY,
          memberAssignment: showPayload ? m.assignment : EMPTY,
        })),
      };
    });
    return { throttleTimeMs: 0, groups };
  },
});
