// Metadata (key 3), advertised and served 0-12 (flexible from 9).
//
// Request:  topics [topic_id UUID (v10+), name STRING (nullable v10+)] (nullable v1+: null = all topics),
//           allow_auto_topic_creation BOOL (v4+),
//           include_cluster_authorized_operations BOOL (v8-10), include_topic_authorized_operations BOOL (v8+)
// Response: throttle_time_ms INT32 (v3+), brokers [node_id INT32, host STRING, port INT32, rack NULLABLE_STRING (v1+)],
//           cluster_id NULLABLE_STRING (v2+), controller_id INT32 (v1+),
//           topics [error_code INT16, name STRING (nullable v12+), topic_id UUID (v10+), is_internal BOOL (v1+),
//                   partitions [error_code INT16, partition_index INT32, leader_id INT32, leader_epoch INT32 (v7+),
//                               replica_nodes [INT32], isr_nodes [INT32], offline_replicas [INT32] (v5+)],
//                   topic_authorized_operations INT32 (v8+)],
//           cluster_authorized_operations INT32 (v8-10)
//
// Topic ids (v10+) are what KIP-848 consumers resolve their assignment with. A
// topic asked for by id only (name null) is looked up by id: an unknown id is
// UNKNOWN_TOPIC_ID with a null name, as Kafka answers v12.
//
// BROKER-SPEC §7.1: kafkajs throws on any topic/partition error in a listing it asked
// for, needs controller_id to be a listed broker and a non-null cluster_id, and every
// partition must name this node as leader, replica and ISR.
// Metadata v0: an empty topic list means all topics (v1+ uses null for that).
import { ApiKey, type DeepPartial, ErrorCode, type MetadataRequest, type MetadataResponse, uuidFromBytes, ZERO_UUID } from "@kappa/kafka-protocol";
import type { TopicMeta } from "../logs.ts";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";
import { AUTHORIZED_OPERATIONS_OMITTED, authorizedOperations, mayAutoCreate, topicNameProblem, topicOrAutoCreate } from "./common.ts";

type TopicOut = DeepPartial<MetadataResponse["topics"][number]>;

export const metadataApi = defineApi<MetadataRequest, MetadataResponse>({
  apiKey: ApiKey.Metadata,
  name: "Metadata",
  advertised: { min: 0, max: 12 },
  implemented: { min: 0, max: 12 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const node = b.nodeId;
    const describe = (t: TopicMeta): TopicOut => ({
      errorCode: ErrorCode.NONE,
      name: t.name,
      topicId: uuidFromBytes(t.topicId),
      isInternal: false,
      partitions: Array.from({ length: t.partitionCount }, (_, i) => ({
        errorCode: ErrorCode.NONE,
        partitionIndex: i,
        leaderId: node,
        leaderEpoch: 0,
        replicaNodes: [node],
        isrNodes: [node],
        offlineReplicas: [],
      })),
      topicAuthorizedOperations: req.includeTopicAuthorizedOperations ? authorizedOperations(ctx, "TOPIC", t.name) : AUTHORIZED_OPERATIONS_OMITTED,
    });
    let topics: TopicOut[];
    if (req.topics === null || req.topics === undefined || (ctx.apiVersion === 0 && req.topics.length === 0)) {
      topics = b.logs
        .topics()
        .filter((t) => b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "TOPIC", name: t.name }))
        .map(describe);
    } else {
      const allowAuto = ctx.apiVersion < 4 || req.allowAutoTopicCreation !== false;
      topics = [];
      for (const { name, topicId } of req.topics) {
        if ((name ?? null) === null && ctx.apiVersion >= 10) {
          const byId = topicId && topicId !== ZERO_UUID ? b.logs.topics().find((t) => uuidFromBytes(t.topicId) === topicId) : undefined;
          if (!byId) topics.push({ errorCode: ErrorCode.UNKNOWN_TOPIC_ID, name: null, topicId: topicId ?? ZERO_UUID, isInternal: false, partitions: [] });
          else if (!b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "TOPIC", name: byId.name })) topics.push({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name: null, topicId, isInternal: false, partitions: [] });
          else topics.push(describe(byId));
          continue;
        }
        const topicName = name ?? "";
        if (!b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "TOPIC", name: topicName })) {
          topics.push({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name: topicName, isInternal: false, partitions: [] });
          continue;
        }
        if (topicNameProblem(topicName) !== null) {
          topics.push({ errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, name: topicName, isInternal: false, partitions: [] });
          continue;
        }
        if (allowAuto && b.config["auto.create.topics.enable"] && !b.logs.topic(topicName) && !mayAutoCreate(ctx, topicName)) {
          topics.push({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name: topicName, isInternal: false, partitions: [] });
          continue;
        }
        const t = await topicOrAutoCreate(ctx, topicName, allowAuto);
        topics.push("errorCode" in t ? { errorCode: t.errorCode, name: topicName, isInternal: false, partitions: [] } : describe(t));
      }
    }
    return {
      throttleTimeMs: 0,
      // Kafka lists each broker's endpoint for the listener the request came in on.
      brokers: [{ nodeId: node, ...b.advertisedFor(ctx.session), rack: null }],
      clusterId: b.clusterId,
      controllerId: node,
      topics,
      clusterAuthorizedOperations: req.includeClusterAuthorizedOperations ? authorizedOperations(ctx, "CLUSTER", CLUSTER_RESOURCE.name) : AUTHORIZED_OPERATIONS_OMITTED,
    };
  },
});
