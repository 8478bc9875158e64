// DeleteGroups (key 42), versions 0-1.
//
// Request:  groups_names [STRING]
// Response: throttle_time_ms INT32, results [group_id STRING, error_code INT16]
//
// Only Empty groups can be deleted (NON_EMPTY_GROUP otherwise); unknown groups are
// GROUP_ID_NOT_FOUND. Deleting removes the group's committed offsets durably.
import { ApiKey, type DeepPartial, ErrorCode, type DeleteGroupsRequest, type DeleteGroupsResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { errorOf } from "./common.ts";

export const deleteGroupsApi = defineApi<DeleteGroupsRequest, DeleteGroupsResponse>({
  apiKey: ApiKey.DeleteGroups,
  name: "DeleteGroups",
  advertised: { min: 0, max: 1 },
  implemented: { min: 0, max: 1 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const results: DeepPartial<DeleteGroupsResponse["results"][number]>[] = [];
    for (const groupId of req.groupsNames) {
      if (!b.authorizer.authorize(ctx.session, "DELETE", { type: "GROUP", name: groupId })) {
        results.push({ groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED });
        continue;
      }
      try {
        results.push({ groupId, errorCode: await b.groups.deleteGroup(groupId) });
      } catch (err) {
        results.push({ groupId, errorCode: errorOf(ctx, err, `deleting group ${groupId}`).code });
      }
    }
    return { throttleTimeMs: 0, results };
  },
});
