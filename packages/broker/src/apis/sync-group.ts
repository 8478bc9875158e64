// SyncGroup (key 14), versions 0-5 (flexible from 4).
//
// Request:  group_id STRING, generation_id INT32, member_id STRING, group_instance_id NULLABLE_STRING (v3+),
//           protocol_type NULLABLE_STRING (v5+), protocol_name NULLABLE_STRING (v5+),
//           assignments [member_id STRING, assignment BYTES]
// Response: throttle_time_ms INT32 (v1+), error_code INT16, protocol_type NULLABLE_STRING (v5+),
//           protocol_name NULLABLE_STRING (v5+), assignment BYTES
//
// Followers' SyncGroups are held until the leader's arrives with the assignments,
// which are stored durably (the group metadata log) before anyone is answered. A
// group_instance_id held by another member id is FENCED_INSTANCE_ID; v5's protocol
// type/name, when given, must be the group's (INCONSISTENT_GROUP_PROTOCOL).
import { ApiKey, type DeepPartial, ErrorCode, type SyncGroupRequest, type SyncGroupResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";

const EMPTY = Buffer.alloc(0);

export const syncGroupApi = defineApi<SyncGroupRequest, SyncGroupResponse>({
  apiKey: ApiKey.SyncGroup,
  name: "SyncGroup",
  advertised: { min: 0, max: 5 },
  implemented: { min: 0, max: 5 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const fail = (errorCode: number): DeepPartial<SyncGroupResponse> => ({ throttleTimeMs: 0, errorCode, protocolType: null, protocolName: null, assignment: EMPTY });
    // KafkaApis authorizes before the coordinator validates the group id.
    if (!b.authorizer.authorize(ctx.session, "READ", { type: "GROUP", name: req.groupId })) return fail(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    if (req.groupId === "") return fail(ErrorCode.INVALID_GROUP_ID);
    const group = b.groups.get(req.groupId);
    if (!group) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    const r = await group.sync({
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId ?? null,
      generationId: req.generationId,
      protocolType: req.protocolType ?? null,
      protocolName: req.protocolName ?? null,
      assignments: req.assignments.map((a) => ({ memberId: a.memberId, assignment: a.assignment })),
    });
    return { throttleTimeMs: 0, errorCode: r.errorCode, protocolType: r.protocolType, protocolName: r.protocolName, assignment: r.assignment };
  },
});
