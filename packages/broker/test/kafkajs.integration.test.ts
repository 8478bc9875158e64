// kafkajs 2.2.4, unmodified, against the broker over TCP.
import { CompressionTypes, type Consumer, type Kafka } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKey } from "@kappa/kafka-protocol";
import { createTopicsReady, embeddedOnly, kafkaClient, oracleRun, sleep, startTestBroker, uniqueName, waitFor, type TestBroker } from "./helpers.ts";

let broker: TestBroker;
let kafka: Kafka;

beforeAll(async () => {
  broker = await startTestBroker();
  kafka = kafkaClient(broker.bootstrap);
});
afterAll(async () => {
  await broker.cleanup();
});

interface Seen {
  partition: number;
  offset: string;
  value: string;
}

function collect(consumer: Consumer, sink: Seen[]): Promise<void> {
  return consumer.run({
    eachMessage: async ({ partition, message }) => {
      sink.push({ partition, offset: message.offset, value: message.value?.toString() ?? "" });
    },
  });
}

describe("topic admin", () => {
  it("creates with configs, describes, alters, adds partitions, lists, fetches metadata and deletes", async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const topic = uniqueName("admin");
      // createTopicsReady: kafkajs' own wait for leaders throws Kafka 4.x's UNKNOWN_TOPIC_OR_PARTITION (helpers.ts).
      expect(
        await createTopicsReady(admin, {
          topics: [{ topic, numPartitions: 2, configEntries: [{ name: "retention.ms", value: "3600000" }, { name: "cleanup.policy", value: "compact" }] }],
        }),
      ).toBe(true);
      expect(await admin.listTopics()).toContain(topic);

      const described = await admin.describeConfigs({ resources: [{ type: 2, name: topic }], includeSynonyms: false });
      const entries = new Map(described.resources[0]!.configEntries.map((e) => [e.configName, e]));
      expect(entries.get("retention.ms")).toMatchObject({ configValue: "3600000", isDefault: false });
      expect(entries.get("cleanup.policy")?.configValue).toBe("compact");
      expect(entries.get("segment.bytes")).toMatchObject({ configValue: "1073741824", isDefault: true });

      const brokerConfigs = await admin.describeConfigs({ resources: [{ type: 4, name: "1", configNames: ["num.partitions", "auto.create.topics.enable"] }], includeSynonyms: false });
      // Named configs come back in the order asked for, as Kafka answers them.
      expect(brokerConfigs.resources[0]!.configEntries.map((e) => [e.configName, e.configValue])).toEqual([
        ["num.partitions", "1"],
        ["auto.create.topics.enable", "true"],
      ]);

      // Legacy AlterConfigs replaces all overrides: cleanup.policy goes back to its default.
      await admin.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: topic, configEntries: [{ name: "retention.ms", value: "7200000" }] }] });
      const after = await admin.describeConfigs({ resources: [{ type: 2, name: topic, configNames: ["retention.ms", "cleanup.policy"] }], includeSynonyms: false });
      expect(after.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]).sort()).toEqual([
        ["cleanup.policy", "delete"],
        ["retention.ms", "7200000"],
      ]);
      await expect(
        admin.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: topic, configEntries: [{ name: "retention.ms", value: "tomorrow" }] }] }),
      ).rejects.toMatchObject({ type: "INVALID_CONFIG" });

      await admin.createPartitions({ topicPartitions: [{ topic, count: 5 }] });
      const meta = await admin.fetchTopicMetadata({ topics: [topic] });
      expect(meta.topics[0]!.partitions.map((p) => p.partitionId).sort()).toEqual([0, 1, 2, 3, 4]);
      expect(meta.topics[0]!.partitions.every((p) => p.leader === 1 && p.replicas[0] === 1 && p.isr[0] === 1)).toBe(true);
      await expect(admin.createPartitions({ topicPartitions: [{ topic, count: 3 }] })).rejects.toThrow(/partitions/i);

      const cluster = await admin.describeCluster();
      expect(cluster).toMatchObject({ controller: 1, brokers: [{ nodeId: 1, host: "127.0.0.1", port: broker.port }] });
      expect(cluster.clusterId).toMatch(/^[A-Za-z0-9_-]{22}$/);

      await admin.deleteTopics({ topics: [topic] });
      // Kafka's broker drops a deleted topic from Metadata a moment after DeleteTopics answered.
      await waitFor(async () => !(await admin.listTopics()).includes(topic), 15_000, `${topic} gone from the topic list`);
      expect(await admin.listTopics()).not.toContain(topic);
      await expect(admin.createTopics({ topics: [{ topic: "bad name!" }] })).rejects.toThrow();
    } finally {
      await admin.disconnect();
    }
  });

  it("deletes records and reports the new low watermark", async () => {
    const admin = kafka.admin();
    const producer = kafka.producer();
    await Promise.all([admin.connect(), producer.connect()]);
    try {
      const topic = uniqueName("delrec");
      await createTopicsReady(admin, { topics: [{ topic }] });
      await producer.send({ topic, messages: Array.from({ length: 10 }, (_, i) => ({ value: `r${i}` })) });
      // kafkajs looks the leader up in its cached metadata before refreshing it.
      await admin.fetchTopicMetadata({ topics: [topic] });
      await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: "4" }] });
      expect(await admin.fetchTopicOffsets(topic)).toEqual([{ partition: 0, offset: "10", high: "10", low: "4" }]);
    } finally {
      await Promise.all([admin.disconnect(), producer.disconnect()]);
    }
  });
});

describe("produce and consume", () => {
  it("delivers every record, each partition in order without gaps, across joins and leaves of a three-member group", async () => {
    const topic = uniqueName("group3");
    const groupId = uniqueName("g3");
    const admin = kafka.admin();
    await admin.connect();
    await createTopicsReady(admin, { topics: [{ topic, numPartitions: 6 }] });
    await admin.disconnect();

    const total = 900;
    const producer = kafka.producer();
    await producer.connect();
    const seen: Seen[] = [];
    const consumers: Consumer[] = [];
    const startConsumer = async (): Promise<Consumer> => {
      const c = kafka.consumer({ groupId, heartbeatInterval: 200, maxWaitTimeInMs: 100, sessionTimeout: 10_000, rebalanceTimeout: 10_000 });
      await c.connect();
      await c.subscribe({ topic, fromBeginning: true });
      void collect(c, seen);
      consumers.push(c);
      return c;
    };
    const producing = (async () => {
      for (let i = 0; i < total; i += 10) {
        await producer.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, j) => ({ key: `k${i + j}`, value: `v${i + j}` })) });
        await sleep(15);
      }
    })();

    const c1 = await startConsumer();
    await waitFor(() => seen.length > 50, 20_000, "first consumer to make progress");
    const c2 = await startConsumer();
    await sleep(400);
    await startConsumer();
    await waitFor(() => seen.length > 400, 30_000, "three consumers to make progress");
    await c1.disconnect(); // leave
    await sleep(300);
    await c2.disconnect(); // leave
    await startConsumer(); // and a new member joins the remaining one
    await producing;
    await waitFor(() => seen.length >= total, 30_000, `all ${total} records (have ${seen.length})`);
    await sleep(300); // any duplicate would arrive now
    await Promise.all(consumers.map((c) => c.disconnect()));
    await producer.disconnect();

    // The group really went through the intended memberships (the broker's log says so; Kafka's is not read here).
    if (!oracleRun()) {
      const generations = broker.logLines.filter((l) => l.includes(`group ${groupId}: generation`)).map((l) => Number(/with (\d+) members/.exec(l)?.[1]));
      expect(generations).toContain(3);
      expect(generations.length).toBeGreaterThanOrEqual(4);
    }
    // Every record at least once: a rebalance hands a partition over at its last committed offset, so records its
    // previous owner consumed but had not committed yet come again (Kafka's consumer-group guarantee; Kafka
    // redelivered 7 and 8 of 900 in oracle runs under load).
    const values = seen.map((s) => s.value);
    expect(new Set(values).size).toBe(total);
    expect(values.length).toBeGreaterThanOrEqual(total);
    // Per partition, each offset's first delivery comes in order with no gaps (a redelivery repeats earlier ones only).
    for (let p = 0; p < 6; p++) {
      const offsets = [...new Set(seen.filter((s) => s.partition === p).map((s) => Number(s.offset)))];
      expect(offsets).toEqual(offsets.map((_, i) => i));
    }
  });

  embeddedOnly("restart of its data dir").it("resumes from the committed offset after a broker restart", async () => {
    const topic = uniqueName("restart");
    const groupId = uniqueName("grestart");
    const port = broker.port;
    const dir = await (await import("./helpers.ts")).newDataDir();
    let b = await startTestBroker({}, dir);
    let k = kafkaClient(b.bootstrap);
    const producer = k.producer();
    await producer.connect();
    await producer.send({ topic, messages: Array.from({ length: 10 }, (_, i) => ({ value: `before-${i}` })) });
    await producer.disconnect();
    const first: Seen[] = [];
    const c1 = k.consumer({ groupId, maxWaitTimeInMs: 100 });
    await c1.connect();
    await c1.subscribe({ topic, fromBeginning: true });
    void collect(c1, first);
    await waitFor(() => first.length === 10, 20_000, "the first 10 records");
    await c1.disconnect();
    const restartPort = b.port;
    await b.stop();
    expect(port).not.toBe(0);

    b = await startTestBroker({ port: restartPort }, dir);
    try {
      k = kafkaClient(b.bootstrap);
      const admin = k.admin();
      await admin.connect();
      expect(await admin.fetchOffsets({ groupId, topics: [topic] })).toEqual([{ topic, partitions: [{ partition: 0, offset: "10", metadata: null }] }]);
      expect((await admin.listGroups()).groups).toContainEqual({ groupId, protocolType: "consumer" });
      await admin.disconnect();
      const p2 = k.producer();
      await p2.connect();
      await p2.send({ topic, messages: Array.from({ length: 5 }, (_, i) => ({ value: `after-${i}` })) });
      await p2.disconnect();
      const second: Seen[] = [];
      const c2 = k.consumer({ groupId, maxWaitTimeInMs: 100 });
      await c2.connect();
      await c2.subscribe({ topic, fromBeginning: true });
      void collect(c2, second);
      await waitFor(() => second.length >= 5, 20_000, "the 5 new records");
      await sleep(200);
      await c2.disconnect();
      expect(second.map((s) => [s.offset, s.value])).toEqual(Array.from({ length: 5 }, (_, i) => [String(10 + i), `after-${i}`]));
    } finally {
      await b.cleanup();
    }
  });

  it("seeks back to an earlier offset", async () => {
    const topic = uniqueName("seek");
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: Array.from({ length: 10 }, (_, i) => ({ value: `s${i}` })) });
    await producer.disconnect();
    const seen: Seen[] = [];
    const c = kafka.consumer({ groupId: uniqueName("gseek"), maxWaitTimeInMs: 100 });
    await c.connect();
    await c.subscribe({ topic, fromBeginning: true });
    void collect(c, seen);
    await waitFor(() => seen.length === 10, 20_000, "10 records");
    c.seek({ topic, partition: 0, offset: "6" });
    await waitFor(() => seen.length === 14, 20_000, "the records after the seek");
    await c.disconnect();
    expect(seen.slice(10).map((s) => s.value)).toEqual(["s6", "s7", "s8", "s9"]);
  });

  it("finds offsets by timestamp", async () => {
    const topic = uniqueName("ts");
    const admin = kafka.admin();
    const producer = kafka.producer();
    await Promise.all([admin.connect(), producer.connect()]);
    try {
      const base = Date.now() - 60_000;
      for (let i = 0; i < 5; i++) await producer.send({ topic, messages: [{ value: `t${i}`, timestamp: String(base + i * 1000) }] });
      expect(await admin.fetchTopicOffsetsByTimestamp(topic, base + 2500)).toEqual([{ partition: 0, offset: "3" }]);
      expect(await admin.fetchTopicOffsetsByTimestamp(topic, base)).toEqual([{ partition: 0, offset: "0" }]);
      // After the last record: kafkajs maps "no match" (-1) to the high watermark.
      expect(await admin.fetchTopicOffsetsByTimestamp(topic, base + 10_000)).toEqual([{ partition: 0, offset: "5" }]);
    } finally {
      await Promise.all([admin.disconnect(), producer.disconnect()]);
    }
  });

  it("round-trips gzip-compressed batches with keys and headers", async () => {
    const topic = uniqueName("gzip");
    const producer = kafka.producer();
    await producer.connect();
    const messages = Array.from({ length: 50 }, (_, i) => ({ key: `key-${i}`, value: `gzip-${i}-${"z".repeat(i * 10)}`, headers: { idx: String(i) } }));
    await producer.send({ topic, compression: CompressionTypes.GZIP, messages });
    await producer.disconnect();
    const got: Array<{ key: string; value: string; idx: string }> = [];
    const c = kafka.consumer({ groupId: uniqueName("ggzip"), maxWaitTimeInMs: 100 });
    await c.connect();
    await c.subscribe({ topic, fromBeginning: true });
    void c.run({
      eachMessage: async ({ message }) => {
        got.push({ key: message.key?.toString() ?? "", value: message.value?.toString() ?? "", idx: message.headers?.idx?.toString() ?? "" });
      },
    });
    await waitFor(() => got.length === 50, 20_000, "50 gzip records");
    await c.disconnect();
    expect(got).toEqual(messages.map((m) => ({ key: m.key, value: m.value, idx: m.headers.idx })));
  });

  embeddedOnly("its fault control").it("does not duplicate a batch an idempotent producer retries after losing the response", async () => {
    const topic = uniqueName("idem");
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic }] });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: [{ value: "first" }] });
    let dropped = 0;
    broker.control.add(ApiKey.Produce, (req) => {
      dropped++;
      void req;
      return { kind: "drop-response" };
    });
    await producer.send({ topic, acks: -1, messages: [{ value: "retried" }] });
    await producer.send({ topic, acks: -1, messages: [{ value: "last" }] });
    await producer.disconnect();
    expect(dropped).toBe(1);
    expect(await admin.fetchTopicOffsets(topic)).toEqual([{ partition: 0, offset: "3", high: "3", low: "0" }]);
    await admin.disconnect();
    const seen: Seen[] = [];
    const c = kafka.consumer({ groupId: uniqueName("gidem"), maxWaitTimeInMs: 100 });
    await c.connect();
    await c.subscribe({ topic, fromBeginning: true });
    void collect(c, seen);
    await waitFor(() => seen.length >= 3, 20_000, "3 records");
    await sleep(200);
    await c.disconnect();
    expect(seen.map((s) => s.value)).toEqual(["first", "retried", "last"]);
  });
});
