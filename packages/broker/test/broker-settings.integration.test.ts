// Broker settings Kafka accepts that one node answers as a one-broker Kafka does
// (issue 15): default.replication.factor above 1 makes topic creation that relies on
// it fail with INVALID_REPLICATION_FACTOR; delete.topic.enable=false refuses deletions.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { RawClient, oracleRun, startTestBroker, uniqueName, type TestBroker } from "./helpers.ts";

let broker: TestBroker;
beforeAll(async () => {
  broker = await startTestBroker({ "default.replication.factor": 3, "delete.topic.enable": false, "auto.create.topics.enable": true });
});
afterAll(async () => {
  await broker.cleanup();
});

describe("default.replication.factor and delete.topic.enable", () => {
  it("refuses creations that take the default factor, accepts an explicit 1, and refuses deletions", async () => {
    const c = await RawClient.connect(broker.port);
    const byDefault = uniqueName("rf-default");
    const explicit = uniqueName("rf-one");
    const r = await c.request(ApiKey.CreateTopics, 4, {
      topics: [
        { name: byDefault, numPartitions: 1, replicationFactor: -1, assignments: [], configs: [] },
        { name: explicit, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
      ],
      timeoutMs: 5000,
    });
    expect(r.body.topics.map((t) => [t.name, t.errorCode, t.errorMessage])).toEqual([
      [byDefault, ErrorCode.INVALID_REPLICATION_FACTOR, "Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached because only 1 broker(s) are registered."],
      [explicit, ErrorCode.NONE, null],
    ]);
    // Refusals are logged at INFO with the reason (this broker's log).
    if (!oracleRun()) expect(broker.logLines.some((l) => l.startsWith(`INFO CreateTopics of ${byDefault} refused with INVALID_REPLICATION_FACTOR (38): Unable to replicate`))).toBe(true);
    const badConfig = uniqueName("bad-config");
    const bc = await c.request(ApiKey.CreateTopics, 4, {
      topics: [{ name: badConfig, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: "cleanup.policy", value: "bogus" }] }],
      timeoutMs: 5000,
    });
    expect(bc.body.topics[0]!.errorCode).toBe(ErrorCode.INVALID_CONFIG);
    if (!oracleRun()) expect(broker.logLines.some((l) => l.startsWith(`INFO CreateTopics of ${badConfig} refused with INVALID_CONFIG (40):`) && l.includes("cleanup.policy"))).toBe(true);
    // Auto-creation uses the default factor too: Kafka's Metadata answers UNKNOWN_TOPIC_OR_PARTITION while it tries,
    // the creation fails, and the topic stays unknown.
    const auto = uniqueName("rf-auto");
    const md = await c.request(ApiKey.Metadata, 8, { topics: [{ name: auto }], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(md.body.topics[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const listed = await c.request(ApiKey.CreateTopics, 4, { topics: [{ name: auto, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: true });
    expect(listed.body.topics[0]!.errorCode).toBe(ErrorCode.NONE);

    const d = await c.request(ApiKey.DeleteTopics, 3, { topicNames: [explicit], timeoutMs: 5000 });
    expect(d.body.responses[0]!.errorCode).toBe(ErrorCode.TOPIC_DELETION_DISABLED);
    if (!oracleRun()) expect(broker.logLines.some((l) => /INFO DeleteTopics of .* refused: delete.topic.enable is false/.test(l))).toBe(true);
    c.close();
  });
});
