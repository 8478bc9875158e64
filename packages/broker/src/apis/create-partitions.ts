// CreatePartitions (key 37), versions 0-1.
//
// Request:  topics [name STRING, count INT32, assignments [broker_ids [INT32]] (nullable)],
//           timeout_ms INT32, validate_only BOOL
// Response: throttle_time_ms INT32, results [name STRING, error_code INT16, error_message NULLABLE_STRING]
import { ApiKey, type DeepPartial, ErrorCode, type CreatePartitionsRequest, type CreatePartitionsResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";
import { errorOf, logRefusal } from "./common.ts";

export const createPartitionsApi = defineApi<CreatePartitionsRequest, CreatePartitionsResponse>({
  apiKey: ApiKey.CreatePartitions,
  name: "CreatePartitions",
  advertised: { min: 0, max: 1 },
  implemented: { min: 0, max: 1 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const counts = new Map<string, number>();
    for (const t of req.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    const results: DeepPartial<CreatePartitionsResponse["results"][number]>[] = [];
    // ControllerApis.createPartitions: ALTER on CLUSTER allows any topic, otherwise ALTER on the TOPIC.
    const clusterAlter = b.authorizer.authorize(ctx.session, "ALTER", CLUSTER_RESOURCE);
    for (const t of req.topics) {
      const fail = (errorCode: number, errorMessage: string | null): void => {
        logRefusal(ctx, `CreatePartitions of ${t.name}`, errorCode, errorMessage);
        results.push({ name: t.name, errorCode, errorMessage });
      };
      if ((counts.get(t.name) ?? 0) > 1) {
        fail(ErrorCode.INVALID_REQUEST, "Duplicate topic in request.");
        continue;
      }
      if (!clusterAlter && !b.authorizer.authorize(ctx.session, "ALTER", { type: "TOPIC", name: t.name })) {
        fail(ErrorCode.TOPIC_AUTHORIZATION_FAILED, null);
        continue;
      }
      const topic = b.logs.topic(t.name);
      if (!topic) {
        fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${t.name}' does not exist.`);
        continue;
      }
      if (t.count < topic.partitionCount) {
        fail(ErrorCode.INVALID_PARTITIONS, `Topic currently has ${topic.partitionCount} partitions, which is higher than the requested ${t.count}.`);
        continue;
      }
      if (t.count === topic.partitionCount) {
        fail(ErrorCode.INVALID_PARTITIONS, `Topic already has ${topic.partitionCount} partitions.`);
        continue;
      }
      const assignments = t.assignments ?? null;
      if (assignments !== null) {
        if (assignments.length !== t.count - topic.partitionCount) {
          fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Increasing the number of partitions by ${t.count - topic.partitionCount} but ${assignments.length} assignments provided.`);
          continue;
        }
        if (assignments.some((a) => a.brokerIds.length !== 1 || a.brokerIds[0] !== b.nodeId)) {
          fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `New partitions must be assigned to exactly this broker (${b.nodeId}).`);
          continue;
        }
      }
      if (req.validateOnly) {
        fail(ErrorCode.NONE, null);
        continue;
      }
      try {
        await b.logs.addPartitions(t.name, t.count);
        b.logger.info(`topic ${t.name} now has ${t.count} partitions`);
        fail(ErrorCode.NONE, null);
      } catch (err) {
        const e = errorOf(ctx, err, `adding partitions to ${t.name}`);
        fail(e.code, e.message);
      }
    }
    return { throttleTimeMs: 0, results };
  },
});
