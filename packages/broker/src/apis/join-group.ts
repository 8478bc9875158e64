// JoinGroup (key 11), advertised and served 0-5.
//
// Request:  group_id STRING, session_timeout_ms INT32, rebalance_timeout_ms INT32 (v1+), member_id STRING,
//           group_instance_id NULLABLE_STRING (v5+), protocol_type STRING,
//           protocols [name STRING, metadata BYTES]
// Response: throttle_time_ms INT32 (v2+), error_code INT16, generation_id INT32, protocol_name STRING,
//           leader STRING, member_id STRING, members [member_id STRING, group_instance_id NULLABLE_STRING (v5+), metadata BYTES]
//
// v4+: a new member (empty member_id) first gets MEMBER_ID_REQUIRED with its id and
// rejoins with it (KIP-394). The response is held until the rebalance completes
// (see src/groups/group.ts). group_instance_id (static membership) is accepted
// and reported but gives no special treatment.
import { ApiKey, type DeepPartial, ErrorCode, type JoinGroupRequest, type JoinGroupResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import type { JoinResult } from "../groups/group.ts";

function toResponse(r: JoinResult): DeepPartial<JoinGroupResponse> {
  return {
    throttleTimeMs: 0,
    errorCode: r.errorCode,
    generationId: r.generationId,
    protocolName: r.protocolName ?? "",
    leader: r.leader,
    memberId: r.memberId,
    members: r.members,
  };
}

export const joinGroupApi = defineApi<JoinGroupRequest, JoinGroupResponse>({
  apiKey: ApiKey.JoinGroup,
  name: "JoinGroup",
  advertised: { min: 0, max: 5 },
  implemented: { min: 0, max: 5 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const fail = (errorCode: number): DeepPartial<JoinGroupResponse> =>
      toResponse({ errorCode, generationId: -1, protocolType: null, protocolName: null, leader: "", memberId: req.memberId, members: [] });
    // KafkaApis authorizes before the coordinator validates the group id.
    if (!b.authorizer.authorize(ctx.session, "READ", { type: "GROUP", name: req.groupId })) return fail(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    if (req.groupId === "") return fail(ErrorCode.INVALID_GROUP_ID);
    if (!b.groups.validateSessionTimeout(req.sessionTimeoutMs)) return fail(ErrorCode.INVALID_SESSION_TIMEOUT);
    const existing = b.groups.get(req.groupId);
    if (req.memberId !== "" && (!existing || existing.state === "Dead")) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    const group = b.groups.getOrCreate(req.groupId);
    // A rebalance timeout <= 0 would complete rebalances immediately and loop (brod#465).
    const rebalanceTimeoutMs = req.rebalanceTimeoutMs > 0 ? req.rebalanceTimeoutMs : req.sessionTimeoutMs;
    const result = await group.join({
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId ?? null,
      clientId: ctx.session.clientId,
      clientHost: `/${ctx.session.clientAddress}`,
      sessionTimeoutMs: req.sessionTimeoutMs,
      rebalanceTimeoutMs,
      protocolType: req.protocolType,
      protocols: req.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
      requireKnownMemberId: ctx.apiVersion >= 4,
    });
    return toResponse(result);
  },
});
