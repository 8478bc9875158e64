import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveProduct,
  approveSubscription,
  approveSubscriptionPii,
  claimTopic,
  createServiceAccount,
  loadActor,
  pendingSchemaVersions,
  productReview,
  promoteProduct,
  proposeSchemaVersion,
  registerProduct,
  requestCompatibilityModeChange,
  requestPartitionIncrease,
  requestSubscription,
  reviewQueue,
  submitForReview,
  type Db,
} from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/*
 * Issue 31, point 3: every decision governance must take reaches the review
 * queue of the people who can decide it, with a notification to them.
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

const record = (fields: unknown[]) => JSON.stringify({ type: "record", name: "Parcel", namespace: "orders", fields });
const parcelId = { name: "parcelId", type: "string" };
const email = { name: "email", type: "string", pii: true };

async function activeProduct(name: string, definition: string, extra: Record<string, unknown> = {}) {
  const product = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name, schema: { format: "AVRO", definition }, ...extra }));
  await submitForReview(db, ctx.as.ordersOwner, product.id);
  await approveProduct(db, ctx.as.reviewer, product.id);
  return db.dataProduct.update({ where: { id: product.id }, data: { status: "ACTIVE" } });
}

const queueOf = async (who: keyof typeof ctx.as) => reviewQueue(db, await loadActor(db, ctx.as[who].userId));

/** Notification titles the user got about this entity. */
async function toldAbout(who: keyof typeof ctx.people, entityId: string): Promise<string[]> {
  const rows = await db.notification.findMany({ where: { userId: ctx.people[who].id, event: { entityId } }, include: { event: { select: { title: true } } } });
  return rows.map((r) => r.event.title);
}

describe("the review queue holds every decision governance must take", () => {
  it("a subscription that asks for PII: governance is told at the request, and after the owners' approval the grant waits in its queue", async () => {
    const product = await activeProduct("Parcel Contacts", record([parcelId, email]), { classification: "CONFIDENTIAL" });
    const account = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-parcels" });
    const sub = await requestSubscription(db, ctx.as.paymentsOwner, {
      productId: product.id,
      serviceAccountId: account.id,
      purpose: "Tell customers when a refund parcel arrives.",
      piiNeeded: true,
      piiJustification: "We e-mail the customer about their refund parcel.",
    });
    expect(await toldAbout("reviewer", sub.id)).toEqual(["payments-parcels asks to read Parcel Contacts"]);
    await approveSubscription(db, ctx.as.ordersOwner, sub.id);
    const queue = await queueOf("reviewer");
    expect(queue.piiGrants).toEqual([
      expect.objectContaining({ id: sub.id, serviceAccount: { name: "payments-parcels" }, piiJustification: "We e-mail the customer about their refund parcel.", approvedBy: expect.objectContaining({ id: ctx.people.ordersOwner.id }) }),
    ]);
    expect(await toldAbout("reviewer2", sub.id)).toContain("payments-parcels asks for personal data of Parcel Contacts");
    // Owners do not decide it: not in their queue.
    expect((await queueOf("ordersOwner")).piiGrants).toEqual([]);
    await approveSubscriptionPii(db, ctx.as.reviewer, sub.id);
    expect((await queueOf("reviewer")).piiGrants).toEqual([]);
  });

  it("a partition increase, a compatibility-mode change and a schema version are in the queue, and governance is told of each", async () => {
    const product = await activeProduct("Parcel Scans", record([parcelId]));
    const partitions = await requestPartitionIncrease(db, ctx.as.ordersOwner, product.id, { partitions: 12, reason: "Scans tripled since the new depot opened." });
    const mode = await requestCompatibilityModeChange(db, ctx.as.ordersOwner, product.id, { mode: "FULL", reason: "Consumers stay on old versions for months." });
    const queue = await queueOf("reviewer");
    expect(queue.changes.map((c) => c.id).sort()).toEqual([partitions.id, mode.id].sort());
    const told = await toldAbout("reviewer", product.id);
    expect(told).toContain("Parcel Scans: 6 → 12 partitions waits for review");
    expect(told).toContain("Parcel Scans: compatibility BACKWARD → FULL waits for review");

    const other = await activeProduct("Parcel Routes", record([parcelId]));
    const proposed = await proposeSchemaVersion(db, ctx.as.ordersOwner, other.id, { definition: record([parcelId, { name: "depot", type: ["null", "string"], default: null }]) });
    const versions = await pendingSchemaVersions(db, await loadActor(db, ctx.people.reviewer.id));
    expect(versions.map((v) => v.id)).toContain(proposed.id);
    expect((await toldAbout("reviewer", other.id)).length).toBeGreaterThan(0);
  });

  it("a promotion to another environment is in governance's queue, not the owners'", async () => {
    await db.cluster.create({ data: { environment: "prod", bootstrap: "127.0.0.1:1", securityProtocol: "PLAINTEXT", saslMechanism: "none" } });
    const product = await activeProduct("Parcel Labels", record([parcelId]));
    const deployment = await promoteProduct(db, ctx.as.ordersOwner, product.id, { environment: "prod" });
    const queue = await queueOf("reviewer");
    expect(queue.promotions).toEqual([
      expect.objectContaining({ id: deployment.id, environment: "prod", update: false, product: expect.objectContaining({ id: product.id, name: "Parcel Labels" }), requestedBy: expect.objectContaining({ id: ctx.people.ordersOwner.id }), mine: false }),
    ]);
    expect(await toldAbout("reviewer", product.id)).toContain("Parcel Labels awaits review for prod");
    expect((await queueOf("ordersOwner")).promotions).toEqual([]);
  });

  it("a claim of an existing topic is a product in review, marked as a claim", async () => {
    await db.clusterTopic.create({ data: { name: "legacy-parcels", partitions: 3, acls: [] } });
    const claimed = await claimTopic(db, ctx.as.ordersOwner, { ...productInput(ctx.orders.id, { name: "Legacy Parcels", partitions: 3 }), topic: "legacy-parcels" });
    await submitForReview(db, ctx.as.ordersOwner, claimed.id);
    const row = (await queueOf("reviewer")).products.find((p) => p.id === claimed.id);
    expect(row).toMatchObject({ topicName: "legacy-parcels", claim: { topic: "legacy-parcels" } });
    expect((await toldAbout("reviewer", claimed.id)).length).toBeGreaterThan(0);
  });
});

describe("a derived product's review", () => {
  it("shows governance the statement and the inputs it reads with their owning domains; other products have none", async () => {
    const inputProduct = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Review Derived Input" }));
    await submitForReview(db, ctx.as.ordersOwner, inputProduct.id);
    await approveProduct(db, ctx.as.reviewer, inputProduct.id);
    const derived = await registerProduct(db, ctx.as.paymentsOwner, productInput(ctx.payments.id, { name: "Review Derived Output" }));
    await submitForReview(db, ctx.as.paymentsOwner, derived.id);
    // What registerDerivedProduct records besides the product (it needs Flink to plan the statement): the statement and the declared inputs.
    const statement = `SELECT parcelId FROM \`${inputProduct.topicName}\``;
    await db.derivedProduct.create({ data: { productId: derived.id, statement } });
    await db.productInput.create({ data: { productId: derived.id, inputProductId: inputProduct.id } });
    const reviewer = await loadActor(db, ctx.people.reviewer.id);
    expect((await productReview(db, reviewer, derived.id)).derived).toEqual({
      statement,
      inputs: [{ id: inputProduct.id, name: "Review Derived Input", topicName: inputProduct.topicName, domain: { slug: "orders", name: ctx.orders.name } }],
    });
    expect((await productReview(db, reviewer, inputProduct.id)).derived).toBeNull();
  });
});
