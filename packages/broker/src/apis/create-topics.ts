// CreateTopics (key 19), advertised and served 0-4.
//
// Request:  topics [name STRING, num_partitions INT32, replication_factor INT16,
//                   assignments [partition_index INT32, broker_ids [INT32]],
//                   configs [name STRING, value NULLABLE_STRING]],
//           timeout_ms INT32, validate_only BOOL (v1+)
// Response: throttle_time_ms INT32 (v2+), topics [name STRING, error_code INT16, error_message NULLABLE_STRING (v1+)]
//
// BROKER-SPEC §7.2: kafkajs sends num_partitions = -1 and replication_factor = -1
// meaning "broker default". A replication factor above 1 cannot be met by one node.
import { ApiKey, type DeepPartial, ErrorCode, type CreateTopicsRequest, type CreateTopicsResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";
import { errorOf, logRefusal, topicNameProblem } from "./common.ts";

type Result = DeepPartial<CreateTopicsResponse["topics"][number]>;

export const createTopicsApi = defineApi<CreateTopicsRequest, CreateTopicsResponse>({
  apiKey: ApiKey.CreateTopics,
  name: "CreateTopics",
  advertised: { min: 0, max: 4 },
  implemented: { min: 0, max: 4 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const counts = new Map<string, number>();
    for (const t of req.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    const results: Result[] = [];
    const creating: Array<{ index: number; name: string; partitions: number; configs: Record<string, string> }> = [];
    // ControllerApis.createTopics: CREATE on CLUSTER allows any topic, otherwise CREATE on the TOPIC.
    const clusterCreate = b.authorizer.authorize(ctx.session, "CREATE", CLUSTER_RESOURCE);
    for (const t of req.topics) {
      const fail = (errorCode: number, errorMessage: string): void => {
        logRefusal(ctx, `CreateTopics of ${t.name}`, errorCode, errorMessage);
        results.push({ name: t.name, errorCode, errorMessage });
      };
      if ((counts.get(t.name) ?? 0) > 1) {
        fail(ErrorCode.INVALID_REQUEST, `Create topics request from client \`${ctx.session.clientId}\` contains multiple entries for the topic ${t.name}.`);
        continue;
      }
      if (!clusterCreate && !b.authorizer.authorize(ctx.session, "CREATE", { type: "TOPIC", name: t.name })) {
        fail(ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Authorization failed.");
        continue;
      }
      const nameProblem = topicNameProblem(t.name);
      if (nameProblem !== null) {
        fail(ErrorCode.INVALID_TOPIC_EXCEPTION, nameProblem);
        continue;
      }
      if (b.logs.topic(t.name)) {
        fail(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${t.name}' already exists.`);
        continue;
      }
      // Kafka's ReplicationControlManager.validateNewTopicNames (checked again by storage, which serializes creations).
      const colliding = b.logs.collidingTopic(t.name);
      if (colliding !== undefined) {
        fail(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic '${t.name}' collides with existing topic: ${colliding}`);
        continue;
      }
      const assignments = t.assignments ?? [];
      let partitions = t.numPartitions;
      if (assignments.length > 0) {
        if (t.numPartitions !== -1 || t.replicationFactor !== -1) {
          fail(ErrorCode.INVALID_REQUEST, "Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.");
          continue;
        }
        const bad = assignments.find((a) => a.brokerIds.length !== 1 || a.brokerIds[0] !== b.nodeId);
        if (bad) {
          fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Partition ${bad.partitionIndex} must be assigned to exactly this broker (${b.nodeId}); replication is not supported.`);
          continue;
        }
        partitions = assignments.length;
      } else if (partitions === -1) {
        partitions = b.config["num.partitions"];
      }
      if (partitions <= 0) {
        fail(ErrorCode.INVALID_PARTITIONS, "Number of partitions must be larger than 0.");
        continue;
      }
      // -1 takes default.replication.factor (KIP-464), which may be set above the one broker there is.
      const factor = t.replicationFactor === -1 && (t.assignments ?? []).length === 0 ? b.config["default.replication.factor"] : t.replicationFactor;
      if (factor !== -1 && factor !== 1) {
        fail(ErrorCode.INVALID_REPLICATION_FACTOR, replicationFactorMessage(factor));
        continue;
      }
      const configs: Record<string, string> = {};
      const nulls: string[] = [];
      for (const c of t.configs ?? []) {
        if (c.value === null) nulls.push(c.name);
        else configs[c.name] = c.value;
      }
      if (nulls.length > 0) {
        fail(ErrorCode.INVALID_CONFIG, `Null value not supported for topic configs: ${nulls.join(",")}`);
        continue;
      }
      const problems = b.logs.validateTopicConfigs(configs);
      if (problems.length > 0) {
        fail(ErrorCode.INVALID_CONFIG, problems.map((p) => p.message).join("; "));
        continue;
      }
      if (req.validateOnly) {
        results.push({ name: t.name, errorCode: ErrorCode.NONE, errorMessage: null });
        continue;
      }
      creating.push({ index: results.length, name: t.name, partitions, configs });
      results.push({ name: t.name, errorCode: ErrorCode.NONE, errorMessage: null });
    }
    // The valid topics are created together: one journal commit and one
    // logs-dir fsync for the request, each topic still answering its own error.
    const created = creating.length > 0 ? await b.logs.createTopics(creating) : [];
    for (const [i, c] of creating.entries()) {
      const r = created[i];
      if (r instanceof Error || r === undefined) {
        const e = errorOf(ctx, r ?? new Error("no result"), `creating topic ${c.name}`);
        logRefusal(ctx, `CreateTopics of ${c.name}`, e.code, e.message);
        results[c.index] = { name: c.name, errorCode: e.code, errorMessage: e.message };
      } else {
        b.logger.info(`created topic ${c.name} with ${c.partitions} partition(s)${Object.keys(c.configs).length ? ` and configs ${JSON.stringify(c.configs)}` : ""}`);
      }
    }
    return { throttleTimeMs: 0, topics: results };
  },
});

/** Kafka's messages for a replication factor one broker cannot satisfy. */
export function replicationFactorMessage(factor: number): string {
  return factor <= 0
    ? "Replication factor must be larger than 0."
    : `Unable to replicate the partition ${factor} time(s): The target replication factor of ${factor} cannot be reached because only 1 broker(s) are registered.`;
}
