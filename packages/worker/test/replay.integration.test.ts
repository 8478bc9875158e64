// Governed replay against the real broker: the preview's record counts match
// what the consumer reads after the worker applied the reset — with all data
// on local disk, and with the older part in tiered (remote) storage — and a
// group with members is refused.
import type { Consumer } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadActor, planReplay, requestReplay, revealCredentialOnce, type Db, type RecordSource } from "@kappa/catalog";
import { decodeFetchedRecords } from "@kappa/kafka-protocol";
import { partitionKey, type KafkaCluster } from "../src/kafka/cluster.ts";
import { approvedProduct, approvedSubscription, kafkaClient, openTestDatabase, SECRETS_KEY, seedPeople, startTestBroker, startWorker, waitFor, type TestBroker } from "./helpers.ts";

const ADMIN = { name: "kappa-admin", password: "admin-secret-for-tests" };
const scram = (username: string, password: string) => ({ mechanism: "scram-sha-512" as const, username, password });

let broker: TestBroker;
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;
let people: Awaited<ReturnType<typeof seedPeople>>;
let running: ReturnType<typeof startWorker>;

/** The catalog's RecordSource over the worker's own connections (the portal has its own over the browser principal). */
function clusterSource(cluster: KafkaCluster): RecordSource {
  return {
    async bounds(topic, partitions) {
      const count = (await cluster.partitionCounts([topic])).get(topic) ?? 0;
      const ps = partitions ?? Array.from({ length: count }, (_, i) => i);
      const spec = [{ topic, partitions: count }];
      const [lo, hi] = await Promise.all([cluster.listOffsets(spec, "earliest"), cluster.listOffsets(spec, "latest")]);
      return ps.map((partition) => ({ partition, earliest: lo.get(topic)?.[partition] ?? 0n, end: hi.get(topic)?.[partition] ?? 0n }));
    },
    async offsetsForTimestamp(topic, partitions, ts) {
      const found = await cluster.offsetsForTimestamp(partitions.map((partition) => ({ topic, partition })), ts);
      return new Map(partitions.map((p) => [p, found.get(partitionKey(topic, p))?.offset ?? null]));
    },
    async read(topic, partition, from, maxBytes) {
      const f = (await cluster.fetchRecords([{ topic, partition, offset: from }], { partitionMaxBytes: maxBytes })).get(partitionKey(topic, partition));
      const d = decodeFetchedRecords(f?.records ?? null, from);
      return { records: d.records.map((r) => ({ ...r, partition })), next: d.nextOffset, end: f?.highWatermark ?? 0n, undecodable: d.undecodable };
    },
  };
}

beforeAll(async () => {
  broker = await startTestBroker({
    listeners: "SASL_PLAINTEXT://127.0.0.1:0",
    "authorizer.class.name": "standard",
    "super.users": `User:${ADMIN.name}`,
    saslUsers: [ADMIN],
    "remote.log.storage.system.enable": true,
    "remote.log.manager.task.interval.ms": 100,
    "log.retention.check.interval.ms": 100,
  });
  database = await openTestDatabase();
  db = database.db;
  people = await seedPeople(db);
  running = startWorker(db, broker.bootstrap, {}, { mechanism: "SCRAM-SHA-512", username: ADMIN.name, password: ADMIN.password });
  await running.start();
});

afterAll(async () => {
  await running?.stop();
  await database?.dispose();
  await broker?.cleanup();
});

/** Two cycles: the incremental observer writes a new topic's group rows on the cycle after it first sees the topic. */
async function observe() {
  await running.worker.observeNow();
  await running.worker.observeNow();
}

const done = (entityId: string) => async () => {
  const tasks = await db.provisioningTask.findMany({ where: { entityId } });
  return tasks.length > 0 && tasks.every((t) => t.status === "DONE");
};

async function produce(topic: string, count: number, partitions: number, perBatch = 20) {
  const p = kafkaClient(broker.bootstrap, { sasl: scram(ADMIN.name, ADMIN.password) }).producer();
  await p.connect();
  for (let i = 0; i < count; i += perBatch) {
    await p.send({ topic, messages: Array.from({ length: Math.min(perBatch, count - i) }, (_, j) => ({ partition: (i + j) % partitions, key: `k${i + j}`, value: `record ${i + j} ${"x".repeat(80)}` })) });
  }
  await p.disconnect();
}

/** Consumes until `idleMs` passes without a record; leaves the group (so it is empty afterwards). */
async function consume(creds: { username: string; password: string }, groupId: string, topic: string, keepRunning = false): Promise<{ count: number; consumer: Consumer }> {
  const consumer = kafkaClient(broker.bootstrap, { sasl: scram(creds.username, creds.password) }).consumer({ groupId, maxWaitTimeInMs: 100, sessionTimeout: 10_000, heartbeatInterval: 500 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let count = 0;
  let last = Date.now();
  await consumer.run({ autoCommitInterval: 100, eachMessage: async () => { count++; last = Date.now(); } });
  await waitFor(() => count > 0 && Date.now() - last > 1_500, 30_000, "the consumer to go idle");
  if (!keepRunning) await consumer.disconnect();
  return { count, consumer };
}

async function subscriber(productId: string) {
  const { account, subscription } = await approvedSubscription(db, people, productId, `payments-replay-${Math.random().toString(36).slice(2, 8)}`);
  await waitFor(done(subscription.id), 15_000, "the grant");
  const creds = await revealCredentialOnce(db, SECRETS_KEY, people.as.paymentsOwner, account.id);
  return { account, subscription, creds };
}

async function replayAndRead(subscriptionId: string, groupId: string, topic: string, to: unknown, creds: { username: string; password: string }) {
  const owner = await loadActor(db, people.as.paymentsOwner.userId);
  const source = clusterSource(running.cluster);
  const preview = await planReplay(db, owner, subscriptionId, { group: groupId, to, dryRun: true }, source);
  const requested = await requestReplay(db, people.as.paymentsOwner, subscriptionId, { group: groupId, to }, source);
  const replayId = requested.replay?.id ?? "";
  await waitFor(async () => (await db.replayRequest.findUnique({ where: { id: replayId } }))?.status === "APPLIED", 15_000, "the replay to be applied");
  const { count } = await consume(creds, groupId, topic);
  return { preview, count, requested };
}

describe("governed replay", () => {
  it("local: the preview's records equal what the consumer reads again after the reset; shiftBy moves back by N per partition", async () => {
    const product = await approvedProduct(db, people, { partitions: 2 });
    await waitFor(done(product.id), 15_000, "the topic");
    const { subscription, creds, account } = await subscriber(product.id);
    await produce(product.topicName, 60, 2);
    const group = `${account.name}.reader`;
    expect((await consume(creds, group, product.topicName)).count).toBe(60);
    await observe();

    const earliest = await replayAndRead(subscription.id, group, product.topicName, "earliest", creds);
    expect(earliest.preview.totals).toMatchObject({ records: 60, rereadRecords: 60, skippedRecords: 0, remoteRecords: 0, localRecords: 60 });
    expect(earliest.preview.partitions.map((p) => p.records)).toEqual([30, 30]);
    expect(earliest.count).toBe(earliest.preview.totals.records);
    expect(earliest.requested.records).toBe(60);

    await observe();
    const shifted = await replayAndRead(subscription.id, group, product.topicName, { shiftBy: -5 }, creds);
    expect(shifted.preview.totals.records).toBe(10);
    expect(shifted.count).toBe(10);
    const applied = await db.replayRequest.findFirstOrThrow({ where: { subscriptionId: subscription.id, status: "APPLIED" }, orderBy: { createdAt: "desc" } });
    expect(applied.result).toEqual([{ partition: 0, asked: "25", committed: "25" }, { partition: 1, asked: "25", committed: "25" }]);
    expect(await db.auditEvent.count({ where: { entityId: subscription.id, action: "subscription.replay-applied" } })).toBe(2);
  });

  it("tiered: the preview says how much comes from object storage, and the count still matches", async () => {
    const product = await approvedProduct(db, people, { partitions: 1, retentionMs: 7 * 24 * 3600_000, tieredStorage: true, localRetentionMs: 60_000 });
    await waitFor(done(product.id), 15_000, "the topic");
    await running.cluster.setTopicConfigs(product.topicName, { "segment.bytes": "1024", "local.retention.bytes": "2048" });
    const { subscription, creds, account } = await subscriber(product.id);
    // Small batches: each must fit the 1 KiB segments.
    await produce(product.topicName, 80, 1, 4);
    const group = `${account.name}.tiered`;
    expect((await consume(creds, group, product.topicName)).count).toBe(80);
    const ref = [{ topic: product.topicName, partitions: 1 }];
    await waitFor(async () => ((await running.cluster.listOffsets(ref, "earliestLocal")).get(product.topicName)?.[0] ?? 0n) > 20n, 20_000, "old segments to leave local disk");
    await observe();
    const r = await replayAndRead(subscription.id, group, product.topicName, "earliest", creds);
    const p = r.preview.partitions[0]!;
    expect(p.records).toBe(80);
    expect(p.remoteRecords).toBeGreaterThan(20);
    expect((p.remoteRecords ?? 0) + (p.localRecords ?? 0)).toBe(80);
    expect(p.remoteBytes).toBeGreaterThan(0);
    expect(r.count).toBe(80);
  });

  it("is refused while the group has active members: in the preview, on request, and by the worker", async () => {
    const product = await approvedProduct(db, people, { partitions: 1 });
    await waitFor(done(product.id), 15_000, "the topic");
    const { subscription, creds, account } = await subscriber(product.id);
    await produce(product.topicName, 10, 1);
    const group = `${account.name}.live`;
    const { consumer } = await consume(creds, group, product.topicName, true);
    try {
      await observe();
      const owner = await loadActor(db, people.as.paymentsOwner.userId);
      const source = clusterSource(running.cluster);
      const preview = await planReplay(db, owner, subscription.id, { group, to: "earliest", dryRun: true }, source);
      expect(preview.blocked).toMatch(/active member/);
      await expect(requestReplay(db, people.as.paymentsOwner, subscription.id, { group, to: "earliest" }, source)).rejects.toMatchObject({ status: 409, code: "GROUP_ACTIVE" });
      // A request that got past a stale observation: the worker checks the group itself.
      const replay = await db.replayRequest.create({ data: { subscriptionId: subscription.id, groupId: group, topic: product.topicName, spec: "earliest", targets: [{ partition: 0, offset: "0" }], preview: {}, requestedById: people.as.paymentsOwner.userId } });
      await db.provisioningTask.create({ data: { kind: "RESET_CONSUMER_GROUP_OFFSETS", payload: { replayId: replay.id }, entityType: "ReplayRequest", entityId: replay.id } });
      await waitFor(async () => (await db.replayRequest.findUnique({ where: { id: replay.id } }))?.status === "REFUSED", 15_000, "the worker's refusal");
      expect((await db.replayRequest.findUniqueOrThrow({ where: { id: replay.id } })).error).toMatch(/active member/);
      // Nothing moved: the group's committed offset is still at the end.
      expect((await running.cluster.committedOffsets([{ groupId: group, topics: new Set([product.topicName]) }])).get(group)?.get(partitionKey(product.topicName, 0))).toBe(10n);
    } finally {
      await consumer.disconnect();
    }
    await expect(planReplay(db, await loadActor(db, people.as.ordersOwner.userId), subscription.id, { to: "earliest" }, clusterSource(running.cluster))).rejects.toMatchObject({ status: 403 });
    await expect(planReplay(db, await loadActor(db, people.as.paymentsOwner.userId), subscription.id, { group: "someone-else.group", to: "earliest" }, clusterSource(running.cluster))).rejects.toMatchObject({ status: 400 });
  });
});
