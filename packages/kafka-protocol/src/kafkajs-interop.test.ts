/**
 * Interoperability with an independent implementation: kafkajs 2.2.4's own
 * request encoders and response decoders (the client the broker must serve).
 * Requests kafkajs builds must decode here; responses encoded here must
 * decode in kafkajs to the values we put in. Versions are the ones kafkajs
 * sends to a broker advertising BROKER-SPEC.md's ranges.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { decodeRequest, encodeResponse, type ApiKeyWithBody, type ResponseInput } from "./frames.ts";
import { ApiKey } from "./generated/api-keys.ts";
import { decodeRecordBatch, encodeRecordBatch } from "./record-batch.ts";

// kafkajs's internal modules are CommonJS without exports maps: loaded by path.
const load = createRequire(import.meta.url);
const kjRequest: (args: { correlationId: number; clientId: string; request: unknown }) => Promise<{ buffer: Buffer }> =
  load("kafkajs/src/protocol/request.js");
const kj = (path: string): ((...args: unknown[]) => unknown) => load(`kafkajs/src/protocol/requests/${path}.js`);
const kjDecode = (path: string): ((data: Buffer) => Promise<Record<string, unknown>>) =>
  (load(`kafkajs/src/protocol/requests/${path}/response.js`) as { decode: (data: Buffer) => Promise<Record<string, unknown>> }).decode;
const Long = load("kafkajs/src/utils/long.js") as { fromValue(v: number | string): unknown; fromInt(v: number): unknown };

async function fromKafkajs(path: string, args: unknown) {
  const { buffer } = await kjRequest({ correlationId: 42, clientId: "kafkajs", request: kj(`${path}/request`)(args) });
  const req = decodeRequest(buffer.subarray(4));
  expect(req.header).toMatchObject({ correlationId: 42, clientId: "kafkajs" });
  return req;
}

/** kafkajs response decoders take the bytes after the correlation id (header v0, as all kafkajs versions are non-flexible). */
async function toKafkajs<K extends ApiKeyWithBody>(path: string, key: K, version: number, body: ResponseInput<K>) {
  const frame = encodeResponse(key, version, 42, body);
  expect(frame.readInt32BE(4)).toBe(42);
  return kjDecode(path)(frame.subarray(8));
}

const batch = encodeRecordBatch({
  baseOffset: 10n,
  baseTimestamp: 1700000000000n,
  records: [
    { key: "k1", value: "v1", headers: [{ key: "h", value: "x" }] },
    { key: null, value: "v2", timestampDelta: 3 },
  ],
});

describe("kafkajs requests decode here", () => {
  it("ApiVersions v2", async () => {
    const req = await fromKafkajs("apiVersions/v2", {});
    expect(req.header).toMatchObject({ apiKey: ApiKey.ApiVersions, apiVersion: 2 });
  });

  it("Metadata v6", async () => {
    const req = await fromKafkajs("metadata/v6", { topics: ["a", "b"], allowAutoTopicCreation: false });
    expect(req.header.apiVersion).toBe(6);
    expect(req.body).toMatchObject({ topics: [{ name: "a" }, { name: "b" }], allowAutoTopicCreation: false });
  });

  it("Produce v7 with a record batch kafkajs built", async () => {
    const req = await fromKafkajs("produce/v7", {
      acks: -1,
      timeout: 30000,
      compression: 0,
      topicData: [{ topic: "t", partitions: [{ partition: 2, messages: [{ key: "k", value: "v", timestamp: 1700000000000 }] }] }],
    });
    if (req.apiKey !== ApiKey.Produce) throw new Error("not a Produce request");
    expect(req.body).toMatchObject({ transactionalId: null, acks: -1, timeoutMs: 30000 });
    const part = req.body.topicData[0]!.partitionData[0]!;
    expect(part.index).toBe(2);
    const { header, records } = decodeRecordBatch(part.records!);
    expect(header).toMatchObject({ baseTimestamp: 1700000000000n, recordCount: 1, magic: 2 });
    expect(records[0]).toMatchObject({ key: Buffer.from("k"), value: Buffer.from("v") });
  });

  it("Fetch v11", async () => {
    const req = await fromKafkajs("fetch/v11", {
      replicaId: -1,
      maxWaitTime: 5000,
      minBytes: 1,
      maxBytes: 10485760,
      topics: [{ topic: "t", partitions: [{ partition: 0, fetchOffset: "5", maxBytes: 1048576 }] }],
    });
    expect(req.body).toMatchObject({
      replicaId: -1,
      maxWaitMs: 5000,
      minBytes: 1,
      isolationLevel: 1,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [{ topic: "t", partitions: [{ partition: 0, fetchOffset: 5n, partitionMaxBytes: 1048576, currentLeaderEpoch: -1 }] }],
      forgottenTopicsData: [],
      rackId: "",
    });
  });

  it("ListOffsets v3", async () => {
    const req = await fromKafkajs("listOffsets/v3", { replicaId: -1, isolationLevel: 1, topics: [{ topic: "t", partitions: [{ partition: 0, timestamp: -2 }] }] });
    expect(req.body).toMatchObject({ replicaId: -1, isolationLevel: 1, topics: [{ name: "t", partitions: [{ partitionIndex: 0, timestamp: -2n }] }] });
  });

  it("group APIs: FindCoordinator v2, JoinGroup v5, SyncGroup v3, Heartbeat v3, OffsetCommit v5, OffsetFetch v4", async () => {
    expect((await fromKafkajs("findCoordinator/v2", { coordinatorKey: "g", coordinatorType: 0 })).body).toMatchObject({ key: "g", keyType: 0 });
    expect(
      (
        await fromKafkajs("joinGroup/v5", {
          groupId: "g",
          sessionTimeout: 30000,
          rebalanceTimeout: 60000,
          memberId: "",
          groupInstanceId: null,
          protocolType: "consumer",
          groupProtocols: [{ name: "RoundRobinAssigner", metadata: Buffer.from([1, 2]) }],
        })
      ).body,
    ).toMatchObject({
      groupId: "g",
      sessionTimeoutMs: 30000,
      rebalanceTimeoutMs: 60000,
      memberId: "",
      groupInstanceId: null,
      protocolType: "consumer",
      protocols: [{ name: "RoundRobinAssigner", metadata: Buffer.from([1, 2]) }],
    });
    expect(
      (await fromKafkajs("syncGroup/v3", { groupId: "g", generationId: 1, memberId: "m", groupInstanceId: null, groupAssignment: [{ memberId: "m", memberAssignment: Buffer.from([3]) }] }))
        .body,
    ).toMatchObject({ groupId: "g", generationId: 1, memberId: "m", assignments: [{ memberId: "m", assignment: Buffer.from([3]) }] });
    expect((await fromKafkajs("heartbeat/v3", { groupId: "g", groupGenerationId: 4, memberId: "m", groupInstanceId: null })).body).toMatchObject({
      groupId: "g",
      generationId: 4,
      memberId: "m",
    });
    expect(
      (await fromKafkajs("offsetCommit/v5", { groupId: "g", groupGenerationId: 1, memberId: "m", topics: [{ topic: "t", partitions: [{ partition: 0, offset: "7" }] }] })).body,
    ).toMatchObject({ groupId: "g", generationIdOrMemberEpoch: 1, memberId: "m", topics: [{ name: "t", partitions: [{ partitionIndex: 0, committedOffset: 7n }] }] });
    expect((await fromKafkajs("offsetFetch/v4", { groupId: "g", topics: [{ topic: "t", partitions: [{ partition: 0 }] }] })).body).toMatchObject({
      groupId: "g",
      topics: [{ name: "t", partitionIndexes: [0] }],
    });
  });

  it("admin and auth: CreateTopics v3, DescribeConfigs v2, InitProducerId v1, SaslAuthenticate v1", async () => {
    expect(
      (
        await fromKafkajs("createTopics/v3", {
          topics: [{ topic: "t", numPartitions: -1, replicationFactor: -1, configEntries: [{ name: "cleanup.policy", value: "compact" }] }],
          validateOnly: false,
          timeout: 5000,
        })
      ).body,
    ).toMatchObject({ topics: [{ name: "t", numPartitions: -1, replicationFactor: -1, configs: [{ name: "cleanup.policy", value: "compact" }] }], timeoutMs: 5000 });
    expect((await fromKafkajs("describeConfigs/v2", { resources: [{ type: 2, name: "t", configNames: ["retention.ms"] }], includeSynonyms: false })).body).toMatchObject({
      resources: [{ resourceType: 2, resourceName: "t", configurationKeys: ["retention.ms"] }],
      includeSynonyms: false,
    });
    expect((await fromKafkajs("initProducerId/v1", { transactionalId: null, transactionTimeout: 60000 })).body).toMatchObject({
      transactionalId: null,
      transactionTimeoutMs: 60000,
    });
    const plain = load("kafkajs/src/protocol/sasl/plain/request.js") as (a: object) => { encode(): Promise<Buffer> };
    const authBytes = await plain({ authorizationIdentity: "", username: "alice", password: "s3cret" }).encode();
    expect((await fromKafkajs("saslAuthenticate/v1", { authBytes })).body).toMatchObject({ authBytes: Buffer.from("\0alice\0s3cret") });
  });

  it("transactions: InitProducerId v1, AddPartitionsToTxn v1, AddOffsetsToTxn v1, TxnOffsetCommit v1, EndTxn v1", async () => {
    const ids = { transactionalId: "tx-1", producerId: Long.fromValue("4001"), producerEpoch: 3 };
    expect((await fromKafkajs("initProducerId/v1", { transactionalId: "tx-1", transactionTimeout: 30000 })).body).toMatchObject({
      transactionalId: "tx-1",
      transactionTimeoutMs: 30000,
    });
    const add = await fromKafkajs("addPartitionsToTxn/v1", { ...ids, topics: [{ topic: "t", partitions: [0, 2] }] });
    expect(add.header).toMatchObject({ apiKey: ApiKey.AddPartitionsToTxn, apiVersion: 1 });
    expect(add.body).toMatchObject({ v3AndBelowTransactionalId: "tx-1", v3AndBelowProducerId: 4001n, v3AndBelowProducerEpoch: 3, v3AndBelowTopics: [{ name: "t", partitions: [0, 2] }] });
    expect((await fromKafkajs("addOffsetsToTxn/v1", { ...ids, groupId: "g" })).body).toMatchObject({ transactionalId: "tx-1", producerId: 4001n, producerEpoch: 3, groupId: "g" });
    expect(
      (await fromKafkajs("txnOffsetCommit/v1", { ...ids, groupId: "g", topics: [{ topic: "t", partitions: [{ partition: 1, offset: Long.fromValue("99"), metadata: null }] }] })).body,
    ).toMatchObject({ transactionalId: "tx-1", groupId: "g", producerId: 4001n, producerEpoch: 3, topics: [{ name: "t", partitions: [{ partitionIndex: 1, committedOffset: 99n, committedMetadata: null }] }] });
    expect((await fromKafkajs("endTxn/v1", { ...ids, transactionResult: true })).body).toMatchObject({ transactionalId: "tx-1", producerId: 4001n, producerEpoch: 3, committed: true });
  });
});

describe("responses encoded here decode in kafkajs", () => {
  it("ApiVersions v2", async () => {
    const out = await toKafkajs("apiVersions/v2", ApiKey.ApiVersions, 2, {
      errorCode: 0,
      apiKeys: [
        { apiKey: 0, minVersion: 0, maxVersion: 8 },
        { apiKey: 18, minVersion: 0, maxVersion: 3 },
      ],
      throttleTimeMs: 0,
    });
    expect(out).toMatchObject({ errorCode: 0, apiVersions: [{ apiKey: 0, minVersion: 0, maxVersion: 8 }, { apiKey: 18, minVersion: 0, maxVersion: 3 }] });
  });

  it("Metadata v6", async () => {
    const out = await toKafkajs("metadata/v6", ApiKey.Metadata, 6, {
      brokers: [{ nodeId: 0, host: "localhost", port: 9092, rack: null }],
      clusterId: "kappa",
      controllerId: 0,
      topics: [{ errorCode: 0, name: "orders", isInternal: false, partitions: [{ errorCode: 0, partitionIndex: 0, leaderId: 0, replicaNodes: [0], isrNodes: [0], offlineReplicas: [] }] }],
    });
    expect(out).toMatchObject({
      brokers: [{ nodeId: 0, host: "localhost", port: 9092, rack: null }],
      clusterId: "kappa",
      controllerId: 0,
      topicMetadata: [{ topicErrorCode: 0, topic: "orders", isInternal: false, partitionMetadata: [{ partitionErrorCode: 0, partitionId: 0, leader: 0, replicas: [0], isr: [0], offlineReplicas: [] }] }],
    });
  });

  it("Produce v7", async () => {
    const out = await toKafkajs("produce/v7", ApiKey.Produce, 7, {
      responses: [{ name: "t", partitionResponses: [{ index: 0, errorCode: 0, baseOffset: 41n, logAppendTimeMs: -1n, logStartOffset: 0n }] }],
      throttleTimeMs: 0,
    });
    expect(out).toMatchObject({ topics: [{ topicName: "t", partitions: [{ partition: 0, errorCode: 0, baseOffset: "41", logAppendTime: "-1", logStartOffset: "0" }] }] });
  });

  it("Fetch v11 with records: kafkajs decodes the batch encoded here", async () => {
    const out = await toKafkajs("fetch/v11", ApiKey.Fetch, 11, {
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [
        {
          topic: "t",
          partitions: [{ partitionIndex: 0, errorCode: 0, highWatermark: 12n, lastStableOffset: 12n, logStartOffset: 0n, abortedTransactions: null, preferredReadReplica: -1, records: batch }],
        },
      ],
    });
    expect(out).toMatchObject({ errorCode: 0, sessionId: 0 });
    const responses = out.responses as { topicName: string; partitions: Record<string, unknown>[] }[];
    expect(responses[0]!.topicName).toBe("t");
    const p = responses[0]!.partitions[0]!;
    expect(p).toMatchObject({ partition: 0, errorCode: 0, highWatermark: "12", lastStableOffset: "12", preferredReadReplica: -1 });
    const messages = p.messages as { offset: string; key: Buffer | null; value: Buffer; timestamp: string; headers: Record<string, Buffer> }[];
    expect(messages.map((m) => [m.offset, m.key?.toString() ?? null, m.value.toString(), m.timestamp])).toEqual([
      ["10", "k1", "v1", "1700000000000"],
      ["11", null, "v2", "1700000000003"],
    ]);
    expect(messages[0]!.headers.h!.toString()).toBe("x");
  });

  it("ListOffsets v3, FindCoordinator v2, JoinGroup v5, Heartbeat v3", async () => {
    expect(
      await toKafkajs("listOffsets/v3", ApiKey.ListOffsets, 3, {
        topics: [{ name: "t", partitions: [{ partitionIndex: 0, errorCode: 0, timestamp: -1n, offset: 12n }] }],
      }),
    ).toMatchObject({ responses: [{ topic: "t", partitions: [{ partition: 0, errorCode: 0, timestamp: "-1", offset: "12" }] }] });
    expect(
      await toKafkajs("findCoordinator/v2", ApiKey.FindCoordinator, 2, { errorCode: 0, errorMessage: null, nodeId: 0, host: "localhost", port: 9092 }),
    ).toMatchObject({ errorCode: 0, coordinator: { nodeId: 0, host: "localhost", port: 9092 } });
    expect(
      await toKafkajs("joinGroup/v5", ApiKey.JoinGroup, 5, {
        errorCode: 0,
        generationId: 1,
        protocolName: "RoundRobinAssigner",
        leader: "m1",
        memberId: "m1",
        members: [{ memberId: "m1", groupInstanceId: null, metadata: Buffer.from([9]) }],
      }),
    ).toMatchObject({ errorCode: 0, generationId: 1, groupProtocol: "RoundRobinAssigner", leaderId: "m1", memberId: "m1", members: [{ memberId: "m1", memberMetadata: Buffer.from([9]) }] });
    expect(await toKafkajs("heartbeat/v3", ApiKey.Heartbeat, 3, { errorCode: 0 })).toMatchObject({ errorCode: 0 });
  });
  it("transactions: InitProducerId v1, AddPartitionsToTxn v1, AddOffsetsToTxn v1, TxnOffsetCommit v1, EndTxn v1", async () => {
    expect(await toKafkajs("initProducerId/v1", ApiKey.InitProducerId, 1, { errorCode: 0, producerId: 4001n, producerEpoch: 3 })).toMatchObject({
      errorCode: 0,
      producerId: "4001",
      producerEpoch: 3,
    });
    expect(
      await toKafkajs("addPartitionsToTxn/v1", ApiKey.AddPartitionsToTxn, 1, {
        resultsByTopicV3AndBelow: [{ name: "t", resultsByPartition: [{ partitionIndex: 0, partitionErrorCode: 0 }, { partitionIndex: 2, partitionErrorCode: 3 }] }],
      }),
    ).toMatchObject({ errors: [{ topic: "t", partitionErrors: [{ partition: 0, errorCode: 0 }, { partition: 2, errorCode: 3 }] }] });
    expect(await toKafkajs("addOffsetsToTxn/v1", ApiKey.AddOffsetsToTxn, 1, { errorCode: 0 })).toMatchObject({ errorCode: 0 });
    expect(
      await toKafkajs("txnOffsetCommit/v1", ApiKey.TxnOffsetCommit, 1, { topics: [{ name: "t", partitions: [{ partitionIndex: 1, errorCode: 0 }] }] }),
    ).toMatchObject({ topics: [{ topic: "t", partitions: [{ partition: 1, errorCode: 0 }] }] });
    expect(await toKafkajs("endTxn/v1", ApiKey.EndTxn, 1, { errorCode: 0 })).toMatchObject({ errorCode: 0 });
  });
});
