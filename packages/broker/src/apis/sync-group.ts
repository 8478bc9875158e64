// SyncGroup (key 14), versions 0-3.
//
// Request:  group_id STRING, generation_id INT32, member_id STRING, group_instance_id NULLABLE_STRING (v3+),
//           assignments [member_id STRING, assignment BYTES]
// Response: throttle_time_ms INT32 (v1+), error_code INT16, assignment BYTES
//
// Followers' SyncGroups are held until the leader's arrives with the assignments.
import { ApiKey, type DeepPartial, ErrorCode, type SyncGroupRequest, type SyncGroupResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";

const EMPTY = Buffer.alloc(0);

export const syncGroupApi = defineApi<SyncGroupRequest, SyncGroupResponse>({
  apiKey: ApiKey.SyncGroup,
  name: "SyncGroup",
  advertised: { min: 0, max: 3 },
  implemented: { min: 0, max: 3 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const fail = (errorCode: number): DeepPartial<SyncGroupResponse> => ({ throttleTimeMs: 0, errorCode, assignment: EMPTY });
    // KafkaApis authorizes before the coordinator validates the group id.
    if (!b.authorizer.authorize(ctx.session, "READ", { type: "GROUP", name: req.groupId })) return fail(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    if (req.groupId === "") return fail(ErrorCode.INVALID_GROUP_ID);
    const group = b.groups.get(req.groupId);
    if (!group) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    const r = await group.sync({
      memberId: req.memberId,
      generationId: req.generationId,
      protocolType: null,
      protocolName: null,
      assignments: req.assignments.map((a) => ({ memberId: a.memberId, assignment: a.assignment })),
    });
    return { throttleTimeMs: 0, errorCode: r.errorCode, assignment: r.assignment };
  },
});
