// DescribeTopicPartitions (key 75, KIP-966), version 0 (flexible), as Kafka 4.1's
// DescribeTopicPartitionsRequestHandler and KRaftMetadataCache.describeTopicResponse:
//
// Request:  topics [name], response_partition_limit INT32 (default 2000),
//           cursor {topic_name, partition_index} (nullable)
// Response: throttle_time_ms, topics [error_code, name, topic_id, is_internal,
//           partitions [error_code, partition_index, leader_id, leader_epoch, replica_nodes,
//           isr_nodes, eligible_leader_replicas, last_known_elr, offline_replicas],
//           topic_authorized_operations], next_cursor (nullable)
//
// - An empty topic list means every topic. Topics are taken in name order, from the
//   cursor's topic on (names before it are skipped); the cursor's topic starts at its
//   partition index, every later one at 0. A named list must contain the cursor's
//   topic, and the cursor's partition index must not be negative: otherwise every
//   named topic is answered INVALID_REQUEST (Kafka's InvalidRequestException).
// - At most min(response_partition_limit, max.request.partition.size.limit) partitions
//   (and at least 1) are returned. When a topic's partitions do not all fit, the
//   answer ends with that topic and next_cursor names it and the first partition left
//   out; when the limit is used up exactly at a topic boundary and more topics
//   follow, next_cursor names the next topic at partition 0. Otherwise next_cursor is null.
// - DESCRIBE on the TOPIC is required. Listing all topics leaves out the ones the
//   principal may not describe; named ones it may not describe are answered
//   TOPIC_AUTHORIZATION_FAILED with a zero topic id, after the others (so a
//   principal learns nothing about their existence). A named topic that does not
//   exist is UNKNOWN_TOPIC_OR_PARTITION (INVALID_TOPIC_EXCEPTION for an illegal
//   name) and costs no partitions of the limit. Every topic answered carries its
//   authorized operations.
import { ApiKey, type DeepPartial, ErrorCode, ZERO_UUID, uuidFromBytes, type DescribeTopicPartitionsRequest, type DescribeTopicPartitionsResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { authorizedOperations, topicNameProblem } from "./common.ts";

type TopicOut = DeepPartial<DescribeTopicPartitionsResponse["topics"][number]>;

export const describeTopicPartitionsApi = defineApi<DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse>({
  apiKey: ApiKey.DescribeTopicPartitions,
  name: "DescribeTopicPartitions",
  advertised: { min: 0, max: 0 },
  implemented: { min: 0, max: 0 },
  handle(ctx, req) {
    const b = ctx.broker;
    const node = b.nodeId;
    const cursor = req.cursor ?? null;
    const cursorTopic = cursor?.topicName ?? "";
    const fetchAll = req.topics.length === 0;
    const names = new Set<string>();
    if (fetchAll) {
      for (const t of b.logs.topics()) if (t.name >= cursorTopic) names.add(t.name);
    } else {
      for (const t of req.topics) if (t.name >= cursorTopic) names.add(t.name);
    }
    const invalid = (): DeepPartial<DescribeTopicPartitionsResponse> => ({
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({ errorCode: ErrorCode.INVALID_REQUEST, name: t.name, isInternal: false, partitions: [] })),
      nextCursor: null,
    });
    if (cursor !== null && !fetchAll && !names.has(cursor.topicName)) return invalid();
    if (cursor !== null && cursor.partitionIndex < 0) return invalid();

    const unauthorized: TopicOut[] = [];
    const authorized = [...names].sort().filter((name) => {
      const ok = b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "TOPIC", name });
      if (!ok && !fetchAll) unauthorized.push({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name, topicId: ZERO_UUID, isInternal: false, partitions: [] });
      return ok;
    });

    let remaining = Math.max(Math.min(b.config["max.request.partition.size.limit"], req.responsePartitionLimit), 1);
    const topics: TopicOut[] = [];
    let nextCursor: { topicName: string; partitionIndex: number } | null = null;
    for (const name of authorized) {
      if (remaining === 0) {
        // The limit ran out at a topic boundary: the next answer starts with this topic.
        nextCursor = { topicName: name, partitionIndex: 0 };
        break;
      }
      const meta = b.logs.topic(name);
      if (!meta) {
        if (!fetchAll) {
          const code = topicNameProblem(name) === null ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.INVALID_TOPIC_EXCEPTION;
          topics.push({ errorCode: code, name, topicId: ZERO_UUID, isInternal: false, partitions: [] });
        }
        continue;
      }
      const start = name === cursorTopic && cursor !== null ? cursor.partitionIndex : 0;
      const upper = Math.min(meta.partitionCount, start + remaining);
      const partitions = [];
      for (let p = start; p < upper; p++) {
        partitions.push({
          errorCode: ErrorCode.NONE,
          partitionIndex: p,
          leaderId: node,
          leaderEpoch: 0,
          replicaNodes: [node],
          isrNodes: [node],
          eligibleLeaderReplicas: [],
          lastKnownElr: [],
          offlineReplicas: [],
        });
      }
      topics.push({ errorCode: ErrorCode.NONE, name, topicId: uuidFromBytes(meta.topicId), isInternal: false, partitions });
      if (upper < meta.partitionCount) {
        nextCursor = { topicName: name, partitionIndex: upper };
        break;
      }
      remaining -= partitions.length;
    }
    for (const t of topics) t.topicAuthorizedOperations = authorizedOperations(ctx, "TOPIC", t.name ?? "");
    for (const t of unauthorized) t.topicAuthorizedOperations = authorizedOperations(ctx, "TOPIC", t.name ?? "");
    return { throttleTimeMs: 0, topics: [...topics, ...unauthorized], nextCursor };
  },
});
