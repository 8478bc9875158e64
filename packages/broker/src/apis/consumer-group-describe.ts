// ConsumerGroupDescribe (key 69, KIP-848), version 0 (flexible).
//
// Request:  group_ids [STRING], include_authorized_operations BOOL
// Response: throttle_time_ms INT32, groups [error_code INT16, error_message NULLABLE_STRING, group_id STRING,
//           group_state STRING, group_epoch INT32, assignment_epoch INT32, assignor_name STRING,
//           members [member_id, instance_id, rack_id, member_epoch, client_id, client_host,
//                    subscribed_topic_names [STRING], subscribed_topic_regex,
//                    assignment {topic_partitions [topic_id UUID, topic_name, partitions]},
//                    target_assignment {…}],
//           authorized_operations INT32]
//
// As Kafka's GroupMetadataManager.consumerGroupDescribe: DESCRIBE on the group is
// required (GROUP_AUTHORIZATION_FAILED), an empty id is INVALID_GROUP_ID, and an id
// that is no consumer group — unknown, or a classic group — is GROUP_ID_NOT_FOUND
// (Kafka's admin client then falls back to DescribeGroups). A member's assignment
// is what it owns now; its target assignment, where the group is heading.
import { ApiKey, type ConsumerGroupDescribeRequest, type ConsumerGroupDescribeResponse, type DeepPartial, ErrorCode, uuidFromBytes } from "@kappa/kafka-protocol";
import type { TopicPartitions } from "../groups/assignors.ts";
import { defineApi } from "../registry.ts";
import { AUTHORIZED_OPERATIONS_OMITTED, authorizedOperations } from "./common.ts";

type Described = DeepPartial<ConsumerGroupDescribeResponse["groups"][number]>;

export const consumerGroupDescribeApi = defineApi<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse>({
  apiKey: ApiKey.ConsumerGroupDescribe,
  name: "ConsumerGroupDescribe",
  advertised: { min: 0, max: 0 },
  implemented: { min: 0, max: 0 },
  handle(ctx, req) {
    const b = ctx.broker;
    const names = new Map(b.logs.topics().map((t) => [uuidFromBytes(t.topicId), t.name]));
    const nameOf = (topicId: string): string => names.get(topicId) ?? "";
    const wire = (tp: TopicPartitions) => ({
      topicPartitions: [...tp]
        .filter(([, s]) => s.size > 0)
        .map(([topicId, s]) => ({ topicId, topicName: nameOf(topicId), partitions: [...s].sort((x, y) => x - y) }))
        .sort((x, y) => (x.topicName < y.topicName ? -1 : x.topicName > y.topicName ? 1 : 0)),
    });
    const groups = req.groupIds.map((groupId): Described => {
      const error = (errorCode: number, errorMessage: string | null): Described => ({ groupId, errorCode, errorMessage, groupState: "", members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED });
      if (!b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "GROUP", name: groupId })) return error(ErrorCode.GROUP_AUTHORIZATION_FAILED, null);
      if (groupId === "") return error(ErrorCode.INVALID_GROUP_ID, null);
      const g = b.groups.consumerGroup(groupId);
      if (!g || g.state === "Dead") {
        const classic = b.groups.get(groupId);
        return error(ErrorCode.GROUP_ID_NOT_FOUND, classic && classic.state !== "Dead" ? `Group ${groupId} is not a consumer group.` : `Group ${groupId} not found.`);
      }
      return {
        groupId,
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        groupState: g.state,
        groupEpoch: g.groupEpoch,
        assignmentEpoch: g.assignmentEpoch,
        assignorName: g.assignorName,
        members: [...g.members.values()].map((m) => ({
          memberId: m.memberId,
          instanceId: m.instanceId,
          rackId: m.rackId,
          memberEpoch: m.memberEpoch,
          clientId: m.clientId,
          clientHost: m.clientHost,
          subscribedTopicNames: m.subscribedTopicNames,
          subscribedTopicRegex: m.subscribedTopicRegex,
          assignment: wire(m.assigned),
          targetAssignment: wire(g.target.get(m.memberId) ?? new Map<string, Set<number>>()),
        })),
        authorizedOperations: req.includeAuthorizedOperations ? authorizedOperations(ctx, "GROUP", groupId) : AUTHORIZED_OPERATIONS_OMITTED,
      };
    });
    return { throttleTimeMs: 0, groups };
  },
});
