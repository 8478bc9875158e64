// LeaveGroup (key 13), versions 0-5 (flexible from 4).
//
// Request:  group_id STRING, member_id STRING (v0-2),
//           members [member_id STRING, group_instance_id NULLABLE_STRING, reason NULLABLE_STRING (v5+)] (v3+)
// Response: throttle_time_ms INT32 (v1+), error_code INT16,
//           members [member_id STRING, group_instance_id NULLABLE_STRING, error_code INT16] (v3+)
//
// v3+ (KIP-345) leaves a batch of member identities with an error per member
// (kafkajs throws if any is non-zero): a member id with the group instance id it
// holds (else FENCED_INSTANCE_ID, or UNKNOWN_MEMBER_ID if no member holds it), or an
// empty member id with a group instance id, which removes that static member
// whatever its member id is (AdminClient.removeMembersFromConsumerGroup). Any
// departure triggers a rebalance. Static consumers do not send LeaveGroup when they
// shut down: they stay members until session.timeout.ms, so a restart within it is
// no rebalance. v0-2 carry one member id and answer its error at the top level.
import { ApiKey, ErrorCode, type LeaveGroupRequest, type LeaveGroupResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";

export const leaveGroupApi = defineApi<LeaveGroupRequest, LeaveGroupResponse>({
  apiKey: ApiKey.LeaveGroup,
  name: "LeaveGroup",
  advertised: { min: 0, max: 5 },
  implemented: { min: 0, max: 5 },
  handle(ctx, req) {
    const b = ctx.broker;
    if (!b.authorizer.authorize(ctx.session, "READ", { type: "GROUP", name: req.groupId })) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, members: [] };
    }
    const identities = ctx.apiVersion < 3 ? [{ memberId: req.memberId ?? "", groupInstanceId: null }] : (req.members ?? []).map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId ?? null }));
    const group = b.groups.get(req.groupId);
    const result = group ? group.leave(identities) : { errorCode: ErrorCode.NONE, members: identities.map(() => ErrorCode.UNKNOWN_MEMBER_ID) };
    if (ctx.apiVersion < 3) return { throttleTimeMs: 0, errorCode: result.errorCode !== ErrorCode.NONE ? result.errorCode : (result.members[0] ?? ErrorCode.NONE), members: [] };
    return {
      throttleTimeMs: 0,
      errorCode: result.errorCode,
      members: result.errorCode !== ErrorCode.NONE ? [] : identities.map((m, i) => ({ ...m, errorCode: result.members[i] ?? ErrorCode.UNKNOWN_MEMBER_ID })),
    };
  },
});
