// ConsumerGroupHeartbeat (key 68, KIP-848), versions 0-1 (flexible from 0).
//
// Request:  group_id STRING, member_id STRING, member_epoch INT32, instance_id NULLABLE_STRING,
//           rack_id NULLABLE_STRING, rebalance_timeout_ms INT32, subscribed_topic_names [STRING] (nullable),
//           subscribed_topic_regex NULLABLE_STRING (v1+), server_assignor NULLABLE_STRING,
//           topic_partitions [topic_id UUID, partitions [INT32]] (nullable)
// Response: throttle_time_ms INT32, error_code INT16, error_message NULLABLE_STRING, member_id NULLABLE_STRING,
//           member_epoch INT32, heartbeat_interval_ms INT32, assignment {topic_partitions [topic_id, partitions]} (nullable)
//
// The request checks are Kafka's (GroupMetadataManager.throwIfConsumerGroupHeartbeatRequestIsInvalid,
// INVALID_REQUEST with its messages); READ on the group is required
// (GROUP_AUTHORIZATION_FAILED) and DESCRIBE on every subscribed topic name
// (TOPIC_AUTHORIZATION_FAILED); a regex only matches topics the member may describe.
// The group itself: src/groups/consumer-group.ts.
import { ApiKey, type ConsumerGroupHeartbeatRequest, type ConsumerGroupHeartbeatResponse, type DeepPartial, ErrorCode } from "@kappa/kafka-protocol";
import { ASSIGNORS } from "../groups/assignors.ts";
import { HeartbeatError, LEAVE_GROUP_STATIC_EPOCH, matchRegex } from "../groups/consumer-group.ts";
import { defineApi } from "../registry.ts";

function problem(req: ConsumerGroupHeartbeatRequest, apiVersion: number): string | null {
  if (req.groupId === "") return "GroupId can't be empty.";
  if (req.instanceId === "") return "InstanceId can't be empty.";
  if (req.rackId === "") return "RackId can't be empty.";
  if (req.memberEpoch < LEAVE_GROUP_STATIC_EPOCH) return `MemberEpoch ${req.memberEpoch} is invalid.`;
  // From v1 the member chooses its id (KIP-1082); in v0 the coordinator gives it at epoch 0.
  if (req.memberId === "" && (apiVersion >= 1 || req.memberEpoch !== 0)) return "MemberId can't be empty.";
  if (req.memberEpoch === 0) {
    if (req.rebalanceTimeoutMs === -1) return "RebalanceTimeoutMs must be provided in first request.";
    if (req.topicPartitions === null || req.topicPartitions.length > 0) return "TopicPartitions must be empty when (re-)joining.";
    if (req.subscribedTopicNames === null && (req.subscribedTopicRegex ?? null) === null) return "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.";
  }
  if (req.memberEpoch === LEAVE_GROUP_STATIC_EPOCH && req.instanceId === null) return "InstanceId can't be null.";
  return null;
}

export const consumerGroupHeartbeatApi = defineApi<ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse>({
  apiKey: ApiKey.ConsumerGroupHeartbeat,
  name: "ConsumerGroupHeartbeat",
  advertised: { min: 0, max: 1 },
  implemented: { min: 0, max: 1 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const fail = (errorCode: number, errorMessage: string | null): DeepPartial<ConsumerGroupHeartbeatResponse> => ({
      throttleTimeMs: 0,
      errorCode,
      errorMessage,
      memberId: null,
      memberEpoch: 0,
      heartbeatIntervalMs: 0,
      assignment: null,
    });
    if (!b.authorizer.authorize(ctx.session, "READ", { type: "GROUP", name: req.groupId })) return fail(ErrorCode.GROUP_AUTHORIZATION_FAILED, null);
    const invalid = problem(req, ctx.apiVersion);
    if (invalid !== null) return fail(ErrorCode.INVALID_REQUEST, invalid);
    if (req.serverAssignor !== null && !ASSIGNORS.has(req.serverAssignor)) {
      return fail(ErrorCode.UNSUPPORTED_ASSIGNOR, `ServerAssignor ${req.serverAssignor} is not supported. Supported assignors: ${[...ASSIGNORS.keys()].join(", ")}.`);
    }
    const mayDescribe = (topic: string): boolean => b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "TOPIC", name: topic });
    if (req.subscribedTopicNames !== null) {
      const refused = req.subscribedTopicNames.filter((t) => !mayDescribe(t));
      if (refused.length > 0) return fail(ErrorCode.TOPIC_AUTHORIZATION_FAILED, `Unauthorized topics: ${[...new Set(refused)].sort().join(", ")}`);
    }
    try {
      const regex = req.subscribedTopicRegex ?? null;
      if (regex !== null && regex !== "") matchRegex(regex, []);
      const r = await b.groups.consumerGroupHeartbeat(req.groupId, {
        memberId: req.memberId,
        memberEpoch: req.memberEpoch,
        instanceId: req.instanceId,
        rackId: req.rackId,
        rebalanceTimeoutMs: req.rebalanceTimeoutMs,
        subscribedTopicNames: req.subscribedTopicNames,
        subscribedTopicRegex: regex,
        serverAssignor: req.serverAssignor,
        ownedTopicPartitions: req.topicPartitions,
        clientId: ctx.session.clientId,
        clientHost: `/${ctx.session.clientAddress}`,
        mayDescribe,
      });
      return {
        throttleTimeMs: 0,
        errorCode: r.errorCode,
        errorMessage: r.errorMessage,
        memberId: r.memberId,
        memberEpoch: r.memberEpoch,
        heartbeatIntervalMs: r.heartbeatIntervalMs,
        assignment: r.assignment === null ? null : { topicPartitions: r.assignment },
      };
    } catch (err) {
      if (err instanceof HeartbeatError) return fail(err.code, err.message);
      throw err;
    }
  },
});
