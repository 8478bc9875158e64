// SLOs against the real broker: a subscriber's consumer group that falls
// behind its objectives raises one alert per rule (after the fire-after
// duration, not on the first breaching cycle) and a notification; time lag
// comes from reading the record at the committed offset; catching up resolves
// the alerts and says so. A product whose newest record is older than its
// freshness SLA raises a freshness alert for its owners and subscribers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listNotifications, loadActor, revealCredentialOnce, setSubscriptionObjective, type Db } from "@kappa/catalog";
import { approvedProduct, approvedSubscription, kafkaClient, type openTestDatabase, SECRETS_KEY, type seedPeople, sleep, type startWorker, waitFor, type TestBroker, startSaslStack, stopSaslStack } from "./helpers.ts";

const ADMIN = { name: "kappa-admin", password: "admin-secret-for-tests" };
const scram = (username: string, password: string) => ({ mechanism: "scram-sha-512" as const, username, password });
const FIRE_AFTER_MS = 1_500;
const TEN_MINUTES_AGO = () => String(Date.now() - 600_000);

let broker: TestBroker;
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;
let people: Awaited<ReturnType<typeof seedPeople>>;
let running: ReturnType<typeof startWorker>;

beforeAll(async () => {
  ({ broker, database, db, people, running } = await startSaslStack(ADMIN, { slo: { fireAfterMs: FIRE_AFTER_MS, resolveAfterMs: FIRE_AFTER_MS, clearRatio: 0.8, freshnessEveryMs: 1 } }));
});

afterAll(() => stopSaslStack({ running, database, broker }));

const done = (entityId: string) => async () => {
  const tasks = await db.provisioningTask.findMany({ where: { entityId } });
  return tasks.length > 0 && tasks.every((t) => t.status === "DONE");
};

async function produce(topic: string, from: number, count: number, timestamp?: string) {
  const p = kafkaClient(broker.bootstrap, { sasl: scram(ADMIN.name, ADMIN.password) }).producer();
  await p.connect();
  await p.send({ topic, messages: Array.from({ length: count }, (_, i) => ({ key: `k${from + i}`, value: `record ${from + i}`, ...(timestamp ? { timestamp } : {}) })) });
  await p.disconnect();
}

/** Reads until `count` records arrived, commits, and leaves the group. */
async function consume(creds: { username: string; password: string }, groupId: string, topic: string, count: number) {
  const consumer = kafkaClient(broker.bootstrap, { sasl: scram(creds.username, creds.password) }).consumer({ groupId, maxWaitTimeInMs: 100, sessionTimeout: 10_000, heartbeatInterval: 500 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let seen = 0;
  await consumer.run({ autoCommitInterval: 100, eachMessage: async () => void seen++ });
  await waitFor(() => seen >= count, 30_000, `${count} records consumed`);
  await consumer.disconnect(); // commits what it read
  return seen;
}

const inbox = async (userId: string) => (await listNotifications(db, await loadActor(db, userId), { limit: 100 })).notifications;

/** Observation cycles until the condition holds (the observer's own timer is off in tests). */
async function observeUntil<T>(check: () => Promise<T | null | undefined | false>, nominalMs: number, what: string): Promise<T> {
  return waitFor(async () => {
    await running.worker.observeNow();
    return check();
  }, nominalMs, what);
}

describe("lag objectives", () => {
  it("a consumer that falls behind raises an alert and a notification after the fire-after time; catching up resolves it", async () => {
    const product = await approvedProduct(db, people, { partitions: 1, freshnessSeconds: 3600 });
    await waitFor(done(product.id), 15_000, "the topic");
    const { account, subscription } = await approvedSubscription(db, people, product.id, `payments-slo-${Math.random().toString(36).slice(2, 8)}`);
    await waitFor(done(subscription.id), 15_000, "the grant");
    const creds = await revealCredentialOnce(db, SECRETS_KEY, people.as.paymentsOwner, account.id);
    const group = `${account.name}.slo`;

    await produce(product.topicName, 0, 10);
    await consume(creds, group, product.topicName, 10);
    await setSubscriptionObjective(db, people.as.paymentsOwner, subscription.id, { maxLagRecords: 5, maxLagSeconds: 300 });
    await observeUntil(async () => (await db.consumerGroupObservation.findFirst({ where: { groupId: group, totalLag: 0n } })) !== null, 10_000, "the caught-up group row");
    expect(await db.alert.count({ where: { subscriptionId: subscription.id } })).toBe(0);

    // 20 records behind (objective 5), written ten minutes ago by their timestamps (objective 300 s).
    await produce(product.topicName, 10, 20, TEN_MINUTES_AGO());
    const breachedAt = Date.now();
    const row = await observeUntil(async () => db.consumerGroupObservation.findFirst({ where: { groupId: group, totalLag: 20n } }), 10_000, "lag 20");
    // Read from the record at the committed offset (offset 10), not interpolated from offset samples (which would say seconds).
    expect(Number(row.timeLagMs)).toBeGreaterThanOrEqual(600_000);
    expect(row.partitionDetail).toEqual([expect.objectContaining({ partition: 0, lag: "20", timeLagMethod: "read" })]);
    // Hysteresis: breaching for less than the fire-after time fires nothing.
    if (Date.now() - breachedAt < FIRE_AFTER_MS) expect(await db.alert.count({ where: { subscriptionId: subscription.id } })).toBe(0);

    const alerts = await observeUntil(async () => {
      const a = await db.alert.findMany({ where: { subscriptionId: subscription.id, status: "FIRING" }, orderBy: { kind: "asc" } });
      return a.length === 2 ? a : null;
    }, 15_000, "two firing alerts");
    expect(alerts.map((a) => [a.kind, a.groupId, a.threshold])).toEqual([["LAG_RECORDS", group, 5], ["LAG_SECONDS", group, 300]]);
    expect(alerts[0]?.value).toBe(20);
    expect(alerts[1]?.value).toBeGreaterThanOrEqual(600);
    const fired = (await inbox(people.as.paymentsOwner.userId)).filter((n) => n.kind === "alert.fired" && n.entityId === subscription.id);
    expect(fired).toHaveLength(2);
    expect(fired.map((n) => n.body).join(" ")).toContain("lags 20 records, above the objective of 5 records");
    expect(fired[0]?.link).toBe(`/subscriptions/${subscription.id}`);

    // Still behind on later cycles: no second alert, no second notification.
    for (let i = 0; i < 3; i++) await running.worker.observeNow();
    await sleep(FIRE_AFTER_MS);
    await running.worker.observeNow();
    expect(await db.alert.count({ where: { subscriptionId: subscription.id } })).toBe(2);
    expect((await inbox(people.as.paymentsOwner.userId)).filter((n) => n.kind === "alert.fired" && n.entityId === subscription.id)).toHaveLength(2);

    await consume(creds, group, product.topicName, 20);
    const resolved = await observeUntil(async () => {
      const a = await db.alert.findMany({ where: { subscriptionId: subscription.id, status: "RESOLVED" } });
      return a.length === 2 ? a : null;
    }, 15_000, "both alerts resolved");
    expect(resolved.every((a) => a.resolvedAt !== null && a.peakValue >= a.value)).toBe(true);
    const notes = (await inbox(people.as.paymentsOwner.userId)).filter((n) => n.entityId === subscription.id && n.kind === "alert.resolved");
    expect(notes).toHaveLength(2);
    expect(notes.map((n) => n.body).join(" ")).toContain("lags 0 records now");
    expect(await db.alertState.count({ where: { subscriptionId: subscription.id } })).toBe(0);
    // The orders owner (another domain) hears nothing of the subscriber's lag.
    expect((await inbox(people.as.ordersOwner.userId)).filter((n) => n.entityId === subscription.id && n.kind.startsWith("alert."))).toHaveLength(0);
  });
});

describe("freshness", () => {
  it("a product whose newest record is older than its SLA is breached, and its owners and subscribers are alerted", async () => {
    const product = await approvedProduct(db, people, { partitions: 2, freshnessSeconds: 120 });
    await waitFor(done(product.id), 15_000, "the topic");
    const { subscription } = await approvedSubscription(db, people, product.id, `payments-fresh-${Math.random().toString(36).slice(2, 8)}`);
    await waitFor(done(subscription.id), 15_000, "the grant");
    const stamp = TEN_MINUTES_AGO();
    await produce(product.topicName, 0, 4, stamp);

    const fresh = await observeUntil(async () => db.productFreshness.findFirst({ where: { productId: product.id, status: "BREACHED" } }), 10_000, "freshness breached");
    // The newest record's timestamp (ListOffsets MAX_TIMESTAMP), not the time it arrived.
    expect(fresh.lastRecordAt?.getTime()).toBe(Number(stamp));
    expect(Number(fresh.ageMs)).toBeGreaterThanOrEqual(600_000);
    expect(await db.productFreshnessSample.count({ where: { productId: product.id } })).toBeGreaterThan(0);

    const alert = await observeUntil(async () => db.alert.findFirst({ where: { productId: product.id, kind: "FRESHNESS", status: "FIRING" } }), 15_000, "a freshness alert");
    expect(alert.threshold).toBe(120);
    for (const who of [people.as.ordersOwner.userId, people.as.paymentsOwner.userId]) {
      expect((await inbox(who)).some((n) => n.kind === "alert.fired" && n.entityId === product.id && n.title.endsWith("is stale"))).toBe(true);
    }

    await produce(product.topicName, 4, 2);
    await observeUntil(async () => db.alert.findFirst({ where: { id: alert.id, status: "RESOLVED" } }), 15_000, "the freshness alert resolved");
    expect((await db.productFreshness.findUniqueOrThrow({ where: { productId: product.id } })).status).toBe("MET");
  });
});
