// The latest-state view against the real broker and PostgreSQL: equal to a
// full read of the compacted topic after updates, deletes, a worker restart
// and a rebuild; looked up through the catalog with masking.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lookupStateKey, loadActor, rebuildStateView, stateViewStatus, browseStateKeys, type Db } from "@kappa/catalog";
import { decodeFetchedRecords } from "@kappa/kafka-protocol";
import { partitionKey } from "../src/kafka/cluster.ts";
import { StateMaterializer } from "../src/state/materializer.ts";
import { approvedProduct, approvedSubscription, clusterFor, kafkaClient, openTestDatabase, seedPeople, startTestBroker, startWorker, testLogger, waitFor, type TestBroker } from "./helpers.ts";

let broker: TestBroker;
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;
let people: Awaited<ReturnType<typeof seedPeople>>;
let running: ReturnType<typeof startWorker>;
let topic = "";
let productId = "";

const schema = JSON.stringify({ type: "object", properties: { id: { type: "string" }, name: { type: "string", "x-pii": true }, city: { type: "string" }, n: { type: "integer" } } });

const ADMIN = { name: "kappa-admin", password: "admin-secret-for-tests" };
const adminSasl = { mechanism: "SCRAM-SHA-512" as const, username: ADMIN.name, password: ADMIN.password };

beforeAll(async () => {
  broker = await startTestBroker({ listeners: "SASL_PLAINTEXT://127.0.0.1:0", "authorizer.class.name": "standard", "super.users": `User:${ADMIN.name}`, saslUsers: [ADMIN] });
  database = await openTestDatabase();
  db = database.db;
  people = await seedPeople(db);
  running = startWorker(db, broker.bootstrap, {}, adminSasl);
  await running.start();
  const product = await approvedProduct(db, people, { cleanupPolicy: "compact", keyFields: ["id"], classification: "CONFIDENTIAL", partitions: 3, schema: { format: "JSON_SCHEMA", definition: schema } });
  productId = product.id;
  topic = product.topicName;
  await waitFor(async () => (await db.provisioningTask.findMany({ where: { entityId: productId } })).every((t) => t.status === "DONE"), 15_000, "the topic");
});

afterAll(async () => {
  await running?.stop();
  await database?.dispose();
  await broker?.cleanup();
});

const expected = new Map<string, string>();

async function produce(messages: { key: string; value: string | null }[]) {
  const producer = kafkaClient(broker.bootstrap, { sasl: { mechanism: "scram-sha-512", username: ADMIN.name, password: ADMIN.password } }).producer();
  await producer.connect();
  await producer.send({ topic, messages });
  await producer.disconnect();
  for (const m of messages) {
    if (m.value === null) expected.delete(m.key);
    else expected.set(m.key, m.value);
  }
}

/** The latest value per key from reading every partition of the topic from its start. */
async function fullRead(): Promise<Map<string, string>> {
  const cluster = clusterFor(broker.bootstrap, adminSasl);
  try {
    const latest = new Map<string, { value: string | null; ts: bigint }>();
    for (let partition = 0; partition < 3; partition++) {
      let offset = 0n;
      for (;;) {
        const f = (await cluster.fetchRecords([{ topic, partition, offset }])).get(partitionKey(topic, partition));
        const d = decodeFetchedRecords(f?.records ?? null, offset);
        for (const r of d.records) if (r.key) latest.set(r.key.toString(), { value: r.value?.toString() ?? null, ts: r.timestamp });
        if (d.nextOffset >= (f?.highWatermark ?? 0n) || d.nextOffset === offset) break;
        offset = d.nextOffset;
      }
    }
    return new Map([...latest].filter(([, v]) => v.value !== null).map(([k, v]) => [k, v.value ?? ""]));
  } finally {
    await cluster.close();
  }
}

async function view(): Promise<Map<string, string>> {
  const rows = await db.stateEntry.findMany({ where: { productId } });
  return new Map(rows.map((r) => [Buffer.from(r.key).toString(), Buffer.from(r.value).toString()]));
}

const doc = (i: number, round: number) => JSON.stringify({ name: `person ${i}`, city: `city ${i % 7}`, n: round });

function materializer(id: string) {
  return new StateMaterializer(db, running.cluster, { workerId: id, pollMs: 3_600_000, partitionFetchBytes: 2048, sliceMs: 60_000 }, testLogger);
}

describe("latest-state view", () => {
  it("equals a full read of the compacted topic after updates and deletes", async () => {
    const first: { key: string; value: string | null }[] = [];
    for (let round = 0; round < 4; round++) for (let i = 0; i < 50; i++) first.push({ key: `customer-${i}`, value: doc(i, round) });
    for (let i = 0; i < 10; i++) first.push({ key: `customer-${i * 3}`, value: null });
    await produce(first);
    const m = materializer("state-a");
    await m.catchUp();
    expect(await view()).toEqual(expected);
    expect(await view()).toEqual(await fullRead());
    const status = await stateViewStatus(db, await loadActor(db, people.as.ordersOwner.userId), productId);
    expect(status.view).toMatchObject({ status: "LIVE", keyCount: 40n });
    expect(status.lag.records).toBe(0n);
    expect(status.partitions.reduce((a, p) => a + p.endOffset, 0n)).toBe(210n);
    await m.stop();
  });

  it("resumes from its stored positions after a restart and stays equal", async () => {
    const before = await db.stateViewPartition.findMany({ where: { productId } });
    await produce([
      { key: "customer-1", value: doc(1, 9) },
      { key: "customer-2", value: null },
      { key: "customer-0", value: doc(0, 9) }, // deleted before: back again
      { key: "customer-new", value: doc(99, 9) },
    ]);
    // A new worker instance (the previous one's lease was given back on stop).
    const m = materializer("state-b");
    await m.catchUp();
    expect(await view()).toEqual(expected);
    expect(await view()).toEqual(await fullRead());
    const after = await db.stateViewPartition.findMany({ where: { productId } });
    const advanced = after.reduce((a, p) => a + p.nextOffset, 0n) - before.reduce((a, p) => a + p.nextOffset, 0n);
    expect(advanced).toBe(4n);
    expect((await db.stateView.findUniqueOrThrow({ where: { productId } })).keyCount).toBe(BigInt(expected.size));
    await m.stop();
  });

  it("rebuilds from offset 0 on request and arrives at the same state", async () => {
    const owner = await loadActor(db, people.as.ordersOwner.userId);
    await expect(rebuildStateView(db, people.as.paymentsOwner, productId)).rejects.toMatchObject({ status: 403 });
    const requested = await rebuildStateView(db, people.as.ordersOwner, productId);
    expect((await stateViewStatus(db, owner, productId)).view?.status).toBe("REBUILDING");
    const m = materializer("state-c");
    await m.catchUp();
    const v = await db.stateView.findUniqueOrThrow({ where: { productId } });
    expect(v.appliedGeneration).toBe(requested.generation);
    expect(await view()).toEqual(expected);
    await m.stop();
  });

  it("serves lookups with offset and timestamp, masked for a subscriber, refused to others", async () => {
    const owner = await loadActor(db, people.as.ordersOwner.userId);
    const found = await lookupStateKey(db, owner, productId, "customer-1");
    expect(found.value.value).toEqual({ name: "person 1", city: "city 1", n: 9 });
    expect(found.key).toEqual({ text: "customer-1", hex: null });
    expect(typeof found.offset).toBe("bigint");
    expect(found.timestamp).toBeInstanceOf(Date);
    await expect(lookupStateKey(db, owner, productId, "customer-2")).rejects.toMatchObject({ status: 404 });

    const { subscription } = await approvedSubscription(db, people, productId, `payments-state-${Date.now().toString(36)}`);
    await waitFor(async () => (await db.subscription.findUnique({ where: { id: subscription.id } }))?.status === "ACTIVE", 15_000, "the subscription");
    const subscriber = await loadActor(db, people.as.paymentsOwner.userId);
    const masked = await lookupStateKey(db, subscriber, productId, "customer-1");
    expect(masked.value.value).toEqual({ name: "[masked]", city: "city 1", n: 9 });
    expect(masked.value.masked).toEqual(["name"]);
    await expect(lookupStateKey(db, await loadActor(db, people.as.outsider.userId), productId, "customer-1")).rejects.toMatchObject({ status: 403 });
    await expect(lookupStateKey(db, await loadActor(db, people.as.reviewer.userId), productId, "customer-1")).rejects.toMatchObject({ status: 403 });

    const page = await browseStateKeys(db, subscriber, productId, { prefix: "customer-1", limit: 5 });
    expect(page.entries.map((e) => e.key?.text)).toEqual(["customer-1", "customer-10", "customer-11", "customer-13", "customer-14"]);
    const next = await browseStateKeys(db, subscriber, productId, { prefix: "customer-1", limit: 5, after: page.nextAfter ?? undefined });
    expect(next.entries.map((e) => e.key?.text)).toEqual(["customer-16", "customer-17", "customer-19"]);
    expect(next.nextAfter).toBeNull();
    expect(await db.auditEvent.count({ where: { entityId: productId, action: { in: ["state.key-read", "state.keys-browsed"] } } })).toBe(5);
    // Each lookup its own row, refused ones none: what was asked, whether it existed, and whether PII was shown.
    const reads = await db.auditEvent.findMany({ where: { entityId: productId, action: "state.key-read" }, orderBy: { id: "asc" } });
    const hex = (k: string) => Buffer.from(k).toString("hex");
    expect(reads.map((r) => r.data)).toEqual([
      { key: hex("customer-1"), found: true, piiVisible: true },
      { key: hex("customer-2"), found: false, piiVisible: true },
      { key: hex("customer-1"), found: true, piiVisible: false },
    ]);
    expect(reads.map((r) => r.actorId)).toEqual([owner.id, owner.id, subscriber.id]);
  });
});
