// Kafka's topic configs (issue 15): CreateTopics accepts every one, DescribeConfigs
// answers named configs in its listing's order with Kafka's synonyms, compression.type is
// honoured (kcat/librdkafka decodes what the broker re-encoded), and
// message.timestamp.* is enforced with INVALID_TIMESTAMP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKey, ErrorCode, iterateBatches } from "@kappa/kafka-protocol";
import { KNOWN_TOPIC_CONFIGS } from "../src/storage/index.ts";
import { createTopicsReady, kafkaClient, RawClient, startTestBroker, uniqueName, type TestBroker } from "./helpers.ts";
import { runKcat } from "./sasl-helpers.ts";

let broker: TestBroker;
beforeAll(async () => {
  broker = await startTestBroker();
});
afterAll(async () => {
  await broker.cleanup();
});

/** A valid non-default value for every topic config. */
const VALUES: Record<string, string> = {
  "cleanup.policy": "compact,delete",
  "compression.gzip.level": "6",
  "compression.lz4.level": "10",
  "compression.type": "gzip",
  "compression.zstd.level": "5",
  "delete.retention.ms": "1000",
  "file.delete.delay.ms": "1000",
  "flush.messages": "100",
  "flush.ms": "1000",
  "follower.replication.throttled.replicas": "0:1",
  "index.interval.bytes": "8192",
  "leader.replication.throttled.replicas": "*",
  "local.retention.bytes": "-2",
  "local.retention.ms": "-2",
  "max.compaction.lag.ms": "100000",
  "max.message.bytes": "2000000",
  "message.timestamp.after.max.ms": "3600000",
  "message.timestamp.before.max.ms": "3600000",
  "message.timestamp.type": "CreateTime",
  "min.cleanable.dirty.ratio": "0.25",
  "min.compaction.lag.ms": "1000",
  "min.insync.replicas": "2",
  preallocate: "true",
  "remote.storage.enable": "false",
  "retention.bytes": "1000000000",
  "retention.ms": "86400000",
  "segment.bytes": "10000000",
  "segment.index.bytes": "1000000",
  "segment.jitter.ms": "1000",
  "segment.ms": "3600000",
  "unclean.leader.election.enable": "true",
};

describe("topic configs", () => {
  it("CreateTopics accepts every topic config; DescribeConfigs answers named ones in its full listing's order (not the request's) with synonyms", async () => {
    expect(Object.keys(VALUES).sort()).toEqual([...KNOWN_TOPIC_CONFIGS].sort());
    const topic = uniqueName("all-configs");
    const admin = kafkaClient(broker.bootstrap).admin();
    await admin.connect();
    await createTopicsReady(admin, { topics: [{ topic, numPartitions: 1, configEntries: Object.entries(VALUES).map(([name, value]) => ({ name, value })) }] });
    await admin.disconnect();
    const c = await RawClient.connect(broker.port);
    const all = await c.request(ApiKey.DescribeConfigs, 3, { resources: [{ resourceType: 2, resourceName: topic, configurationKeys: null }], includeSynonyms: false, includeDocumentation: false });
    const rows = new Map(all.body.results[0]!.configs.map((r) => [r.name, r]));
    for (const [name, value] of Object.entries(VALUES)) expect({ name, value: rows.get(name)?.value, source: rows.get(name)?.configSource }).toEqual({ name, value, source: 1 });

    const named = ["segment.ms", "cleanup.policy", "no.such.config", "compression.type", "retention.ms"];
    const r = await c.request(ApiKey.DescribeConfigs, 3, { resources: [{ resourceType: 2, resourceName: topic, configurationKeys: named }], includeSynonyms: true, includeDocumentation: false });
    const configs = r.body.results[0]!.configs;
    // Kafka filters its full listing (ConfigHelper): the known named configs, in the listing's order, whatever the request's.
    const listed = all.body.results[0]!.configs.map((x) => x.name).filter((n) => named.includes(n));
    expect([...listed].sort()).toEqual(["cleanup.policy", "compression.type", "retention.ms", "segment.ms"]);
    expect(configs.map((x) => x.name)).toEqual(listed);
    // The topic override, then the broker-level synonyms Kafka lists from the primary broker name on:
    // log.retention.ms has no default, so log.retention.hours (DEFAULT_CONFIG) is not listed.
    expect(configs.find((x) => x.name === "retention.ms")!.synonyms).toEqual([{ name: "retention.ms", value: "86400000", source: 1 }]);
    expect(configs.find((x) => x.name === "compression.type")!.synonyms).toEqual([
      { name: "compression.type", value: VALUES["compression.type"], source: 1 },
      { name: "compression.type", value: "producer", source: 5 },
    ]);
    c.close();
  });

  it("refuses invalid values with INVALID_CONFIG naming the config", async () => {
    const c = await RawClient.connect(broker.port);
    const r = await c.request(ApiKey.CreateTopics, 4, {
      topics: [
        { name: uniqueName("bad-ratio"), numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: "min.cleanable.dirty.ratio", value: "1.5" }] },
        { name: uniqueName("bad-codec"), numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: "compression.type", value: "brotli" }] },
      ],
      timeoutMs: 5000,
    });
    expect(r.body.topics.map((t) => [t.errorCode, /min.cleanable.dirty.ratio|compression.type/.test(t.errorMessage ?? "")])).toEqual([
      [ErrorCode.INVALID_CONFIG, true],
      [ErrorCode.INVALID_CONFIG, true],
    ]);
    c.close();
  });
});

describe("compression.type", () => {
  it("recompresses to a named codec, keeps the producer's with 'producer', and librdkafka reads every one", async () => {
    const kafka = kafkaClient(broker.bootstrap);
    const admin = kafka.admin();
    await admin.connect();
    const producer = kafka.producer();
    await producer.connect();
    const c = await RawClient.connect(broker.port);
    const values = Array.from({ length: 50 }, (_, i) => `record-${i}-${"kafka".repeat(i)}`);
    for (const [type, expected] of [["gzip", 1], ["snappy", 2], ["lz4", 3], ["zstd", 4], ["uncompressed", 0], ["producer", 1]] as const) {
      const topic = uniqueName(`ct-${type}`);
      await createTopicsReady(admin, { topics: [{ topic, numPartitions: 1, configEntries: [{ name: "compression.type", value: type }] }] });
      // kafkajs sends gzip (codec 1) to the "producer" and "uncompressed" topics, uncompressed to the others.
      const compression = type === "producer" || type === "uncompressed" ? 1 : 0;
      await producer.send({ topic, compression, messages: values.map((value) => ({ value })) });
      const f = await c.request(ApiKey.Fetch, 11, {
        replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0,
        topics: [{ topic, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
      });
      const batches = [...iterateBatches(f.body.responses[0]!.partitions[0]!.records ?? Buffer.alloc(0))];
      expect({ type, codecs: batches.map((b) => b.header.attributes & 7) }).toEqual({ type, codecs: [expected] });
      const kc = await runKcat(broker.bootstrap, ["-C", "-t", topic, "-o", "beginning", "-e", "-q"], undefined, 30_000);
      expect({ type, code: kc.code, stderr: kc.stderr }).toEqual({ type, code: 0, stderr: "" });
      expect(kc.stdout.trim().split("\n")).toEqual(values);
    }
    c.close();
    await producer.disconnect();
    await admin.disconnect();
  });
});

describe("message.timestamp.*", () => {
  it("refuses the configs Kafka 4.0 removed (message.timestamp.difference.max.ms, message.downconversion.enable) as unknown", async () => {
    const c = await RawClient.connect(broker.port);
    try {
      for (const [name, value] of [["message.timestamp.difference.max.ms", "60000"], ["message.downconversion.enable", "false"]] as const) {
        const topic = uniqueName("removed-config");
        const r = await c.request(ApiKey.CreateTopics, 4, { topics: [{ name: topic, numPartitions: 1, replicationFactor: 1, configs: [{ name, value }] }], timeoutMs: 5000, validateOnly: false });
        expect(r.body.topics[0]).toMatchObject({ errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `Unknown topic config name: ${name}` });
        const meta = await c.request(ApiKey.Metadata, 8, { topics: [{ name: topic }], allowAutoTopicCreation: false });
        expect(meta.body.topics[0]?.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      }
    } finally {
      c.close();
    }
  });

  it("refuses CreateTime records outside [now - before, now + after] with INVALID_TIMESTAMP", async () => {
    const kafka = kafkaClient(broker.bootstrap, { retry: { retries: 0 } });
    const admin = kafka.admin();
    await admin.connect();
    const topic = uniqueName("ts-bounds");
    await createTopicsReady(admin, { topics: [{ topic, numPartitions: 1, configEntries: [{ name: "message.timestamp.before.max.ms", value: "60000" }, { name: "message.timestamp.after.max.ms", value: "60000" }] }] });
    await admin.disconnect();
    const producer = kafka.producer({ retry: { retries: 0 } });
    await producer.connect();
    await producer.send({ topic, messages: [{ value: "now", timestamp: String(Date.now()) }] });
    for (const ts of [Date.now() - 3_600_000, Date.now() + 3_600_000]) {
      await expect(producer.send({ topic, messages: [{ value: "out of range", timestamp: String(ts) }] })).rejects.toMatchObject({ type: "INVALID_TIMESTAMP" });
    }
    await producer.disconnect();
  });
});
