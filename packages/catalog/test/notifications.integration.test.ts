import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveProduct,
  approveSubscription,
  createServiceAccount,
  createWebhook,
  decryptSecret,
  deleteWebhook,
  deprecateProduct,
  domainWebhooks,
  listNotifications,
  loadActor,
  markNotificationsRead,
  registerProduct,
  rejectSubscription,
  requestSubscription,
  retireDueProducts,
  retireProduct,
  revokeSubscription,
  sendTestWebhook,
  submitForReview,
  updateWebhook,
  type Db,
} from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;
const key = randomBytes(32);

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

const inbox = async (who: keyof Awaited<ReturnType<typeof seedPeople>>["people"]) => listNotifications(db, await loadActor(db, ctx.people[who].id), { limit: 100 });
const kinds = async (who: Parameters<typeof inbox>[0]) => (await inbox(who)).notifications.map((n) => n.kind);

let n = 0;
async function activeProduct(overrides: Record<string, unknown> = {}) {
  const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: `Notified ${++n}`, ...overrides }));
  await submitForReview(db, ctx.as.ordersOwner, p.id);
  await approveProduct(db, ctx.as.reviewer, p.id);
  // The worker would activate it once provisioned; stand in for it.
  await db.dataProduct.update({ where: { id: p.id }, data: { status: "ACTIVE" } });
  return p;
}

async function subscribe(productId: string) {
  const account = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: `payments-notified-${++n}` });
  return requestSubscription(db, ctx.as.paymentsOwner, { productId, serviceAccountId: account.id, purpose: "Reconcile payments against orders." });
}

describe("workflow notifications", () => {
  it("tells governance of a review request, the domain of the decision, never the actor", async () => {
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: `Notified ${++n}` }));
    await submitForReview(db, ctx.as.ordersOwner, p.id);
    const reviewerInbox = await inbox("reviewer");
    expect(reviewerInbox.notifications[0]).toMatchObject({ kind: "product.review-requested", link: `/products/${p.id}` });
    expect(reviewerInbox.unread).toBeGreaterThan(0);
    expect(await kinds("ordersOwner")).not.toContain("product.review-requested");

    await approveProduct(db, ctx.as.reviewer, p.id);
    expect((await inbox("ordersOwner")).notifications[0]).toMatchObject({ kind: "product.approved", entityId: p.id });
    expect(await kinds("reviewer")).not.toContain("product.approved");
  });

  it("announces subscription requests to the owners and decisions and revocations to the subscriber", async () => {
    const p = await activeProduct();
    const sub = await subscribe(p.id);
    expect((await inbox("ordersOwner")).notifications[0]).toMatchObject({ kind: "subscription.requested", entityId: sub.id });
    await approveSubscription(db, ctx.as.ordersOwner, sub.id);
    expect((await inbox("paymentsMember")).notifications[0]).toMatchObject({ kind: "subscription.approved", link: `/subscriptions/${sub.id}` });
    await revokeSubscription(db, ctx.as.ordersOwner, sub.id, { reason: "Access review found no use." });
    const member = await inbox("paymentsMember");
    expect(member.notifications[0]).toMatchObject({ kind: "subscription.revoked" });
    expect(member.notifications[0]?.body).toContain("Access review found no use.");

    const other = await subscribe(p.id);
    await rejectSubscription(db, ctx.as.ordersOwner, other.id, { reason: "Use the aggregate product." });
    expect((await inbox("paymentsOwner")).notifications[0]).toMatchObject({ kind: "subscription.rejected", entityId: other.id });
  });

  it("marks read: one, then all; someone else's ids are not touched", async () => {
    const before = await inbox("paymentsMember");
    const first = before.notifications[0];
    expect(first?.readAt).toBeNull();
    const one = await markNotificationsRead(db, ctx.as.paymentsMember, { ids: [first?.id] });
    expect(one).toEqual({ marked: 1, unread: before.unread - 1 });
    const foreign = (await inbox("ordersOwner")).notifications[0];
    expect((await markNotificationsRead(db, ctx.as.paymentsMember, { ids: [foreign?.id] })).marked).toBe(0);
    expect((await inbox("ordersOwner")).notifications[0]?.readAt).toBeNull();
    expect((await markNotificationsRead(db, ctx.as.paymentsMember, { all: true })).unread).toBe(0);
    expect((await listNotifications(db, await loadActor(db, ctx.people.paymentsMember.id), { unread: "true" })).notifications).toEqual([]);
    await expect(markNotificationsRead(db, ctx.as.paymentsMember, {})).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
  });
});

describe("webhooks", () => {
  it("creates an endpoint with a sealed secret shown once, and queues deliveries for matching events only", async () => {
    const { webhook, secret } = await createWebhook(db, key, ctx.as.paymentsOwner, { domainId: ctx.payments.id, url: "https://hooks.payments.test/kappa", kinds: ["subscription.approved"] });
    expect(secret).toMatch(/^whsec_/);
    expect("secretCiphertext" in webhook).toBe(false);
    const sealed = await db.webhookEndpoint.findUniqueOrThrow({ where: { id: webhook.id }, omit: { secretCiphertext: false } });
    expect(decryptSecret(key, sealed.secretCiphertext, webhook.id)).toBe(secret);

    const p = await activeProduct();
    const sub = await subscribe(p.id); // subscription.requested: not in the endpoint's kinds
    expect(await db.webhookDelivery.count({ where: { endpointId: webhook.id } })).toBe(0);
    await approveSubscription(db, ctx.as.ordersOwner, sub.id);
    const deliveries = await db.webhookDelivery.findMany({ where: { endpointId: webhook.id } });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ kind: "subscription.approved", status: "PENDING" });
    expect(deliveries[0]?.payload).toMatchObject({ kind: "subscription.approved", entity: { type: "Subscription", id: sub.id }, link: `/subscriptions/${sub.id}` });

    await updateWebhook(db, ctx.as.paymentsOwner, webhook.id, { active: false });
    await revokeSubscription(db, ctx.as.ordersOwner, sub.id, { reason: "Paused endpoints get nothing." });
    expect(await db.webhookDelivery.count({ where: { endpointId: webhook.id } })).toBe(1);

    await sendTestWebhook(db, ctx.as.paymentsOwner, webhook.id);
    const listed = await domainWebhooks(db, await loadActor(db, ctx.people.paymentsOwner.id), ctx.payments.id);
    expect(listed[0]?.deliveries).toEqual({ PENDING: 2 });
    await deleteWebhook(db, ctx.as.paymentsOwner, webhook.id);
    expect(await db.webhookDelivery.count({ where: { endpointId: webhook.id } })).toBe(0);
  });

  it("refuses other domains' owners, members, credentials in URLs and unknown kinds", async () => {
    await expect(createWebhook(db, key, ctx.as.ordersOwner, { domainId: ctx.payments.id, url: "https://x.test/" })).rejects.toMatchObject({ status: 403 });
    await expect(createWebhook(db, key, ctx.as.paymentsMember, { domainId: ctx.payments.id, url: "https://x.test/" })).rejects.toMatchObject({ status: 403 });
    await expect(createWebhook(db, key, ctx.as.paymentsOwner, { domainId: ctx.payments.id, url: "https://user:pw@x.test/" })).rejects.toMatchObject({ fields: { url: [expect.stringContaining("passwords")] } });
    await expect(createWebhook(db, key, ctx.as.paymentsOwner, { domainId: ctx.payments.id, url: "ftp://x.test/" })).rejects.toMatchObject({ status: 400 });
    await expect(createWebhook(db, key, ctx.as.paymentsOwner, { domainId: ctx.payments.id, url: "https://x.test/", kinds: ["nope"] })).rejects.toMatchObject({ status: 400 });
    expect(await db.webhookEndpoint.count({ where: { domainId: ctx.payments.id } })).toBe(0);
  });
});

describe("retirement", () => {
  const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString();

  it("at the sunset: revokes subscriptions, rejects requests, queues the worker's removal and tells everyone", async () => {
    const p = await activeProduct();
    const granted = await subscribe(p.id);
    await approveSubscription(db, ctx.as.ordersOwner, granted.id);
    const pending = await subscribe(p.id);
    await deprecateProduct(db, ctx.as.ordersOwner, p.id, { reason: "Replaced by v2.", sunsetAt: tomorrow() });
    expect((await inbox("paymentsMember")).notifications[0]).toMatchObject({ kind: "product.deprecated" });

    // Not yet due: nothing happens.
    expect(await retireDueProducts(db)).not.toContain(p.id);
    const sunset = await db.dataProduct.findUniqueOrThrow({ where: { id: p.id } });
    const due = new Date((sunset.sunsetAt?.getTime() ?? 0) + 1000);
    expect(await retireDueProducts(db, due)).toContain(p.id);
    // A second scheduler (another worker) finds nothing left to do.
    expect(await retireDueProducts(db, due)).not.toContain(p.id);

    const after = await db.dataProduct.findUniqueOrThrow({ where: { id: p.id } });
    expect(after.status).toBe("RETIRED");
    expect(after.retiredAt).not.toBeNull();
    expect((await db.subscription.findUniqueOrThrow({ where: { id: granted.id } })).status).toBe("REVOKED");
    expect((await db.subscription.findUniqueOrThrow({ where: { id: pending.id } })).status).toBe("REJECTED");
    const tasks = await db.provisioningTask.findMany({ where: { entityType: "DataProduct", entityId: p.id }, orderBy: { step: "asc" } });
    expect(tasks.at(-1)).toMatchObject({ kind: "RETIRE_PRODUCT", status: "PENDING", step: 4 });
    expect(tasks.slice(0, -1).every((t) => t.status === "DONE")).toBe(true);
    expect((await inbox("paymentsMember")).notifications[0]).toMatchObject({ kind: "product.retired", entityId: p.id });
    expect((await inbox("ordersOwner")).notifications[0]).toMatchObject({ kind: "product.retired" });
    const audit = await db.auditEvent.findFirstOrThrow({ where: { entityId: p.id, action: "product.retired" } });
    expect(audit.data).toMatchObject({ trigger: "sunset", revokedSubscriptions: [{ subscriptionId: granted.id }] });
  });

  it("early by an owner only once no subscription is active, and only a deprecated product", async () => {
    const p = await activeProduct();
    await expect(retireProduct(db, ctx.as.ordersOwner, p.id, { reason: "Nobody uses it." })).rejects.toMatchObject({ code: "INVALID_TRANSITION" });
    const sub = await subscribe(p.id);
    await approveSubscription(db, ctx.as.ordersOwner, sub.id);
    await deprecateProduct(db, ctx.as.ordersOwner, p.id, { reason: "Replaced by v2.", sunsetAt: tomorrow() });
    await expect(retireProduct(db, ctx.as.ordersOwner, p.id, { reason: "Nobody uses it." })).rejects.toMatchObject({ code: "ACTIVE_SUBSCRIPTIONS" });
    await expect(retireProduct(db, ctx.as.paymentsOwner, p.id, { reason: "Nobody uses it." })).rejects.toMatchObject({ status: 403 });
    await revokeSubscription(db, ctx.as.paymentsOwner, sub.id, { reason: "Moved to v2." });
    const retired = await retireProduct(db, ctx.as.ordersOwner, p.id, { reason: "Everyone moved to v2." });
    expect(retired.status).toBe("RETIRED");
    expect((await db.auditEvent.findFirstOrThrow({ where: { entityId: p.id, action: "product.retired" } })).data).toMatchObject({ trigger: "owner" });
  });
});
