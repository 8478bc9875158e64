import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveProduct,
  approveQuotaClass,
  approveSubscription,
  createServiceAccount,
  desiredQuotasOfServiceAccounts,
  loadActor,
  quotaUsage,
  registerProduct,
  rejectQuotaClass,
  requestSubscription,
  reviewQueue,
  revokeSubscription,
  setProductQuotaClass,
  submitForReview,
  type Db,
} from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/*
 * Issue 33: choosing a quota class. A product's owners choose its producer
 * account's class, a subscription asks for one; a class larger than the
 * policy's default (`standard`) waits for governance, four eyes, audited; the
 * class in force is what the worker applies, and an account with no live use
 * has none.
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

const STANDARD = { class: "standard", producerByteRate: 5242880, consumerByteRate: 10485760, requestPercentage: 50 };
const BULK = { class: "bulk", producerByteRate: 52428800, consumerByteRate: 104857600, requestPercentage: 200 };
const tasksOf = (entityId: string) => db.provisioningTask.findMany({ where: { entityId, kind: "APPLY_QUOTA_CLASS" } });
const audits = (entityId: string, action: string) => db.auditEvent.findMany({ where: { entityId, action } });

let productId: string;
let producerId: string;

describe("a product's quota class", () => {
  it("is chosen by the owners of its domain only, from the policy's classes; a class no larger than the default is in force at once and queued for the worker", async () => {
    const product = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Quota Events" }));
    productId = product.id;
    await submitForReview(db, ctx.as.ordersOwner, productId);
    await approveProduct(db, ctx.as.reviewer, productId);
    producerId = (await db.serviceAccount.findFirstOrThrow({ where: { domainId: ctx.orders.id, isProducer: true } })).id;
    // Live product, no class chosen: the producer runs under the default.
    expect((await desiredQuotasOfServiceAccounts(db, [producerId])).get(producerId)).toEqual(STANDARD);

    for (const outsider of [ctx.as.paymentsOwner, ctx.as.paymentsMember, ctx.as.reviewer]) {
      await expect(setProductQuotaClass(db, outsider, productId, { quotaClass: "standard" })).rejects.toMatchObject({ status: 403 });
    }
    await expect(setProductQuotaClass(db, ctx.as.ordersOwner, productId, { quotaClass: "gold" })).rejects.toMatchObject({ status: 400, fields: { quotaClass: [expect.stringContaining("bulk, standard")] } });
    await expect(setProductQuotaClass(db, ctx.as.ordersOwner, productId, { quotaClass: "Bulk!" })).rejects.toMatchObject({ status: 400, fields: { quotaClass: expect.any(Array) } });

    const set = await setProductQuotaClass(db, ctx.as.ordersOwner, productId, { quotaClass: "standard" });
    expect(set).toMatchObject({ quotaClass: "standard", quotaClassRequested: null });
    expect(await audits(productId, "product.quota-class.set")).toHaveLength(1);
    expect(await tasksOf(productId)).toHaveLength(1);
  });

  it("larger than the default needs a reason, waits in governance's queue and is granted by a reviewer only, then the producer account runs under it", async () => {
    await expect(setProductQuotaClass(db, ctx.as.ordersOwner, productId, { quotaClass: "bulk" })).rejects.toMatchObject({ status: 400, fields: { reason: [expect.stringContaining("larger than the default")] } });
    const asked = await setProductQuotaClass(db, ctx.as.ordersOwner, productId, { quotaClass: "bulk", reason: "Nightly backfill of all orders." });
    expect(asked).toMatchObject({ quotaClass: "standard", quotaClassRequested: "bulk", quotaClassReason: "Nightly backfill of all orders." });
    expect((await audits(productId, "product.quota-class.requested"))[0]?.data).toMatchObject({ class: "bulk", inForce: "standard", reason: "Nightly backfill of all orders." });
    // Still the class in force until governance decides; nothing queued for the worker.
    expect((await desiredQuotasOfServiceAccounts(db, [producerId])).get(producerId)).toEqual(STANDARD);
    expect(await tasksOf(productId)).toHaveLength(1);

    const queue = await reviewQueue(db, await loadActor(db, ctx.people.reviewer.id));
    expect(queue.quotaClasses).toEqual([expect.objectContaining({ entityType: "DataProduct", id: productId, requested: "bulk", inForce: "standard", reason: "Nightly backfill of all orders.", requestedBy: expect.objectContaining({ email: "owner@orders.test" }) })]);
    // The owners' own queue does not offer it: only governance decides.
    expect((await reviewQueue(db, await loadActor(db, ctx.people.ordersOwner.id))).quotaClasses).toEqual([]);

    await expect(approveQuotaClass(db, ctx.as.ordersOwner, { entityType: "DataProduct", id: productId })).rejects.toMatchObject({ status: 403 });
    const approved = await approveQuotaClass(db, ctx.as.reviewer, { entityType: "DataProduct", id: productId });
    expect(approved).toMatchObject({ quotaClass: "bulk", quotaClassRequested: null });
    expect((await audits(productId, "product.quota-class.approved"))[0]).toMatchObject({ actorEmail: "reviewer@gov.test", data: expect.objectContaining({ class: "bulk", before: "standard" }) });
    expect(await tasksOf(productId)).toHaveLength(2);
    expect((await desiredQuotasOfServiceAccounts(db, [producerId])).get(producerId)).toEqual(BULK);
    await expect(approveQuotaClass(db, ctx.as.reviewer, { entityType: "DataProduct", id: productId })).rejects.toMatchObject({ status: 409 });
    // Back down to the default needs nobody's approval.
    expect(await setProductQuotaClass(db, ctx.as.ordersOwner, productId, { quotaClass: "standard" })).toMatchObject({ quotaClass: "standard" });
    expect((await desiredQuotasOfServiceAccounts(db, [producerId])).get(producerId)).toEqual(STANDARD);
  });
});

describe("a subscription's quota class", () => {
  it("is asked for on the request; a larger one waits past the owners' approval for governance (four eyes), and the account has no quota once nothing is live", async () => {
    const reader = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-bulk-reader", description: "reads a lot" });
    expect((await desiredQuotasOfServiceAccounts(db, [reader.id])).get(reader.id)).toBeNull();
    const base = { productId, serviceAccountId: reader.id, purpose: "Reconciliation of payments against orders." };
    await expect(requestSubscription(db, ctx.as.paymentsOwner, { ...base, quotaClass: "gold" })).rejects.toMatchObject({ status: 400, fields: { quotaClass: expect.any(Array) } });
    await expect(requestSubscription(db, ctx.as.paymentsOwner, { ...base, quotaClass: "bulk" })).rejects.toMatchObject({ status: 400, fields: { quotaClassReason: expect.any(Array) } });
    const sub = await requestSubscription(db, ctx.as.paymentsOwner, { ...base, quotaClass: "bulk", quotaClassReason: "Month-end replay of every order." });
    expect(sub).toMatchObject({ status: "REQUESTED", quotaClass: null, quotaClassRequested: "bulk", quotaClassRequestedById: ctx.people.paymentsOwner.id });
    expect((await audits(sub.id, "subscription.requested"))[0]?.data).toMatchObject({ quotaClassRequested: "bulk", quotaClassReason: "Month-end replay of every order." });

    // The owners approve the access; the larger class stays governance's to grant.
    await approveSubscription(db, ctx.as.ordersOwner, sub.id);
    expect(await db.subscription.findUniqueOrThrow({ where: { id: sub.id } })).toMatchObject({ status: "APPROVED", quotaClass: null, quotaClassRequested: "bulk" });
    expect((await desiredQuotasOfServiceAccounts(db, [reader.id])).get(reader.id)).toEqual(STANDARD);
    const queue = await reviewQueue(db, await loadActor(db, ctx.people.reviewer.id));
    expect(queue.quotaClasses.map((q) => [q.entityType, q.id, q.requested])).toEqual([["Subscription", sub.id, "bulk"]]);

    await expect(rejectQuotaClass(db, ctx.as.reviewer, { entityType: "Subscription", id: sub.id }, { reason: "no" })).rejects.toMatchObject({ status: 400, fields: { reason: expect.any(Array) } });
    await approveQuotaClass(db, ctx.as.reviewer, { entityType: "Subscription", id: sub.id });
    expect((await desiredQuotasOfServiceAccounts(db, [reader.id])).get(reader.id)).toEqual(BULK);
    expect(await tasksOf(sub.id)).toHaveLength(1);

    // Revoked: no live use, no quota (the worker removes it).
    await revokeSubscription(db, ctx.as.ordersOwner, sub.id, { reason: "Backfill finished." });
    expect((await desiredQuotasOfServiceAccounts(db, [reader.id])).get(reader.id)).toBeNull();
  });

  it("four eyes: a reviewer who asked for a larger class cannot grant it; another can, or rejects it with a reason (audited)", async () => {
    // A governance reviewer who is also a member of the consuming domain asks.
    await db.membership.create({ data: { userId: ctx.people.reviewer2.id, domainId: ctx.payments.id, role: "MEMBER" } });
    const reader = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-gov-reader", description: "reads" });
    const sub = await requestSubscription(db, ctx.as.reviewer2, { productId, serviceAccountId: reader.id, purpose: "Audit sampling of the order stream.", quotaClass: "bulk", quotaClassReason: "Full-history audit sample." });
    await expect(approveQuotaClass(db, ctx.as.reviewer2, { entityType: "Subscription", id: sub.id })).rejects.toMatchObject({ status: 403, code: "FOUR_EYES" });
    await rejectQuotaClass(db, ctx.as.reviewer, { entityType: "Subscription", id: sub.id }, { reason: "Standard is enough for sampling." });
    expect(await db.subscription.findUniqueOrThrow({ where: { id: sub.id } })).toMatchObject({ quotaClass: null, quotaClassRequested: null });
    expect((await audits(sub.id, "subscription.quota-class.rejected"))[0]?.data).toMatchObject({ class: "bulk", reason: "Standard is enough for sampling." });

    // A class no larger than the default is in force from the request, and governance's approval of the subscription grants a larger one with it.
    const other = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-std-reader", description: "reads" });
    const std = await requestSubscription(db, ctx.as.paymentsOwner, { productId, serviceAccountId: other.id, purpose: "Dashboards of the order stream.", quotaClass: "standard" });
    expect(std).toMatchObject({ quotaClass: "standard", quotaClassRequested: null });
    const third = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-gov-approved", description: "reads" });
    const big = await requestSubscription(db, ctx.as.paymentsOwner, { productId, serviceAccountId: third.id, purpose: "Month-end replay of every order.", quotaClass: "bulk", quotaClassReason: "Month-end replay." });
    await approveSubscription(db, ctx.as.reviewer, big.id);
    expect(await db.subscription.findUniqueOrThrow({ where: { id: big.id } })).toMatchObject({ status: "APPROVED", quotaClass: "bulk", quotaClassRequested: null });
    expect((await audits(big.id, "subscription.quota-class.approved"))[0]?.actorEmail).toBe("reviewer@gov.test");
  });
});

describe("quotaUsage", () => {
  it("answers the account's quota in force and its bytes per second per minute against the byte rate, to whom may see it", async () => {
    const now = Date.UTC(2026, 11, 5, 12, 0, 0);
    const minute = (m: number) => new Date(now - m * 60_000);
    const product = await db.dataProduct.findUniqueOrThrow({ where: { id: productId } });
    // As the worker observes: 1280 bytes per record on the broker; 1024 then 2048 records/s.
    await db.topicObservation.create({ data: { topic: product.topicName, productId, partitions: 1, endOffset: 1000n, earliestOffset: 0n, localBytes: 1_280_000n } });
    await db.topicObservationSample.createMany({
      data: [
        { topic: product.topicName, bucket: minute(2), endOffset: 0n, earliestOffset: 0n, messagesPerSecond: 1024 },
        { topic: product.topicName, bucket: minute(1), endOffset: 0n, earliestOffset: 0n, messagesPerSecond: 2048 },
        { topic: product.topicName, bucket: minute(60 * 4), endOffset: 0n, earliestOffset: 0n, messagesPerSecond: 99_999 },
      ],
    });
    const owner = await loadActor(db, ctx.people.ordersOwner.id);
    const usage = await quotaUsage(db, owner, { productId }, now);
    expect(usage).toMatchObject({ direction: "produce", inForce: STANDARD, chosen: STANDARD, requested: null, limitBytesPerSecond: STANDARD.producerByteRate });
    // The sample from four hours ago is outside the three-hour window.
    expect(usage.points).toEqual([
      { t: minute(2).getTime(), bytesPerSecond: 1024 * 1280 },
      { t: minute(1).getTime(), bytesPerSecond: 2048 * 1280 },
    ]);
    expect(usage).toMatchObject({ latestBytesPerSecond: 2_621_440, peakBytesPerSecond: 2_621_440, peakPercentOfQuota: 50 });
    expect(usage.classes.map((c) => [c.class, c.isDefault, c.needsApproval])).toEqual([["bulk", false, true], ["standard", true, false]]);
    await expect(quotaUsage(db, await loadActor(db, ctx.people.paymentsOwner.id), { productId }, now)).rejects.toMatchObject({ status: 403 });

    // A subscriber: the committed offsets of its group moved 122880 records a minute.
    const reader = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-usage-reader", description: "reads" });
    const sub = await requestSubscription(db, ctx.as.paymentsOwner, { productId, serviceAccountId: reader.id, purpose: "Reconciliation of payments against orders." });
    await approveSubscription(db, ctx.as.ordersOwner, sub.id);
    await db.consumerGroupObservationSample.createMany({
      data: [0, 1, 2].map((m) => ({ groupId: "payments-usage-reader.g", topic: product.topicName, bucket: minute(3 - m), totalLag: 0n, committedOffset: BigInt(m * 122_880), subscriptionId: sub.id })),
    });
    const read = await quotaUsage(db, await loadActor(db, ctx.people.paymentsMember.id), { subscriptionId: sub.id }, now);
    expect(read).toMatchObject({ direction: "consume", account: { id: reader.id }, inForce: STANDARD, limitBytesPerSecond: STANDARD.consumerByteRate, latestBytesPerSecond: 2_621_440, peakPercentOfQuota: 25 });
    expect(read.points.map((p) => p.bytesPerSecond)).toEqual([0, 2_621_440, 2_621_440]);
    // Revoked: the account has no quota any more.
    await revokeSubscription(db, ctx.as.ordersOwner, sub.id, { reason: "No longer needed." });
    expect(await quotaUsage(db, await loadActor(db, ctx.people.paymentsMember.id), { subscriptionId: sub.id }, now)).toMatchObject({ inForce: null, limitBytesPerSecond: null, peakPercentOfQuota: null });
  });
});
