// Kafka transactions (KIP-98) with unmodified clients: kafkajs 2.2.4's
// transactional producer and consumers at both isolation levels, and kcat
// (librdkafka 2.0.2, READ_COMMITTED by default) reading what kafkajs wrote.
import type { Kafka, Producer } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { createTopicsReady, kafkaClient, RawClient, sleep, startTestBroker, uniqueName, waitFor, type TestBroker } from "./helpers.ts";
import { runKcat } from "./sasl-helpers.ts";

let broker: TestBroker;
let kafka: Kafka;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  broker = await startTestBroker({ "auto.create.topics.enable": false, "transaction.abort.timed.out.transaction.cleanup.interval.ms": 100 });
  kafka = kafkaClient(broker.bootstrap);
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
  await broker.cleanup();
});

async function createTopic(topic: string, partitions = 1): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await createTopicsReady(admin, { topics: [{ topic, numPartitions: partitions }] });
  await admin.disconnect();
}

async function transactionalProducer(transactionalId: string, transactionTimeout = 30_000): Promise<Producer> {
  const p = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1, transactionTimeout });
  await p.connect();
  cleanups.push(() => p.disconnect());
  return p;
}

/** Every value a kafkajs consumer at the given isolation level reads from the start of `topic`, until `count` or the timeout. */
async function consumeValues(topic: string, readUncommitted: boolean, count: number, timeoutMs = 10_000): Promise<string[]> {
  const consumer = kafka.consumer({ groupId: uniqueName("reader"), readUncommitted, maxWaitTimeInMs: 100 });
  await consumer.connect();
  const values: string[] = [];
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void values.push(message.value?.toString() ?? "") });
    await waitFor(() => values.length >= count, timeoutMs, `${count} records from ${topic}`).catch(() => undefined);
    // A little longer, to catch anything that should not be there.
    await sleep(300);
  } finally {
    await consumer.disconnect();
  }
  return values;
}

async function kcatValues(topic: string, isolation: "read_committed" | "read_uncommitted"): Promise<string[]> {
  const { code, stdout, stderr } = await runKcat(broker.bootstrap, ["-C", "-t", topic, "-o", "beginning", "-e", "-q", "-X", `isolation.level=${isolation}`, "-f", "%s\n"]);
  if (code !== 0) throw new Error(`kcat exited with ${code}: ${stderr}`);
  return stdout.split("\n").filter((l) => l !== "");
}

async function listOffset(topic: string, isolationLevel: 0 | 1): Promise<bigint> {
  const c = await RawClient.connect(broker.port);
  try {
    const r = await c.request(ApiKey.ListOffsets, 2, { replicaId: -1, isolationLevel, topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp: -1n }] }] });
    const p = r.body.topics[0]!.partitions[0]!;
    expect(p.errorCode).toBe(ErrorCode.NONE);
    return p.offset;
  } finally {
    c.close();
  }
}

describe("transactions with kafkajs and kcat", () => {
  it("shows committed transactions to READ_COMMITTED consumers and aborted ones only to READ_UNCOMMITTED consumers", async () => {
    const topic = uniqueName("txn-iso");
    await createTopic(topic);
    const producer = await transactionalProducer(uniqueName("tx-iso"));
    const plain = kafka.producer();
    await plain.connect();
    cleanups.push(() => plain.disconnect());

    let txn = await producer.transaction();
    await txn.send({ topic, messages: [{ value: "c1" }, { value: "c2" }] });
    await txn.commit();
    txn = await producer.transaction();
    await txn.send({ topic, messages: [{ value: "a1" }, { value: "a2" }] });
    await txn.send({ topic, messages: [{ value: "a3" }] });
    await txn.abort();
    await plain.send({ topic, acks: -1, messages: [{ value: "p1" }] });
    txn = await producer.transaction();
    await txn.send({ topic, messages: [{ value: "c3" }] });
    await txn.commit();

    const committed = ["c1", "c2", "p1", "c3"];
    const everything = ["c1", "c2", "a1", "a2", "a3", "p1", "c3"];
    expect(await consumeValues(topic, false, committed.length)).toEqual(committed);
    expect(await consumeValues(topic, true, everything.length)).toEqual(everything);
    // librdkafka: read_committed filters with the aborted-transactions list; markers never show as records.
    expect(await kcatValues(topic, "read_committed")).toEqual(committed);
    expect(await kcatValues(topic, "read_uncommitted")).toEqual(everything);
  });

  it("takes librdkafka's transactional producer (kcat -X transactional.id) and kafkajs reads what it committed", async () => {
    const topic = uniqueName("txn-kcat");
    await createTopic(topic);
    const transactionalId = uniqueName("tx-kcat");
    // kcat 1.7 runs init/begin/commit_transaction when transactional.id is set (InitProducerId v4, flexible).
    const { code, stderr } = await runKcat(broker.bootstrap, ["-P", "-t", topic, "-X", `transactional.id=${transactionalId}`], "k1\nk2\nk3\n");
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/Transaction successfully committed/);
    expect(await consumeValues(topic, false, 3)).toEqual(["k1", "k2", "k3"]);
    expect(await kcatValues(topic, "read_committed")).toEqual(["k1", "k2", "k3"]);
    const raw = await RawClient.connect(broker.port);
    try {
      const d = await raw.request(ApiKey.DescribeTransactions, 0, { transactionalIds: [transactionalId] });
      expect(d.body.transactionStates[0]).toMatchObject({ errorCode: 0, transactionState: "CompleteCommit" });
    } finally {
      raw.close();
    }
  });

  it("holds READ_COMMITTED readers at the last stable offset while a transaction is open", async () => {
    const topic = uniqueName("txn-lso");
    await createTopic(topic);
    const producer = await transactionalProducer(uniqueName("tx-lso"));
    const plain = kafka.producer();
    await plain.connect();
    cleanups.push(() => plain.disconnect());
    await plain.send({ topic, acks: -1, messages: [{ value: "before" }] });
    const txn = await producer.transaction();
    await txn.send({ topic, messages: [{ value: "open-1" }] });
    // Committed non-transactional data after the open transaction's first record is held back too.
    await plain.send({ topic, acks: -1, messages: [{ value: "after" }] });
    expect(await listOffset(topic, 0)).toBe(3n);
    expect(await listOffset(topic, 1)).toBe(1n);
    expect(await kcatValues(topic, "read_committed")).toEqual(["before"]);
    expect(await kcatValues(topic, "read_uncommitted")).toEqual(["before", "open-1", "after"]);
    await txn.commit();
    // Kafka answers EndTxn once the coordinator logged PREPARE_COMMIT and writes the markers after it: wait for the LSO to move.
    await waitFor(async () => (await listOffset(topic, 1)) !== 1n, 10_000, "the commit marker");
    // HW 4 now (the commit marker took offset 3); the LSO caught up with it.
    expect(await listOffset(topic, 1)).toBe(4n);
    expect(await listOffset(topic, 0)).toBe(4n);
    expect(await kcatValues(topic, "read_committed")).toEqual(["before", "open-1", "after"]);
  });

  it("consume-transform-produce: output and input offsets commit together with sendOffsets, or not at all", async () => {
    const input = uniqueName("ctp-in");
    const output = uniqueName("ctp-out");
    const groupId = uniqueName("ctp-group");
    await createTopic(input);
    await createTopic(output);
    const plain = kafka.producer();
    await plain.connect();
    cleanups.push(() => plain.disconnect());
    await plain.send({ topic: input, acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ value: `in-${i}` })) });

    const producer = await transactionalProducer(uniqueName("tx-ctp"));
    const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
    await consumer.connect();
    cleanups.push(() => consumer.disconnect());
    await consumer.subscribe({ topic: input, fromBeginning: true });
    let batches = 0;
    let processed = 0;
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        const txn = await producer.transaction();
        await txn.send({ topic: output, messages: batch.messages.map((m) => ({ value: `out-${m.value?.toString().slice(3)}` })) });
        const next = (BigInt(batch.lastOffset()) + 1n).toString();
        await txn.sendOffsets({ consumerGroupId: groupId, topics: [{ topic: input, partitions: [{ partition: batch.partition, offset: next }] }] });
        // The very first batch is aborted: neither its output nor its offsets may survive.
        if (batches++ === 0) {
          await txn.abort();
          throw new Error("first batch aborted on purpose");
        }
        await txn.commit();
        processed += batch.messages.length;
      },
    });
    await waitFor(() => processed >= 10, 20_000, "all input processed");
    await consumer.stop();

    const admin = kafka.admin();
    await admin.connect();
    const offsets = await admin.fetchOffsets({ groupId, topics: [input] });
    await admin.disconnect();
    expect(offsets[0]!.partitions[0]!.offset).toBe("10");
    const out = await consumeValues(output, false, 10);
    expect(out).toEqual(Array.from({ length: 10 }, (_, i) => `out-${i}`));
    // The aborted attempt is in the log, visible only uncommitted.
    expect((await consumeValues(output, true, 11)).length).toBeGreaterThan(10);
  });

  it("answers OffsetFetch with require_stable UNSTABLE_OFFSET_COMMIT while a transaction holds the group's offsets, and the committed offset without it (KIP-447)", async () => {
    const topic = uniqueName("txn-stable");
    const groupId = uniqueName("stable-group");
    await createTopic(topic, 2);
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(() => admin.disconnect());
    await admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: "5" }, { partition: 1, offset: "3" }] });
    const c = await RawClient.connect(broker.port);
    cleanups.push(async () => c.close());
    // Partition → [error, offset] as OffsetFetch v7 answers; `settled` also asks in the v8 (groups) shape, which must
    // agree (asked only where nothing is changing between the two requests).
    const shape = (ps: ReadonlyArray<{ errorCode: number; committedOffset: bigint }>) => ps.map((p) => [p.errorCode, p.committedOffset]);
    const fetch = async (requireStable: boolean) =>
      shape((await c.request(ApiKey.OffsetFetch, 7, { groupId, topics: [{ name: topic, partitionIndexes: [0, 1] }], requireStable })).body.topics[0]!.partitions);
    const settled = async (requireStable: boolean) => {
      const v7 = await fetch(requireStable);
      const v8 = (await c.request(ApiKey.OffsetFetch, 8, { groups: [{ groupId, topics: [{ name: topic, partitionIndexes: [0, 1] }] }], requireStable })).body.groups[0]!;
      expect(shape(v8.topics[0]!.partitions)).toEqual(v7);
      return v7;
    };
    const unstable = [ErrorCode.UNSTABLE_OFFSET_COMMIT, -1n];
    const text = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));
    const producer = await transactionalProducer(uniqueName("tx-stable"));

    const txn = await producer.transaction();
    await txn.send({ topic, messages: [{ value: "out" }], acks: -1 });
    await txn.sendOffsets({ consumerGroupId: groupId, topics: [{ topic, partitions: [{ partition: 0, offset: "7" }] }] });
    // Partition 0 has an offset in the open transaction: unstable for a reader that asks; partition 1 does not.
    expect(await settled(true)).toEqual([unstable, [ErrorCode.NONE, 3n]]);
    expect(await settled(false)).toEqual([
      [ErrorCode.NONE, 5n],
      [ErrorCode.NONE, 3n],
    ]);
    await txn.commit();
    // Kafka answers EndTxn once the commit is decided and writes its markers after: stable a moment later.
    const committed = [
      [ErrorCode.NONE, 7n],
      [ErrorCode.NONE, 3n],
    ];
    await waitFor(async () => text(await fetch(true)) === text(committed), 10_000, "the committed offset 7, stable");
    expect(await settled(true)).toEqual(committed);

    const aborted = await producer.transaction();
    await aborted.sendOffsets({ consumerGroupId: groupId, topics: [{ topic, partitions: [{ partition: 1, offset: "9" }] }] });
    expect(await settled(true)).toEqual([committed[0], unstable]);
    await aborted.abort();
    // An abort drops the offset: partition 1 is stable again at its committed 3.
    await waitFor(async () => text(await fetch(true)) === text(committed), 10_000, "partition 1 stable at 3 again");
    expect(await settled(true)).toEqual(committed);
  });

  it("fences a zombie: a new producer with the same transactional id aborts the old one's transaction and refuses its writes", async () => {
    const topic = uniqueName("txn-zombie");
    await createTopic(topic);
    const transactionalId = uniqueName("tx-zombie");
    const zombie = await transactionalProducer(transactionalId);
    const zombieTxn = await zombie.transaction();
    await zombieTxn.send({ topic, messages: [{ value: "zombie-1" }] });

    // kafkajs initializes the transactional id with the first transaction(): that is when the new incarnation fences the old.
    const fresh = await transactionalProducer(transactionalId);
    const txn = await fresh.transaction();
    await expect(zombieTxn.send({ topic, messages: [{ value: "zombie-2" }] })).rejects.toThrow(/epoch/i);
    await expect(zombieTxn.commit()).rejects.toThrow();
    await txn.send({ topic, messages: [{ value: "fresh-1" }] });
    await txn.commit();
    expect(await consumeValues(topic, false, 1)).toEqual(["fresh-1"]);
    expect(await kcatValues(topic, "read_committed")).toEqual(["fresh-1"]);
  });

  it("aborts a transaction that outlives transaction.timeout.ms and fences its producer", async () => {
    const topic = uniqueName("txn-timeout");
    await createTopic(topic);
    const transactionalId = uniqueName("tx-timeout");
    const producer = await transactionalProducer(transactionalId, 1000);
    const txn = await producer.transaction();
    await txn.send({ topic, messages: [{ value: "slow" }] });
    expect(await listOffset(topic, 1)).toBe(0n);
    const raw = await RawClient.connect(broker.port);
    cleanups.push(async () => raw.close());
    await waitFor(
      async () => {
        const r = await raw.request(ApiKey.DescribeTransactions, 0, { transactionalIds: [transactionalId] });
        return r.body.transactionStates[0]?.transactionState === "CompleteAbort";
      },
      10_000,
      "the coordinator to abort the timed-out transaction",
    );
    // The abort marker (offset 1) released the LSO.
    expect(await listOffset(topic, 1)).toBe(2n);
    await expect(txn.commit()).rejects.toThrow();
    expect(await kcatValues(topic, "read_committed")).toEqual([]);
    expect(await kcatValues(topic, "read_uncommitted")).toEqual(["slow"]);
  });

  it("describes transactions and producers and lists transactions (KIP-664)", async () => {
    const topic = uniqueName("txn-admin");
    await createTopic(topic, 2);
    const transactionalId = uniqueName("tx-admin");
    const producer = await transactionalProducer(transactionalId);
    const txn = await producer.transaction();
    await txn.send({ topic, messages: [{ value: "x", partition: 1 }] });
    const raw = await RawClient.connect(broker.port);
    try {
      const d = await raw.request(ApiKey.DescribeTransactions, 0, { transactionalIds: [transactionalId, "no-such-id"] });
      const [mine, missing] = d.body.transactionStates;
      expect(mine).toMatchObject({ errorCode: 0, transactionalId, transactionState: "Ongoing", transactionTimeoutMs: 30_000, topics: [{ topic, partitions: [1] }] });
      expect(mine!.transactionStartTimeMs).toBeGreaterThan(0n);
      expect(missing).toMatchObject({ errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND, transactionalId: "no-such-id" });
      const producerId = mine!.producerId;

      const l = await raw.request(ApiKey.ListTransactions, 1, { stateFilters: ["Ongoing", "NoSuchState"], producerIdFilters: [], durationFilter: -1n });
      expect(l.body.unknownStateFilters).toEqual(["NoSuchState"]);
      expect(l.body.transactionStates).toContainEqual({ transactionalId, producerId, transactionState: "Ongoing" });

      const p = await raw.request(ApiKey.DescribeProducers, 0, { topics: [{ name: topic, partitionIndexes: [0, 1, 7] }] });
      const parts = p.body.topics[0]!.partitions;
      expect(parts[0]).toMatchObject({ partitionIndex: 0, errorCode: 0, activeProducers: [] });
      expect(parts[1]).toMatchObject({ partitionIndex: 1, errorCode: 0, activeProducers: [{ producerId, producerEpoch: 0, lastSequence: 0, currentTxnStartOffset: 0n, coordinatorEpoch: -1 }] });
      expect(parts[2]).toMatchObject({ partitionIndex: 7, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });

      await txn.commit();
      // Kafka writes the markers after EndTxn has answered: wait until the transaction has completed.
      await waitFor(async () => (await raw.request(ApiKey.DescribeTransactions, 0, { transactionalIds: [transactionalId] })).body.transactionStates[0]?.transactionState !== "PrepareCommit", 10_000, "the commit markers");
      const after = await raw.request(ApiKey.DescribeProducers, 0, { topics: [{ name: topic, partitionIndexes: [1] }] });
      expect(after.body.topics[0]!.partitions[0]!.activeProducers[0]).toMatchObject({ producerId, currentTxnStartOffset: -1n, coordinatorEpoch: 0 });
      const done = await raw.request(ApiKey.DescribeTransactions, 0, { transactionalIds: [transactionalId] });
      expect(done.body.transactionStates[0]).toMatchObject({ transactionState: "CompleteCommit", topics: [] });
    } finally {
      raw.close();
    }
  });
});
