// Heartbeat (key 12), versions 0-4 (flexible from 4).
//
// Request:  group_id STRING, generation_id INT32, member_id STRING, group_instance_id NULLABLE_STRING (v3+)
// Response: throttle_time_ms INT32 (v1+), error_code INT16
//
// REBALANCE_IN_PROGRESS tells a member to rejoin; kafkajs also rejoins on
// ILLEGAL_GENERATION and (after clearing its id) on UNKNOWN_MEMBER_ID. A
// group_instance_id now held by another member id is FENCED_INSTANCE_ID (KIP-345:
// the old incarnation of a restarted static member must shut down).
import { ApiKey, ErrorCode, type HeartbeatRequest, type HeartbeatResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";

export const heartbeatApi = defineApi<HeartbeatRequest, HeartbeatResponse>({
  apiKey: ApiKey.Heartbeat,
  name: "Heartbeat",
  advertised: { min: 0, max: 4 },
  implemented: { min: 0, max: 4 },
  handle(ctx, req) {
    const b = ctx.broker;
    if (!b.authorizer.authorize(ctx.session, "READ", { type: "GROUP", name: req.groupId })) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    }
    const group = b.groups.get(req.groupId);
    return { throttleTimeMs: 0, errorCode: group ? group.heartbeat(req.memberId, req.groupInstanceId ?? null, req.generationId) : ErrorCode.UNKNOWN_MEMBER_ID };
  },
});
