// LeaveGroup (key 13), versions 0-3.
//
// Request:  group_id STRING, member_id STRING (v0-2), members [member_id STRING, group_instance_id NULLABLE_STRING] (v3+)
// Response: throttle_time_ms INT32 (v1+), error_code INT16,
//           members [member_id STRING, group_instance_id NULLABLE_STRING, error_code INT16] (v3+)
//
// v3+ (KIP-345) leaves a batch of members with an error per member; kafkajs
// throws if any is non-zero. Each departure triggers a rebalance.
import { ApiKey, ErrorCode, type LeaveGroupRequest, type LeaveGroupResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";

export const leaveGroupApi = defineApi<LeaveGroupRequest, LeaveGroupResponse>({
  apiKey: ApiKey.LeaveGroup,
  name: "LeaveGroup",
  advertised: { min: 0, max: 3 },
  implemented: { min: 0, max: 3 },
  handle(ctx, req) {
    const b = ctx.broker;
    if (!b.authorizer.authorize(ctx.session, "READ", { type: "GROUP", name: req.groupId })) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, members: [] };
    }
    const group = b.groups.get(req.groupId);
    if (ctx.apiVersion < 3) {
      const errorCode = group ? group.leave(req.memberId ?? "") : ErrorCode.UNKNOWN_MEMBER_ID;
      return { throttleTimeMs: 0, errorCode, members: [] };
    }
    const members = (req.members ?? []).map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId ?? null,
      errorCode: group ? group.leave(m.memberId) : ErrorCode.UNKNOWN_MEMBER_ID,
    }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, members };
  },
});
