import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveProduct, approveSubscription, createServiceAccount, loadActor, recertificationQueue, recertifySubscription, registerProduct, requestSubscription, setSubscriptionExpiry, submitForReview, sweepRecertification, updatePolicy, type Db } from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

const DAY = 24 * 3600_000;
let n = 0;
async function grantedSubscription(classification: string) {
  const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: `Recert ${["alpha", "beta", "gamma", "delta", "epsilon", "zeta"][n++] ?? n}`, classification, ...(classification === "CONFIDENTIAL" ? { retentionMs: 30 * DAY } : {}) }));
  await submitForReview(db, ctx.as.ordersOwner, p.id);
  await approveProduct(db, ctx.as.reviewer, p.id);
  const account = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: `payments-recert-${n}` });
  const s = await requestSubscription(db, ctx.as.paymentsOwner, { productId: p.id, serviceAccountId: account.id, purpose: "Reconcile payments against the orders they pay for." });
  const decider = classification === "CONFIDENTIAL" || classification === "RESTRICTED" ? ctx.as.reviewer : ctx.as.ordersOwner;
  await approveSubscription(db, decider, s.id);
  return db.subscription.findUniqueOrThrow({ where: { id: s.id } });
}

describe("access recertification", () => {
  it("schedules by classification from the policy, lists unused grants first, and keep/revoke with a reason", async () => {
    const internal = await grantedSubscription("INTERNAL");
    const confidential = await grantedSubscription("CONFIDENTIAL");
    const owner = await loadActor(db, ctx.people.ordersOwner.id);
    const inFiveMonths = new Date(Date.now() + 150 * DAY);
    const queue = await recertificationQueue(db, owner, inFiveMonths);
    const byId = new Map(queue.items.map((i) => [i.id, i]));
    // Default policy: CONFIDENTIAL every 90 days, INTERNAL every 180.
    expect(byId.get(confidential.id)).toMatchObject({ overdue: true, unused: true });
    expect(byId.get(internal.id)).toMatchObject({ overdue: false, unused: true });
    expect(queue.schedule.everyDays.CONFIDENTIAL).toBe(90);

    await expect(recertifySubscription(db, ctx.as.paymentsOwner, confidential.id, { decision: "keep", reason: "still needed" })).rejects.toMatchObject({ status: 403 });
    await expect(recertifySubscription(db, ctx.as.ordersOwner, confidential.id, { decision: "keep", reason: "" })).rejects.toMatchObject({ status: 400 });
    await recertifySubscription(db, ctx.as.ordersOwner, confidential.id, { decision: "keep", reason: "Still reconciling payments daily" });
    // Kept today: the next due date is 90 days from now (not overdue in 60 days, overdue again in 100).
    expect((await recertificationQueue(db, owner, new Date(Date.now() + 60 * DAY))).items.find((i) => i.id === confidential.id)?.overdue).toBe(false);
    expect((await recertificationQueue(db, owner, new Date(Date.now() + 100 * DAY))).items.find((i) => i.id === confidential.id)?.overdue).toBe(true);
    expect(await db.auditEvent.findFirst({ where: { entityId: confidential.id, action: "subscription.recertified" } })).toMatchObject({ data: { decision: "keep", reason: "Still reconciling payments daily" } });

    await recertifySubscription(db, ctx.as.ordersOwner, internal.id, { decision: "revoke", reason: "Team no longer uses it" });
    expect(await db.subscription.findUniqueOrThrow({ where: { id: internal.id } })).toMatchObject({ status: "REVOKED", reason: "Team no longer uses it" });
    expect(await db.provisioningTask.count({ where: { entityId: internal.id, kind: "REVOKE_SUBSCRIPTION_ACL" } })).toBe(1);
  });

  it("a request may carry its own end of access; a past date is refused", async () => {
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Recert Temporary" }));
    await submitForReview(db, ctx.as.ordersOwner, p.id);
    await approveProduct(db, ctx.as.reviewer, p.id);
    const account = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-temporary" });
    const purpose = "Reconcile payments against the orders they pay for.";
    await expect(requestSubscription(db, ctx.as.paymentsOwner, { productId: p.id, serviceAccountId: account.id, purpose, expiresAt: "2001-01-01" })).rejects.toMatchObject({ status: 400, fields: { expiresAt: [expect.stringContaining("future")] } });
    const ends = new Date(Date.now() + 30 * DAY);
    const s = await requestSubscription(db, ctx.as.paymentsOwner, { productId: p.id, serviceAccountId: account.id, purpose, expiresAt: ends.toISOString() });
    expect(s.expiresAt?.toISOString()).toBe(ends.toISOString());
    expect(await db.auditEvent.findFirst({ where: { entityId: s.id, action: "subscription.requested" } })).toMatchObject({ data: { expiresAt: ends.toISOString() } });
  });

  it("the sweep revokes expired subscriptions, announces overdue ones once, and auto-revokes lapsed ones when the policy says so", async () => {
    const expiring = await grantedSubscription("INTERNAL");
    await setSubscriptionExpiry(db, ctx.as.ordersOwner, expiring.id, { expiresAt: new Date(Date.now() + 2 * DAY).toISOString() });
    await expect(setSubscriptionExpiry(db, ctx.as.ordersOwner, expiring.id, { expiresAt: "2001-01-01" })).rejects.toMatchObject({ status: 400 });
    const overdue = await grantedSubscription("CONFIDENTIAL");

    const soon = new Date(Date.now() + 3 * DAY);
    const first = await sweepRecertification(db, soon);
    expect(first.revokedExpired).toBeGreaterThanOrEqual(1);
    expect(await db.subscription.findUniqueOrThrow({ where: { id: expiring.id } })).toMatchObject({ status: "REVOKED" });
    expect(await db.provisioningTask.count({ where: { entityId: expiring.id, kind: "REVOKE_SUBSCRIPTION_ACL" } })).toBe(1);

    const late = new Date(Date.now() + 95 * DAY);
    const announce = await sweepRecertification(db, late);
    expect(announce.notified).toBeGreaterThanOrEqual(1);
    expect(await db.notificationEvent.count({ where: { kind: "access.recertification", entityId: overdue.id } })).toBe(1);
    await sweepRecertification(db, late); // announced once per due date
    expect(await db.notificationEvent.count({ where: { kind: "access.recertification", entityId: overdue.id } })).toBe(1);
    // Past the grace period, but the default policy does not auto-revoke.
    await sweepRecertification(db, new Date(Date.now() + 120 * DAY));
    expect((await db.subscription.findUniqueOrThrow({ where: { id: overdue.id } })).status).toBe("APPROVED");

    // An admin turns auto-revoke on in the policy document: the next sweep revokes it.
    const { source } = (await db.policyVersion.findFirstOrThrow({ orderBy: { version: "desc" } }));
    await updatePolicy(db, ctx.as.admin, { source: source.replace("autoRevoke: false", "autoRevoke: true"), reason: "Revoke overdue access automatically" });
    const swept = await sweepRecertification(db, new Date(Date.now() + 120 * DAY));
    expect(swept.revokedOverdue).toBeGreaterThanOrEqual(1);
    expect(await db.subscription.findUniqueOrThrow({ where: { id: overdue.id } })).toMatchObject({ status: "REVOKED", reason: expect.stringContaining("Not recertified") });
    expect(await db.auditEvent.findFirst({ where: { entityId: overdue.id, action: "subscription.revoked" } })).toMatchObject({ actorEmail: "recertification" });
  });
});
