// Produce racing the deletion of its topic (DeleteTopics on another connection):
// Kafka answers a produce to a partition it no longer hosts with
// UNKNOWN_TOPIC_OR_PARTITION (ReplicaManager.getPartitionOrError: the topic is
// gone from the metadata image), which clients treat as retriable after a
// metadata refresh. This broker used to answer KAFKA_STORAGE_ERROR ("log … failed:
// … is closed") for appends caught between the delete and their fsync.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKey, ErrorCode, decodeResponse } from "@kappa/kafka-protocol";
import { buildBatch } from "../src/storage/test-helpers.ts";
import { RawClient, awaitTopicReady, oracleRun, startTestBroker, uniqueName, type TestBroker } from "./helpers.ts";

let broker: TestBroker;
beforeAll(async () => {
  broker = await startTestBroker({ "auto.create.topics.enable": false });
});
afterAll(async () => {
  await broker.cleanup();
});

describe("Produce racing DeleteTopics", () => {
  it("every pipelined acks=all and acks=1 produce is either stored or answered UNKNOWN_TOPIC_OR_PARTITION, never KAFKA_STORAGE_ERROR", async () => {
    const seen = new Map<number, number>();
    for (let round = 0; round < 5; round++) {
      const topic = uniqueName("race");
      const admin = await RawClient.connect(broker.port);
      const producer = await RawClient.connect(broker.port);
      try {
        const created = await admin.request(ApiKey.CreateTopics, 4, { topics: [{ name: topic, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
        expect(created.body.topics[0]?.errorCode).toBe(ErrorCode.NONE);
        await awaitTopicReady(admin, topic);
        const ids: Array<{ id: number; acks: number }> = [];
        for (let i = 0; i < 60; i++) {
          const acks = i % 2 === 0 ? -1 : 1;
          const records = buildBatch({ records: [{ key: `k${i}`, value: "v".repeat(i % 3 === 0 ? 200_000 : 100) }] });
          ids.push({ id: producer.send(ApiKey.Produce, 8, { acks, timeoutMs: 10_000, topicData: [{ name: topic, partitionData: [{ index: i % 2, records }] }] }), acks });
          if (i === 20) {
            // The delete goes out while the produces are in flight.
            admin.send(ApiKey.DeleteTopics, 3, { topicNames: [topic], timeoutMs: 10_000 });
          }
        }
        const del = await admin.nextFrame(20_000);
        expect(del && decodeResponse(ApiKey.DeleteTopics, 3, del).body.responses[0]?.errorCode).toBe(ErrorCode.NONE);
        for (const { id } of ids) {
          const frame = await producer.nextFrame(20_000);
          expect(frame).not.toBeNull();
          const r = decodeResponse(ApiKey.Produce, 8, frame!);
          expect(r.correlationId).toBe(id);
          const code = r.body.responses[0]?.partitionResponses[0]?.errorCode ?? -100;
          seen.set(code, (seen.get(code) ?? 0) + 1);
        }
      } finally {
        admin.close();
        producer.close();
      }
    }
    // Kafka may also answer NOT_LEADER_OR_FOLLOWER while it stops the partition (its metadata still names the topic);
    // like UNKNOWN_TOPIC_OR_PARTITION, clients retry it after a metadata refresh. This broker answers the latter alone.
    const retriable: number[] = oracleRun() ? [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_LEADER_OR_FOLLOWER] : [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION];
    expect([...seen.keys()].filter((c) => c !== ErrorCode.NONE && !retriable.includes(c))).toEqual([]);
    expect(seen.get(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) ?? 0).toBeGreaterThan(0);
    if (!oracleRun()) expect(broker.logLines.filter((l) => l.includes("KAFKA_STORAGE_ERROR"))).toEqual([]);
  });
});
