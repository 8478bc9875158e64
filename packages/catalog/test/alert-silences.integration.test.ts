import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  acknowledgeAlert,
  approveProduct,
  approveSubscription,
  createServiceAccount,
  evaluateAlerts,
  listNotifications,
  loadActor,
  registerProduct,
  requestSubscription,
  setSubscriptionObjective,
  silenceAlert,
  submitForReview,
  subscriptionSlo,
  unsilenceAlert,
  type Db,
} from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/*
 * Issue 31, point 5: an owner acknowledges an alert or silences it for a time
 * (1 h / 24 h / 7 days / until a date), audited. A silenced alert does not
 * notify and shows as silenced with who and until when; when the silence ends
 * and the condition still holds, it fires again. The clock is explicit, as in
 * slo.integration.test.ts.
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

const at = (minutes: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, 0) + minutes * 60_000);
const evaluate = (minutes: number) => evaluateAlerts(db, OPTIONS, at(minutes));

async function watchedSubscription() {
  const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Silenced Feed", freshnessSeconds: 300 }));
  await submitForReview(db, ctx.as.ordersOwner, p.id);
  await approveProduct(db, ctx.as.reviewer, p.id);
  await db.dataProduct.update({ where: { id: p.id }, data: { status: "ACTIVE" } });
  const account = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-silenced" });
  const sub = await requestSubscription(db, ctx.as.paymentsOwner, { productId: p.id, serviceAccountId: account.id, purpose: "Reconcile payments against orders." });
  await approveSubscription(db, ctx.as.ordersOwner, sub.id);
  await db.subscription.update({ where: { id: sub.id }, data: { status: "ACTIVE" } });
  await setSubscriptionObjective(db, ctx.as.paymentsOwner, sub.id, { maxLagRecords: 100 });
  const group = "payments-silenced.app";
  const lag = (records: number) =>
    db.consumerGroupObservation.upsert({
      where: { groupId_topic: { groupId: group, topic: p.topicName } },
      create: { groupId: group, topic: p.topicName, subscriptionId: sub.id, state: "Stable", members: 1, totalLag: BigInt(records), timeLagMs: 1_000n, partitionDetail: [] },
      update: { totalLag: BigInt(records) },
    });
  return { product: p, subscription: sub, lag };
}

/** The subscriber's alert notifications about the subscription, oldest first: kind and title. */
const notified = async (subscriptionId: string) =>
  (await listNotifications(db, await loadActor(db, ctx.people.paymentsMember.id), { limit: 100 })).notifications
    .filter((x) => x.kind.startsWith("alert.") && x.entityId === subscriptionId)
    .map((x) => [x.kind, x.title])
    .reverse();

describe("acknowledging and silencing an alert", () => {
  it("the subscribing domain's owner acknowledges and silences a lag alert; silenced, it neither resolves nor fires noisily, and fires again when the silence ends", async () => {
    const { subscription, lag } = await watchedSubscription();
    await lag(150);
    await evaluate(0);
    const first = (await evaluate(1.5)).fired[0] ?? "";
    expect(first).not.toBe("");
    expect(await notified(subscription.id)).toEqual([["alert.fired", expect.stringContaining("Lag alert on Silenced Feed")]]);

    // Only the owners it is about: the subscribing domain's owners (not its members, not the product's owners, not governance).
    for (const who of ["paymentsMember", "ordersOwner", "reviewer"] as const) {
      await expect(silenceAlert(db, ctx.as[who], first, { duration: "1h" }, at(2)), who).rejects.toMatchObject({ status: 403 });
      await expect(acknowledgeAlert(db, ctx.as[who], first), who).rejects.toMatchObject({ status: 403 });
    }
    // How long: a preset or a date, exactly one; in the future; at most 90 days.
    await expect(silenceAlert(db, ctx.as.paymentsOwner, first, {}, at(2))).rejects.toMatchObject({ status: 400, fields: { duration: ["Choose how long, or a date."] } });
    await expect(silenceAlert(db, ctx.as.paymentsOwner, first, { duration: "1h", until: at(30).toISOString() }, at(2))).rejects.toMatchObject({ status: 400 });
    await expect(silenceAlert(db, ctx.as.paymentsOwner, first, { duration: "2h" }, at(2))).rejects.toMatchObject({ status: 400 });
    await expect(silenceAlert(db, ctx.as.paymentsOwner, first, { until: "next tuesday" }, at(2))).rejects.toMatchObject({ status: 400, fields: { until: [expect.stringContaining("Enter a date and time")] } });
    await expect(silenceAlert(db, ctx.as.paymentsOwner, first, { until: at(1).toISOString() }, at(2))).rejects.toMatchObject({ status: 400, fields: { until: ["Choose a time in the future."] } });
    await expect(silenceAlert(db, ctx.as.paymentsOwner, first, { until: at(91 * 24 * 60).toISOString() }, at(2))).rejects.toMatchObject({ status: 400, fields: { until: ["At most 90 days from now."] } });
    expect(await db.alertSilence.count()).toBe(0);

    await acknowledgeAlert(db, ctx.as.paymentsOwner, first);
    await silenceAlert(db, ctx.as.paymentsOwner, first, { duration: "1h", reason: "Backfill running, lag expected." }, at(2));
    const owner = await loadActor(db, ctx.people.paymentsOwner.id);
    const shown = (await subscriptionSlo(db, owner, subscription.id, at(3).getTime())).alerts[0];
    expect(shown).toMatchObject({ id: first, status: "FIRING", acknowledgedBy: "owner", silence: { until: at(62).toISOString(), by: "owner", reason: "Backfill running, lag expected." }, canSilence: true });
    expect((await subscriptionSlo(db, await loadActor(db, ctx.people.paymentsMember.id), subscription.id, at(3).getTime())).alerts[0]).toMatchObject({ silence: { by: "owner" }, canSilence: false });
    expect((await db.auditEvent.findMany({ where: { entityType: "Alert", entityId: first }, orderBy: { id: "asc" } })).map((e) => [e.action, e.actorId])).toEqual([
      ["alert.acknowledged", ctx.people.paymentsOwner.id],
      ["alert.silenced", ctx.people.paymentsOwner.id],
    ]);

    // While silenced: it recovers and resolves without a notification, breaches again and fires without one.
    await lag(0);
    await evaluate(3);
    expect((await evaluate(6)).resolved).toEqual([first]);
    await lag(150);
    await evaluate(10);
    const second = (await evaluate(11.5)).fired[0] ?? "";
    expect(second).not.toBe("");
    expect((await subscriptionSlo(db, owner, subscription.id, at(12).getTime())).alerts[0]).toMatchObject({ id: second, status: "FIRING", silence: { until: at(62).toISOString() } });
    expect(await evaluate(40)).toMatchObject({ fired: [], resolved: [], refired: [] });
    expect(await notified(subscription.id)).toEqual([["alert.fired", expect.stringContaining("Lag alert on Silenced Feed")]]);

    // The silence ends and the lag is still above the objective: it fires again, with a notification; no longer shown as silenced.
    expect((await evaluate(63)).refired).toEqual([second]);
    expect(await notified(subscription.id)).toEqual([
      ["alert.fired", expect.stringContaining("Lag alert on Silenced Feed")],
      ["alert.fired", expect.stringContaining("still firing")],
    ]);
    expect(await db.alertSilence.count()).toBe(0);
    expect((await subscriptionSlo(db, owner, subscription.id, at(64).getTime())).alerts[0]).toMatchObject({ id: second, silence: null });
    expect((await evaluate(64)).refired).toEqual([]);

    // Until a date; ended early by an owner; a resolved alert is not silenced.
    await silenceAlert(db, ctx.as.paymentsOwner, second, { until: at(7 * 24 * 60).toISOString() }, at(65));
    expect(await db.alertSilence.findFirstOrThrow()).toMatchObject({ alertId: second, until: at(7 * 24 * 60), silencedById: ctx.people.paymentsOwner.id });
    await unsilenceAlert(db, ctx.as.paymentsOwner, second);
    expect(await db.alertSilence.count()).toBe(0);
    await expect(unsilenceAlert(db, ctx.as.paymentsOwner, second)).rejects.toMatchObject({ status: 409 });
    await expect(silenceAlert(db, ctx.as.paymentsOwner, first, { duration: "24h" }, at(66))).rejects.toMatchObject({ status: 409, code: "ALERT_RESOLVED" });
  });
});
