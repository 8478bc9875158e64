import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveProduct,
  approveSubscription,
  createServiceAccount,
  evaluateAlerts,
  listNotifications,
  loadActor,
  productSlo,
  registerProduct,
  requestSubscription,
  revokeSubscription,
  setSubscriptionObjective,
  submitForReview,
  subscriptionSlo,
  type Db,
} from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/*
 * The SLO rules on the real database. The consumer-group and freshness rows
 * stand for what the worker's observation cycle wrote (the worker's own
 * integration test drives them from the broker); here the clock is explicit,
 * so the hysteresis is exact.
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;
const OPTIONS = { fireAfterMs: 60_000, resolveAfterMs: 120_000, clearRatio: 0.8 };

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

let n = 0;
async function activeSubscription() {
  const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: `Watched ${++n}`, freshnessSeconds: 300 }));
  await submitForReview(db, ctx.as.ordersOwner, p.id);
  await approveProduct(db, ctx.as.reviewer, p.id);
  await db.dataProduct.update({ where: { id: p.id }, data: { status: "ACTIVE" } });
  const account = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: `payments-watch-${n}` });
  const sub = await requestSubscription(db, ctx.as.paymentsOwner, { productId: p.id, serviceAccountId: account.id, purpose: "Reconcile payments against orders." });
  await approveSubscription(db, ctx.as.ordersOwner, sub.id);
  await db.subscription.update({ where: { id: sub.id }, data: { status: "ACTIVE" } });
  return { product: p, subscription: sub, group: `payments-watch-${n}.app` };
}

/** What the observer writes for one consumer group. */
const observeLag = (sub: { id: string }, topic: string, group: string, lag: number, timeLagMs: number | null) =>
  db.consumerGroupObservation.upsert({
    where: { groupId_topic: { groupId: group, topic } },
    create: { groupId: group, topic, subscriptionId: sub.id, state: "Empty", members: 0, totalLag: BigInt(lag), timeLagMs: timeLagMs === null ? null : BigInt(timeLagMs), partitionDetail: [{ partition: 0, committedOffset: "0", endOffset: String(lag), lag: String(lag) }] },
    update: { totalLag: BigInt(lag), timeLagMs: timeLagMs === null ? null : BigInt(timeLagMs), partitionDetail: [{ partition: 0, committedOffset: "0", endOffset: String(lag), lag: String(lag), timeLagMs, timeLagMethod: "read" }] },
  });

const at = (minutes: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, 0) + minutes * 60_000);
const alertKinds = async (userId: string) => (await listNotifications(db, await loadActor(db, userId), { limit: 100 })).notifications.filter((x) => x.kind.startsWith("alert."));

describe("subscription objectives", () => {
  it("the subscribing domain's owners set and clear them, audited; others are refused; bad values are named", async () => {
    const { subscription } = await activeSubscription();
    await expect(setSubscriptionObjective(db, ctx.as.paymentsMember, subscription.id, { maxLagRecords: 10 })).rejects.toMatchObject({ status: 403 });
    await expect(setSubscriptionObjective(db, ctx.as.ordersOwner, subscription.id, { maxLagRecords: 10 })).rejects.toMatchObject({ status: 403 });
    await expect(setSubscriptionObjective(db, ctx.as.paymentsOwner, subscription.id, { maxLagRecords: 0, maxLagSeconds: 1.5 })).rejects.toMatchObject({
      status: 400,
      fields: { maxLagRecords: [expect.stringContaining("at least 1")], maxLagSeconds: [expect.stringContaining("whole number")] },
    });
    await expect(setSubscriptionObjective(db, ctx.as.paymentsOwner, subscription.id, { maxLagRecords: 10, extra: true })).rejects.toMatchObject({ status: 400 });
    expect(await db.subscriptionObjective.count({ where: { subscriptionId: subscription.id } })).toBe(0);

    const set = await setSubscriptionObjective(db, ctx.as.paymentsOwner, subscription.id, { maxLagRecords: 10_000, maxLagSeconds: 60 });
    expect(set).toMatchObject({ maxLagRecords: 10_000, maxLagSeconds: 60 });
    const view = await subscriptionSlo(db, await loadActor(db, ctx.people.paymentsMember.id), subscription.id);
    expect(view).toMatchObject({ objective: { maxLagRecords: 10_000, maxLagSeconds: 60 }, canEdit: false });
    expect((await subscriptionSlo(db, await loadActor(db, ctx.people.paymentsOwner.id), subscription.id)).canEdit).toBe(true);
    await expect(subscriptionSlo(db, await loadActor(db, ctx.people.admin.id), subscription.id)).rejects.toMatchObject({ status: 403 });

    expect(await setSubscriptionObjective(db, ctx.as.paymentsOwner, subscription.id, { maxLagRecords: null, maxLagSeconds: null })).toBeNull();
    expect(await db.subscriptionObjective.count({ where: { subscriptionId: subscription.id } })).toBe(0);
    const audits = await db.auditEvent.findMany({ where: { entityId: subscription.id, action: "subscription.objectiveSet" }, orderBy: { id: "asc" } });
    expect(audits.map((a) => a.data)).toEqual([
      { before: null, after: { maxLagRecords: 10_000, maxLagSeconds: 60 } },
      { before: { maxLagRecords: "10000", maxLagSeconds: 60 }, after: null },
    ]);

    await revokeSubscription(db, ctx.as.ordersOwner, subscription.id, { reason: "No longer needed here." });
    await expect(setSubscriptionObjective(db, ctx.as.paymentsOwner, subscription.id, { maxLagRecords: 5 })).rejects.toMatchObject({ status: 409 });
  });
});

describe("alert rules", () => {
  it("fire after the value stays above the objective for the fire-after time, never flap, and resolve after a sustained recovery", async () => {
    const { product, subscription, group } = await activeSubscription();
    await setSubscriptionObjective(db, ctx.as.paymentsOwner, subscription.id, { maxLagRecords: 100 });
    const evaluate = (minutes: number) => evaluateAlerts(db, OPTIONS, at(minutes));

    await observeLag(subscription, product.topicName, group, 150, 1_000);
    expect((await evaluate(0)).fired).toEqual([]);
    // Dips below before the minute is up: the timer starts again.
    await observeLag(subscription, product.topicName, group, 90, 1_000);
    expect((await evaluate(0.5)).fired).toEqual([]);
    await observeLag(subscription, product.topicName, group, 150, 1_000);
    expect((await evaluate(0.7)).fired).toEqual([]);
    expect((await evaluate(1.5)).fired).toEqual([]);
    const fired = await evaluate(1.8);
    expect(fired.fired).toHaveLength(1);
    const alert = await db.alert.findUniqueOrThrow({ where: { id: fired.fired[0] ?? "" } });
    expect(alert).toMatchObject({ kind: "LAG_RECORDS", status: "FIRING", value: 150, threshold: 100, groupId: group, subscriptionId: subscription.id, productId: product.id });

    // Worse, then just below the objective (90 > 100 × 0.8): still firing, no new alert.
    await observeLag(subscription, product.topicName, group, 400, 1_000);
    expect(await evaluate(2)).toMatchObject({ fired: [], resolved: [] });
    await observeLag(subscription, product.topicName, group, 90, 1_000);
    expect(await evaluate(6)).toMatchObject({ fired: [], resolved: [] });
    // Below 80: resolves only after two minutes of it.
    await observeLag(subscription, product.topicName, group, 10, 1_000);
    expect((await evaluate(7)).resolved).toEqual([]);
    await observeLag(subscription, product.topicName, group, 130, 1_000);
    expect((await evaluate(8)).resolved).toEqual([]);
    await observeLag(subscription, product.topicName, group, 0, 0);
    expect((await evaluate(8.5)).resolved).toEqual([]);
    expect((await evaluate(9.5)).resolved).toEqual([]);
    expect((await evaluate(10.6)).resolved).toEqual([alert.id]);
    expect(await db.alert.findUniqueOrThrow({ where: { id: alert.id } })).toMatchObject({ status: "RESOLVED", peakValue: 400, resolvedAt: at(10.6) });
    expect(await evaluate(20)).toMatchObject({ fired: [], resolved: [] });

    const member = await alertKinds(ctx.people.paymentsMember.id);
    expect(member.filter((x) => x.entityId === subscription.id).map((x) => x.kind)).toEqual(["alert.resolved", "alert.fired"]);
    expect((await alertKinds(ctx.people.ordersOwner.id)).filter((x) => x.entityId === subscription.id)).toEqual([]);

    const view = await subscriptionSlo(db, await loadActor(db, ctx.people.paymentsMember.id), subscription.id);
    expect(view.alerts).toEqual([expect.objectContaining({ id: alert.id, status: "RESOLVED", peakValue: 400 })]);
    expect(view.groups).toEqual([expect.objectContaining({ groupId: group, totalLag: 0, records: "MET", seconds: null })]);
  });

  it("a consumer group with no members for longer than the objectives' window is inactive: no lag alert, and a firing one ends saying so", async () => {
    const { product, subscription, group } = await activeSubscription();
    await setSubscriptionObjective(db, ctx.as.paymentsOwner, subscription.id, { maxLagRecords: 100 });
    await observeLag(subscription, product.topicName, group, 150, 1_000);
    // What the cluster scan writes: the group last had a member or advanced its commits two hours ago.
    await db.groupTopicUsage.create({ data: { groupId: group, topic: product.topicName, serviceAccountId: subscription.serviceAccountId, state: "Empty", members: 0, committedSum: 0n, committedPartitions: 1, firstSeenAt: at(-300), lastActiveAt: at(-120) } });
    expect(await evaluateAlerts(db, OPTIONS, at(0))).toMatchObject({ fired: [] });
    expect(await evaluateAlerts(db, OPTIONS, at(2))).toMatchObject({ fired: [] });
    const view = await subscriptionSlo(db, await loadActor(db, ctx.people.paymentsOwner.id), subscription.id, at(2).getTime());
    expect(view.groups).toEqual([expect.objectContaining({ groupId: group, inactiveSince: at(-120).toISOString(), records: "BREACHED" })]);
    expect(view.inactiveAfterMs).toBe(3_600_000);

    // A member joins: it is watched again and alerts as usual.
    await db.consumerGroupObservation.update({ where: { groupId_topic: { groupId: group, topic: product.topicName } }, data: { members: 1, state: "Stable" } });
    await db.groupTopicUsage.update({ where: { groupId_topic: { groupId: group, topic: product.topicName } }, data: { members: 1, lastActiveAt: at(3) } });
    expect(await evaluateAlerts(db, OPTIONS, at(3))).toMatchObject({ fired: [] });
    const fired = await evaluateAlerts(db, OPTIONS, at(4.5));
    expect(fired.fired).toHaveLength(1);
    // It stops again: while the window has not passed the alert keeps firing; after it, the alert ends as inactive.
    await db.consumerGroupObservation.update({ where: { groupId_topic: { groupId: group, topic: product.topicName } }, data: { members: 0, state: "Empty" } });
    await db.groupTopicUsage.update({ where: { groupId_topic: { groupId: group, topic: product.topicName } }, data: { members: 0, lastActiveAt: at(5) } });
    expect(await evaluateAlerts(db, OPTIONS, at(30))).toMatchObject({ fired: [], resolved: [] });
    expect((await evaluateAlerts(db, OPTIONS, at(70))).resolved).toEqual(fired.fired);
    const note = (await alertKinds(ctx.people.paymentsOwner.id)).find((x) => x.entityId === subscription.id && x.kind === "alert.resolved");
    expect(note?.body).toContain(`Consumer group ${group} has had no members since 2026-12-01 12:05 UTC: it is shown as inactive and its lag does not alert until a consumer joins again`);
    expect(await evaluateAlerts(db, OPTIONS, at(80))).toMatchObject({ fired: [], resolved: [] });
  });

  it("an unknown time lag keeps the alert as it is; a revoked subscription ends its alerts", async () => {
    const { product, subscription, group } = await activeSubscription();
    await setSubscriptionObjective(db, ctx.as.paymentsOwner, subscription.id, { maxLagSeconds: 30 });
    await observeLag(subscription, product.topicName, group, 5, 90_000);
    await evaluateAlerts(db, OPTIONS, at(100));
    const fired = await evaluateAlerts(db, OPTIONS, at(101));
    expect(fired.fired).toHaveLength(1);
    await observeLag(subscription, product.topicName, group, 5, null);
    expect(await evaluateAlerts(db, OPTIONS, at(110))).toMatchObject({ fired: [], resolved: [] });
    expect((await db.alert.findUniqueOrThrow({ where: { id: fired.fired[0] ?? "" } })).status).toBe("FIRING");

    const viewOwner = await productSlo(db, await loadActor(db, ctx.people.ordersOwner.id), product.id);
    expect(viewOwner.alerts.map((a) => a.kind)).toEqual(["LAG_SECONDS"]);
    expect(viewOwner.firing).toBe(1);

    await revokeSubscription(db, ctx.as.ordersOwner, subscription.id, { reason: "Access review found no use." });
    expect((await evaluateAlerts(db, OPTIONS, at(111))).resolved).toEqual(fired.fired);
    const note = (await alertKinds(ctx.people.paymentsOwner.id)).find((x) => x.entityId === subscription.id && x.kind === "alert.resolved");
    expect(note?.body).toContain("No longer watched");
  });

  it("freshness: a subscribed product whose newest record is older than its SLA alerts owners and subscribers; an unsubscribed one nobody", async () => {
    const { product } = await activeSubscription();
    const lonely = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: `Unread ${++n}`, freshnessSeconds: 300 }));
    await db.dataProduct.update({ where: { id: lonely.id }, data: { status: "ACTIVE" } });
    const stale = (productId: string, minutes: number) =>
      db.productFreshness.upsert({
        where: { productId },
        create: { productId, lastRecordAt: at(minutes - 10), ageMs: 600_000n, status: "BREACHED", observedAt: at(minutes) },
        update: { lastRecordAt: at(minutes - 10), ageMs: 600_000n, status: "BREACHED", observedAt: at(minutes) },
      });
    await stale(product.id, 200);
    await stale(lonely.id, 200);
    await evaluateAlerts(db, OPTIONS, at(200));
    await stale(product.id, 201);
    await stale(lonely.id, 201);
    const r = await evaluateAlerts(db, OPTIONS, at(201));
    const alerts = await db.alert.findMany({ where: { id: { in: r.fired } } });
    expect(alerts.map((a) => [a.kind, a.productId, a.value])).toEqual([["FRESHNESS", product.id, 600]]);
    for (const who of [ctx.people.ordersOwner.id, ctx.people.paymentsMember.id]) {
      expect((await alertKinds(who)).some((x) => x.entityId === product.id && x.title.endsWith("is stale"))).toBe(true);
    }
    // The worker stops measuring (no fresh figure for five minutes): the rule keeps its state rather than guessing.
    expect(await evaluateAlerts(db, OPTIONS, at(220))).toMatchObject({ fired: [], resolved: [] });
    const view = await productSlo(db, await loadActor(db, ctx.people.paymentsMember.id), product.id);
    expect(view.freshness).toMatchObject({ targetSeconds: 300, status: "BREACHED", ageMs: 600_000 });
    expect(view.alerts).toEqual([expect.objectContaining({ kind: "FRESHNESS", status: "FIRING" })]);
  });
});
