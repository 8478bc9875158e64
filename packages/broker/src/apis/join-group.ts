// JoinGroup (key 11), advertised and served 0-9 (flexible from 6).
//
// Request:  group_id STRING, session_timeout_ms INT32, rebalance_timeout_ms INT32 (v1+), member_id STRING,
//           group_instance_id NULLABLE_STRING (v5+), protocol_type STRING,
//           protocols [name STRING, metadata BYTES], reason NULLABLE_STRING (v8+)
// Response: throttle_time_ms INT32 (v2+), error_code INT16, generation_id INT32,
//           protocol_type NULLABLE_STRING (v7+), protocol_name STRING (nullable v7+), leader STRING,
//           skip_assignment BOOL (v9+), member_id STRING,
//           members [member_id STRING, group_instance_id NULLABLE_STRING (v5+), metadata BYTES]
//
// v4+: a new dynamic member (empty member_id) first gets MEMBER_ID_REQUIRED with its
// id and rejoins with it (KIP-394); a static member (group_instance_id, KIP-345) does
// not. The response is held until the rebalance completes (src/groups/group.ts). A
// static member rejoining with an empty member id takes over its instance's place and
// assignment; a request naming the instance with an older member id is
// FENCED_INSTANCE_ID. v9 (KIP-814): a static leader that rejoins a Stable group is told
// it leads, with skip_assignment. The reason (v8+) is informational and not kept.
import { ApiKey, type DeepPartial, ErrorCode, type JoinGroupRequest, type JoinGroupResponse } from "@kappa/kafka-protocol";
import type { JoinResult } from "../groups/group.ts";
import { defineApi } from "../registry.ts";

function toResponse(r: JoinResult, version: number): DeepPartial<JoinGroupResponse> {
  return {
    throttleTimeMs: 0,
    errorCode: r.errorCode,
    generationId: r.generationId,
    protocolType: r.protocolType,
    // Nullable from v7 (Kafka answers null with an error); "" before.
    protocolName: version >= 7 ? r.protocolName : (r.protocolName ?? ""),
    leader: r.leader,
    skipAssignment: r.skipAssignment,
    memberId: r.memberId,
    members: r.members,
  };
}

export const joinGroupApi = defineApi<JoinGroupRequest, JoinGroupResponse>({
  apiKey: ApiKey.JoinGroup,
  name: "JoinGroup",
  advertised: { min: 0, max: 9 },
  implemented: { min: 0, max: 9 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const fail = (errorCode: number): DeepPartial<JoinGroupResponse> =>
      toResponse({ errorCode, generationId: -1, protocolType: null, protocolName: null, leader: "", skipAssignment: false, memberId: req.memberId, members: [] }, ctx.apiVersion);
    // KafkaApis authorizes before the coordinator validates the group id.
    if (!b.authorizer.authorize(ctx.session, "READ", { type: "GROUP", name: req.groupId })) return fail(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    if (req.groupId === "") return fail(ErrorCode.INVALID_GROUP_ID);
    if (!b.groups.validateSessionTimeout(req.sessionTimeoutMs)) return fail(ErrorCode.INVALID_SESSION_TIMEOUT);
    // A KIP-848 consumer group with members holds the id (Kafka without protocol migration answers this).
    if (!b.groups.classicJoinAllowed(req.groupId)) return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const existing = b.groups.get(req.groupId);
    if (req.memberId !== "" && (!existing || existing.state === "Dead")) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    const group = b.groups.getOrCreate(req.groupId);
    // A rebalance timeout <= 0 would complete rebalances immediately and loop (brod#465).
    const rebalanceTimeoutMs = req.rebalanceTimeoutMs > 0 ? req.rebalanceTimeoutMs : req.sessionTimeoutMs;
    const groupInstanceId = req.groupInstanceId ?? null;
    const result = await group.join({
      memberId: req.memberId,
      groupInstanceId,
      clientId: ctx.session.clientId,
      clientHost: `/${ctx.session.clientAddress}`,
      sessionTimeoutMs: req.sessionTimeoutMs,
      rebalanceTimeoutMs,
      protocolType: req.protocolType,
      protocols: req.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
      // Static members never get MEMBER_ID_REQUIRED (their instance id is their identity).
      requireKnownMemberId: ctx.apiVersion >= 4 && groupInstanceId === null,
      supportsSkipAssignment: ctx.apiVersion >= 9,
    });
    return toResponse(result, ctx.apiVersion);
  },
});
