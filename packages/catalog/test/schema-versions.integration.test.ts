import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveChangeRequest,
  approveProduct,
  requestCompatibilityModeChange,
  approveSchemaVersion,
  approveSubscription,
  checkSchemaVersion,
  createServiceAccount,
  listSchemaVersions,
  loadActor,
  proposeSchemaVersion,
  publishMajorVersion,
  registerProduct,
  rejectProduct,
  rejectSchemaVersion,
  requestSubscription,
  requestSuccessorAccess,
  schemaVersionReview,
  submitForReview,
  subscriptionSuccessorNotice,
  successorNotices,
  type Db,
} from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

const record = (fields: unknown[]) => JSON.stringify({ type: "record", name: "OrderPlaced", namespace: "orders", fields });
const orderId = { name: "orderId", type: "string" };
const amountCents = { name: "amountCents", type: "long" };
const note = { name: "note", type: ["null", "string"], default: null };

/** A product approved by governance and made ACTIVE, as the worker does once its topic exists. */
async function activeProduct(name: string, definition: string, extra: Record<string, unknown> = {}) {
  const product = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name, schema: { format: "AVRO", definition }, ...extra }));
  await submitForReview(db, ctx.as.ordersOwner, product.id);
  await approveProduct(db, ctx.as.reviewer, product.id);
  return db.dataProduct.update({ where: { id: product.id }, data: { status: "ACTIVE" } });
}

async function actor(who: keyof typeof ctx.as) {
  return loadActor(db, ctx.as[who].userId);
}

async function fingerprintOf(schemaVersionId: string) {
  return (await db.schemaVersion.findUniqueOrThrow({ where: { id: schemaVersionId } })).fingerprint ?? "";
}

describe("schema versions", () => {
  it("approving a product gives its first version a registry id, fingerprint and decider; an identical schema elsewhere gets the same id", async () => {
    const product = await activeProduct("Id Orders", record([orderId, amountCents]));
    const [v1] = await db.schemaVersion.findMany({ where: { productId: product.id } });
    expect(v1).toMatchObject({ status: "APPROVED", decidedById: ctx.people.reviewer.id });
    expect(v1?.schemaId).toEqual(expect.any(Number));
    expect(v1?.fingerprint).toMatch(/^[0-9a-f]{64}$/);

    // Same schema, other whitespace and key order, another domain's product: Confluent-style global id.
    const same = JSON.stringify({ fields: [orderId, amountCents], namespace: "orders", name: "OrderPlaced", type: "record" }, null, 2);
    const other = await registerProduct(db, ctx.as.paymentsOwner, productInput(ctx.payments.id, { name: "Id Payments", schema: { format: "AVRO", definition: same } }));
    await submitForReview(db, ctx.as.paymentsOwner, other.id);
    await approveProduct(db, ctx.as.reviewer, other.id);
    const [w1] = await db.schemaVersion.findMany({ where: { productId: other.id } });
    expect(w1?.schemaId).toBe(v1?.schemaId);
  });

  it("checks a proposal before anything is submitted and writes nothing", async () => {
    const product = await activeProduct("Check Orders", record([orderId, amountCents]));
    const before = await db.schemaVersion.count();
    const ok = await checkSchemaVersion(db, await actor("ordersOwner"), product.id, { definition: record([orderId, amountCents, note]) });
    expect(ok).toMatchObject({ valid: true, compatible: true, proposedVersion: 2, mode: "BACKWARD", checkedVersions: [1], issues: [] });
    expect(ok.valid && ok.identicalTo === null && ok.fieldChanges.map((c) => [c.path, c.change])).toEqual([
      ["orderId", "unchanged"],
      ["amountCents", "unchanged"],
      ["note", "added"],
    ]);

    const breaking = await checkSchemaVersion(db, await actor("ordersOwner"), product.id, { definition: record([orderId, amountCents, { name: "currency", type: "string" }]) });
    expect(breaking).toMatchObject({ valid: true, compatible: false, newMajorVersion: { majorVersion: 2, topicName: "orders.check-orders.v2" } });
    expect(breaking.valid && breaking.identicalTo === null && breaking.issues.map((i) => i.message)).toEqual([
      "field `currency` added without a default: readers of v2 cannot read data written with v1 under BACKWARD",
    ]);

    const same = await checkSchemaVersion(db, await actor("ordersOwner"), product.id, { definition: JSON.stringify(JSON.parse(record([orderId, amountCents])), null, 4) });
    expect(same).toMatchObject({ valid: true, identicalTo: 1 });
    expect(await checkSchemaVersion(db, await actor("ordersOwner"), product.id, { definition: "{nope" })).toMatchObject({ valid: false, problem: expect.stringMatching(/not valid JSON/) });
    await expect(checkSchemaVersion(db, await actor("paymentsOwner"), product.id, { definition: record([orderId]) })).rejects.toMatchObject({ status: 403 });
    expect(await db.schemaVersion.count()).toBe(before);
  });

  it("a compatible proposal waits for a four-eyes review that names the version it saw", async () => {
    const product = await activeProduct("Review Orders", record([orderId, amountCents]));
    const v2 = await proposeSchemaVersion(db, ctx.as.ordersOwner, product.id, { definition: record([orderId, amountCents, note]) });
    expect(v2).toMatchObject({ version: 2, status: "PENDING", proposedById: ctx.people.ordersOwner.id, schemaId: null });
    expect(v2.compatibility).toMatchObject({ mode: "BACKWARD", checkedVersions: [1], issues: [] });
    await expect(proposeSchemaVersion(db, ctx.as.ordersOwner, product.id, { definition: record([orderId, amountCents, note, { name: "x", type: "int", default: 0 }]) })).rejects.toMatchObject({
      status: 409,
      code: "SCHEMA_VERSION_PENDING",
    });

    const fingerprint = await fingerprintOf(v2.id);
    await expect(approveSchemaVersion(db, ctx.as.ordersOwner, v2.id, { fingerprint })).rejects.toMatchObject({ status: 403 });
    await expect(approveSchemaVersion(db, ctx.as.reviewer, v2.id, {})).rejects.toMatchObject({ status: 400, fields: { fingerprint: ["Open the change before approving it."] } });
    await expect(approveSchemaVersion(db, ctx.as.reviewer, v2.id, { fingerprint: "0".repeat(64) })).rejects.toMatchObject({ status: 409, code: "FINGERPRINT_MISMATCH" });
    const approved = await approveSchemaVersion(db, ctx.as.reviewer, v2.id, { fingerprint, comment: "Optional field, fine." });
    expect(approved).toMatchObject({ status: "APPROVED", decidedById: ctx.people.reviewer.id, decisionReason: "Optional field, fine.", schemaId: expect.any(Number) });
    await expect(approveSchemaVersion(db, ctx.as.reviewer2, v2.id, { fingerprint })).rejects.toMatchObject({ status: 409, code: "INVALID_TRANSITION" });

    const audit = await db.auditEvent.findMany({ where: { entityId: v2.id }, orderBy: { id: "asc" } });
    expect(audit.map((e) => e.action)).toEqual(["schemaVersion.proposed", "schemaVersion.approved"]);
    const kinds = await db.notificationEvent.findMany({ where: { entityId: v2.id }, orderBy: { createdAt: "asc" }, select: { kind: true, link: true } });
    expect(kinds).toEqual([
      { kind: "schema.version-submitted", link: `/review/schema-versions/${v2.id}` },
      { kind: "schema.version-approved", link: `/products/${product.id}/schema` },
    ]);

    // An identical schema is not a new version.
    await expect(proposeSchemaVersion(db, ctx.as.ordersOwner, product.id, { definition: record([orderId, amountCents, note]) })).rejects.toMatchObject({ status: 409, code: "SCHEMA_UNCHANGED" });
  });

  it("refuses a breaking proposal with its incompatibilities and the new-major offer, writing nothing", async () => {
    const product = await activeProduct("Breaking Orders", record([orderId, amountCents]));
    const before = await db.schemaVersion.count({ where: { productId: product.id } });
    const error = await proposeSchemaVersion(db, ctx.as.ordersOwner, product.id, { definition: record([orderId, { name: "amountCents", type: "string" }]) }).catch((e) => e);
    expect(error).toMatchObject({ status: 409, code: "INCOMPATIBLE_SCHEMA" });
    expect(error.message).toBe("The schema is not BACKWARD compatible with v1: 1 incompatibility. Publish it as a new major version (orders.breaking-orders.v2) instead.");
    expect(error.details).toMatchObject({
      mode: "BACKWARD",
      checkedVersions: [1],
      newMajorVersion: { majorVersion: 2, topicName: "orders.breaking-orders.v2" },
      issues: [{ rule: "TYPE_MISMATCH", path: "amountCents", message: "field `amountCents` changed type from long to string: readers of v2 cannot read data written with v1 under BACKWARD" }],
    });
    expect(await db.schemaVersion.count({ where: { productId: product.id } })).toBe(before);
  });

  it("a reviewer rejects with a reason; the version is kept as REJECTED and the next proposal takes the next number", async () => {
    const product = await activeProduct("Rejected Orders", record([orderId, amountCents]));
    const v2 = await proposeSchemaVersion(db, ctx.as.ordersOwner, product.id, { definition: record([orderId, amountCents, note]) });
    await expect(rejectSchemaVersion(db, ctx.as.reviewer, v2.id, { reason: "no" })).rejects.toMatchObject({ status: 400 });
    await expect(rejectSchemaVersion(db, ctx.as.ordersOwner, v2.id, { reason: "Not like this." })).rejects.toMatchObject({ status: 403 });
    expect(await rejectSchemaVersion(db, ctx.as.reviewer, v2.id, { reason: "Name the field buyerNote." })).toMatchObject({ status: "REJECTED", decisionReason: "Name the field buyerNote." });
    const v3 = await proposeSchemaVersion(db, ctx.as.ordersOwner, product.id, { definition: record([orderId, amountCents, { ...note, name: "buyerNote" }]) });
    expect(v3.version).toBe(3);
    expect(v3.compatibility).toMatchObject({ checkedVersions: [1] });
  });

  it("checks under the product's own mode: FULL refuses removing a field without a default", async () => {
    const product = await activeProduct("Full Orders", record([orderId, amountCents]), { compatibilityMode: "FULL" });
    expect(product.compatibilityMode).toBe("FULL");
    const error = await proposeSchemaVersion(db, ctx.as.ordersOwner, product.id, { definition: record([orderId]) }).catch((e) => e);
    expect(error.details.issues.map((i: { message: string }) => i.message)).toEqual([
      "field `amountCents` removed without a default: readers of v1 cannot read data written with v2 under FULL",
    ]);
  });

  it("the review shows the field diff, each stricter mode and the readers a FORWARD-incompatible change would break", async () => {
    const product = await activeProduct("Readers Orders", record([orderId, amountCents]));
    const account = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-reconciler" });
    const sub = await requestSubscription(db, ctx.as.paymentsOwner, { productId: product.id, serviceAccountId: account.id, purpose: "Reconcile payments against orders" });
    await approveSubscription(db, ctx.as.ordersOwner, sub.id);
    await db.subscription.update({ where: { id: sub.id }, data: { status: "ACTIVE" } });

    // Removing a field is BACKWARD compatible, but consumers still on v1 need it.
    const v2 = await proposeSchemaVersion(db, ctx.as.ordersOwner, product.id, { definition: record([orderId]) });
    const review = await schemaVersionReview(db, await actor("reviewer"), v2.id);
    expect(review.verdict).toMatchObject({ mode: "BACKWARD", compatible: true });
    expect(review.stricter.map((s) => [s.mode, s.compatible])).toEqual([
      ["BACKWARD_TRANSITIVE", true],
      ["FULL", false],
      ["FULL_TRANSITIVE", false],
    ]);
    expect(review.fieldChanges.map((c) => [c.path, c.change])).toEqual([
      ["orderId", "unchanged"],
      ["amountCents", "removed"],
    ]);
    expect(review.readers).toEqual([{ id: sub.id, status: "ACTIVE", consumingDomain: { slug: "payments", name: "Payments" }, serviceAccount: { name: "payments-reconciler" }, breaks: true }]);
    expect(review.forwardIssues.map((i) => i.message)).toEqual(["field `amountCents` removed without a default: readers of v1 cannot read data written with v2 under FORWARD"]);
    expect(review.fingerprint).toBe(await fingerprintOf(v2.id));
    await expect(schemaVersionReview(db, await actor("paymentsOwner"), v2.id)).rejects.toMatchObject({ status: 403 });

    // Outsiders see approved versions only.
    const outside = await listSchemaVersions(db, await actor("paymentsOwner"), product.id);
    expect(outside.versions.map((v) => [v.version, v.status])).toEqual([[1, "APPROVED"]]);
    const inside = await listSchemaVersions(db, await actor("ordersOwner"), product.id);
    expect(inside.versions.map((v) => [v.version, v.status, v.proposedBy?.email ?? null])).toEqual([
      [2, "PENDING", "owner@orders.test"],
      [1, "APPROVED", null],
    ]);
    expect(inside.versions[1]?.decidedBy?.email).toBe("reviewer@gov.test");
  });
});

describe("changing the compatibility mode", () => {
  it("is a reviewed change with a reason; NONE then lets any change through", async () => {
    const product = await activeProduct("Mode Orders", record([orderId, amountCents]));
    await expect(requestCompatibilityModeChange(db, ctx.as.ordersOwner, product.id, { mode: "NONE", reason: "no" })).rejects.toMatchObject({ status: 400 });
    await expect(requestCompatibilityModeChange(db, ctx.as.ordersOwner, product.id, { mode: "BACKWARD", reason: "Already the mode." })).rejects.toMatchObject({ status: 400 });
    await expect(requestCompatibilityModeChange(db, ctx.as.paymentsOwner, product.id, { mode: "NONE", reason: "Not my product." })).rejects.toMatchObject({ status: 403 });
    const request = await requestCompatibilityModeChange(db, ctx.as.ordersOwner, product.id, { mode: "NONE", reason: "Replaying a corrected history into this topic." });
    expect(request).toMatchObject({ kind: "COMPATIBILITY_MODE", payload: { from: "BACKWARD", to: "NONE" }, status: "REQUESTED" });
    await expect(requestCompatibilityModeChange(db, ctx.as.ordersOwner, product.id, { mode: "FULL", reason: "Second thoughts here." })).rejects.toMatchObject({ status: 409, code: "CHANGE_PENDING" });
    const listed = await listSchemaVersions(db, await actor("ordersOwner"), product.id);
    expect(listed.pendingModeChange).toMatchObject({ id: request.id, to: "NONE" });
    // Until approved the old mode holds.
    await expect(proposeSchemaVersion(db, ctx.as.ordersOwner, product.id, { definition: record([orderId, { name: "amountCents", type: "string" }]) })).rejects.toMatchObject({ code: "INCOMPATIBLE_SCHEMA" });
    await expect(approveChangeRequest(db, ctx.as.ordersOwner, request.id)).rejects.toMatchObject({ status: 403 });
    await approveChangeRequest(db, ctx.as.reviewer, request.id);
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).compatibilityMode).toBe("NONE");
    const v2 = await proposeSchemaVersion(db, ctx.as.ordersOwner, product.id, { definition: record([orderId, { name: "amountCents", type: "string" }]) });
    expect(v2.compatibility).toMatchObject({ mode: "NONE", checkedVersions: [], issues: [] });
  });
});

describe("new major versions", () => {
  it("publishes v2 as a linked product in review, deprecates v1 only when v2 is approved, and lets its subscribers carry their access over in one step", async () => {
    const v1 = await activeProduct("Major Orders", record([orderId, amountCents]), { tags: ["orders", "money"], classification: "CONFIDENTIAL" });
    const account = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-ledger" });
    const sub = await requestSubscription(db, ctx.as.paymentsOwner, { productId: v1.id, serviceAccountId: account.id, purpose: "Book every order in the ledger" });
    await approveSubscription(db, ctx.as.ordersOwner, sub.id);

    const breaking = record([orderId, { name: "amount", type: { type: "record", name: "Money", fields: [{ name: "cents", type: "long" }, { name: "currency", type: "string" }] } }]);
    const sunsetAt = new Date(Date.now() + 30 * 86_400_000);
    await expect(publishMajorVersion(db, ctx.as.paymentsOwner, v1.id, { definition: breaking, sunsetAt })).rejects.toMatchObject({ status: 403 });
    await expect(publishMajorVersion(db, ctx.as.ordersOwner, v1.id, { definition: breaking, sunsetAt: new Date(Date.now() - 1000) })).rejects.toMatchObject({ status: 400 });
    const v2 = await publishMajorVersion(db, ctx.as.ordersOwner, v1.id, { definition: breaking, sunsetAt, reason: "Amounts carry their currency" });
    expect(v2).toMatchObject({
      topicName: "orders.major-orders.v2",
      majorVersion: 2,
      status: "IN_REVIEW",
      predecessorId: v1.id,
      classification: "CONFIDENTIAL",
      tags: ["orders", "money"],
      partitions: v1.partitions,
      compatibilityMode: v1.compatibilityMode,
      submittedById: ctx.people.ordersOwner.id,
    });
    expect(await db.schemaVersion.findMany({ where: { productId: v2.id }, select: { version: true, status: true, definition: true } })).toEqual([{ version: 1, status: "PENDING", definition: breaking }]);
    // Until governance approves v2, v1 is exactly as it was: live, no sunset, no notice to its readers.
    expect(await db.dataProduct.findUniqueOrThrow({ where: { id: v1.id } })).toEqual(v1);
    expect(await successorNotices(db, await actor("paymentsOwner"))).toEqual([]);
    expect(await db.notification.count({ where: { event: { entityId: v1.id, kind: "product.deprecated" } } })).toBe(0);
    await expect(publishMajorVersion(db, ctx.as.ordersOwner, v1.id, { definition: breaking, sunsetAt })).rejects.toMatchObject({ status: 409, code: "SUCCESSOR_EXISTS" });
    // Governance is asked to review v2.
    const asked = await db.notification.findMany({ where: { event: { entityId: v2.id, kind: "product.review-requested" } }, select: { userId: true } });
    expect(asked.map((n) => n.userId).sort()).toEqual([ctx.people.reviewer.id, ctx.people.reviewer2.id].sort());

    // Approving v2 deprecates v1 with the owner's sunset and reason, and tells the subscribing domain.
    await approveProduct(db, ctx.as.reviewer, v2.id);
    const old = await db.dataProduct.findUniqueOrThrow({ where: { id: v1.id } });
    expect(old).toMatchObject({ status: "DEPRECATED", sunsetAt, decisionReason: "Superseded by orders.major-orders.v2: Amounts carry their currency" });
    const told = await db.notification.findMany({ where: { event: { entityId: v1.id, kind: "product.deprecated" } }, select: { userId: true } });
    expect(told.map((n) => n.userId).sort()).toEqual([ctx.people.ordersOwner.id, ctx.people.paymentsOwner.id, ctx.people.paymentsMember.id].sort());
    const [notice] = await successorNotices(db, await actor("paymentsOwner"));
    expect(notice).toMatchObject({
      subscriptionId: sub.id,
      serviceAccount: "payments-ledger",
      product: { id: v1.id, status: "DEPRECATED", sunsetAt },
      successor: { id: v2.id, topicName: "orders.major-orders.v2" },
      carriedOver: null,
    });
    await expect(requestSuccessorAccess(db, ctx.as.ordersOwner, sub.id)).rejects.toMatchObject({ status: 403 });
    const carried = await requestSuccessorAccess(db, ctx.as.paymentsMember, sub.id);
    expect(carried).toMatchObject({ productId: v2.id, serviceAccountId: account.id, purpose: "Book every order in the ledger", status: "REQUESTED", migratedFromId: sub.id, requestedById: ctx.people.paymentsMember.id });
    await expect(requestSuccessorAccess(db, ctx.as.paymentsOwner, sub.id)).rejects.toMatchObject({ status: 409, code: "DUPLICATE_SUBSCRIPTION" });
    expect(await subscriptionSuccessorNotice(db, await actor("paymentsOwner"), sub.id)).toMatchObject({
      successor: { subscribable: true },
      carriedOver: { subscriptionId: carried.id, status: "REQUESTED" },
      canRequest: true,
    });
    // A forged "carried over" request for another account or product is refused.
    const other = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-other" });
    await expect(
      requestSubscription(db, ctx.as.paymentsOwner, { productId: v2.id, serviceAccountId: other.id, purpose: "Book every order in the ledger" }, { fromSubscriptionId: sub.id }),
    ).rejects.toMatchObject({ status: 409, code: "NOT_A_PREDECESSOR" });
  });
});

describe("a new major version waits for its approval", () => {
  const breaking = record([orderId, { name: "amountCents", type: "string" }]);

  it("rejecting v2 leaves v1 exactly as it was", async () => {
    const v1 = await activeProduct("Rejected Major", record([orderId, amountCents]), { tags: ["orders"] });
    const v2 = await publishMajorVersion(db, ctx.as.ordersOwner, v1.id, { definition: breaking, sunsetAt: new Date(Date.now() + 40 * 86_400_000), reason: "Amounts as strings" });
    await rejectProduct(db, ctx.as.reviewer, v2.id, { reason: "Strings for amounts lose the type; keep cents." });
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: v2.id } })).status).toBe("REJECTED");
    expect(await db.dataProduct.findUniqueOrThrow({ where: { id: v1.id } })).toEqual(v1);
    expect(await db.auditEvent.count({ where: { entityId: v1.id, action: "product.deprecated" } })).toBe(0);
  });

  it("without a sunset from the owner, v1 gets the policy's notice counted from v2's approval", async () => {
    const v1 = await activeProduct("Default Sunset", record([orderId, amountCents]));
    const v2 = await publishMajorVersion(db, ctx.as.ordersOwner, v1.id, { definition: breaking });
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: v1.id } })).status).toBe("ACTIVE");
    const before = Date.now();
    await approveProduct(db, ctx.as.reviewer, v2.id);
    const old = await db.dataProduct.findUniqueOrThrow({ where: { id: v1.id } });
    expect(old).toMatchObject({ status: "DEPRECATED", decisionReason: "Superseded by orders.default-sunset.v2." });
    // deprecation.notice in the default policy: 30 days.
    expect(old.sunsetAt?.getTime()).toBeGreaterThanOrEqual(before + 30 * 86_400_000);
    expect(old.sunsetAt?.getTime()).toBeLessThan(Date.now() + 30 * 86_400_000 + 1);
    expect(await db.auditEvent.count({ where: { entityId: v1.id, action: "product.deprecated" } })).toBe(1);
  });
});
