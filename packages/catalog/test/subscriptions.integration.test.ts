import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveProduct,
  approveSubscription,
  catalogFacets,
  createServiceAccount,
  getProduct,
  listAuditEvents,
  loadActor,
  registerProduct,
  rejectSubscription,
  requestSubscription,
  reviewQueue,
  revokeSubscription,
  searchProducts,
  submitForReview,
  subscribableAccounts,
  subscriptionDetail,
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

async function approvedProduct(name: string, overrides: Record<string, unknown> = {}) {
  const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name, ...overrides }));
  await submitForReview(db, ctx.as.ordersOwner, p.id);
  return approveProduct(db, ctx.as.reviewer, p.id);
}

let accountCounter = 0;
const newAccount = () => createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: `payments-app-${++accountCounter}` });

describe("createServiceAccount", () => {
  it("lets owners create accounts for their domain, unique platform-wide", async () => {
    const account = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-ledger" });
    expect(account.name).toBe("payments-ledger");
    await expect(createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-ledger" })).rejects.toMatchObject({
      status: 409,
      code: "DUPLICATE_ACCOUNT",
    });
    await expect(createServiceAccount(db, ctx.as.paymentsMember, { domainId: ctx.payments.id, name: "member-made" })).rejects.toMatchObject({ status: 403 });
    await expect(createServiceAccount(db, ctx.as.ordersOwner, { domainId: ctx.payments.id, name: "cross-domain" })).rejects.toMatchObject({ status: 403 });
    await expect(createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "Bad Name!" })).rejects.toMatchObject({
      status: 400,
      fields: { name: [expect.any(String)] },
    });
    expect(await db.auditEvent.count({ where: { entityId: account.id, action: "serviceAccount.created" } })).toBe(1);
  });
});

describe("subscriptions", () => {
  it("runs request → approve → revoke, queueing exactly one grant and one revoke", async () => {
    const product = await approvedProduct("Sub Journey");
    const account = await newAccount();
    const sub = await requestSubscription(db, ctx.as.paymentsMember, { productId: product.id, serviceAccountId: account.id, purpose: "Reconcile payments with orders." });
    expect(sub.status).toBe("REQUESTED");
    expect(await db.provisioningTask.count({ where: { entityId: sub.id } })).toBe(0);

    const approved = await approveSubscription(db, ctx.as.ordersOwner, sub.id);
    expect(approved.status).toBe("APPROVED");
    const grant = await db.provisioningTask.findFirstOrThrow({ where: { entityId: sub.id } });
    expect(grant.kind).toBe("GRANT_SUBSCRIPTION_ACL");
    expect(grant.payload).toEqual({
      subscriptionId: sub.id,
      principal: `User:${account.name}`,
      topic: "orders.sub-journey.v1",
      topicOperations: ["READ", "DESCRIBE"],
      groupPrefix: `${account.name}.`,
      groupOperations: ["READ"],
    });
    await expect(approveSubscription(db, ctx.as.reviewer, sub.id)).rejects.toMatchObject({ status: 409 });

    await expect(revokeSubscription(db, ctx.as.paymentsOwner, sub.id, {})).rejects.toMatchObject({ status: 400 });
    const revoked = await revokeSubscription(db, ctx.as.paymentsOwner, sub.id, { reason: "No longer needed" });
    expect(revoked.status).toBe("REVOKED");
    const tasks = await db.provisioningTask.findMany({ where: { entityId: sub.id }, orderBy: { step: "asc" } });
    expect(tasks.map((t) => [t.step, t.kind])).toEqual([
      [1, "GRANT_SUBSCRIPTION_ACL"],
      [2, "REVOKE_SUBSCRIPTION_ACL"],
    ]);
    const actions = (await db.auditEvent.findMany({ where: { entityId: sub.id }, orderBy: { id: "asc" } })).map((e) => [e.action, e.actorEmail]);
    expect(actions).toEqual([
      ["subscription.requested", "member@payments.test"],
      ["subscription.approved", "owner@orders.test"],
      ["subscription.revoked", "owner@payments.test"],
    ]);
  });

  it("refuses requests for other domains' accounts, producer accounts, own products and duplicates", async () => {
    const product = await approvedProduct("Sub Refusals");
    const account = await newAccount();
    await expect(requestSubscription(db, ctx.as.ordersOwner, { productId: product.id, serviceAccountId: account.id, purpose: "Borrowing their account." })).rejects.toMatchObject({
      status: 403,
    });
    const producer = await db.serviceAccount.findUniqueOrThrow({ where: { name: "orders-producer" } });
    await expect(requestSubscription(db, ctx.as.ordersOwner, { productId: product.id, serviceAccountId: producer.id, purpose: "Reading our own product." })).rejects.toMatchObject({
      status: 400,
    });
    await requestSubscription(db, ctx.as.paymentsOwner, { productId: product.id, serviceAccountId: account.id, purpose: "First request for access." });
    await expect(requestSubscription(db, ctx.as.paymentsOwner, { productId: product.id, serviceAccountId: account.id, purpose: "Second request for access." })).rejects.toMatchObject({
      status: 409,
      code: "DUPLICATE_SUBSCRIPTION",
    });
  });

  it("neither offers nor accepts a derived product's Flink job account as a subscriber (the worker's; its password is never shown)", async () => {
    const product = await approvedProduct("Sub Job Account");
    const derived = await approvedProduct("Sub Derived Output");
    // The account the worker creates for a payments derived product's job (packages/worker's derived-jobs.ts), as it records it.
    const jobAccount = await db.serviceAccount.create({ data: { domainId: ctx.payments.id, name: "payments-flink-0000000001" } });
    await db.derivedProduct.create({ data: { productId: derived.id, statement: "SELECT 1", serviceAccountId: jobAccount.id } });
    const consumer = await newAccount();
    const offered = (await subscribableAccounts(db, await loadActor(db, ctx.people.paymentsOwner.id))).map((a) => a.name);
    expect(offered).toContain(consumer.name);
    expect(offered).not.toContain(jobAccount.name);
    await expect(requestSubscription(db, ctx.as.paymentsOwner, { productId: product.id, serviceAccountId: jobAccount.id, purpose: "Reading with the job's login." })).rejects.toMatchObject({
      status: 400,
      fields: { serviceAccountId: ["This account runs a derived product's Flink job and cannot subscribe; choose or create a consumer account."] },
    });
    expect(await db.subscription.count({ where: { serviceAccountId: jobAccount.id } })).toBe(0);
  });

  it("refuses subscriptions to products that are not approved yet", async () => {
    const draft = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Still Draft" }));
    const account = await newAccount();
    await expect(requestSubscription(db, ctx.as.paymentsOwner, { productId: draft.id, serviceAccountId: account.id, purpose: "Too early for this." })).rejects.toMatchObject({
      status: 409,
      code: "NOT_SUBSCRIBABLE",
    });
  });

  it("enforces who decides: not the requester, not other domains; RESTRICTED only governance", async () => {
    const product = await approvedProduct("Restricted Data", { classification: "RESTRICTED", retentionMs: 30 * 86_400_000 });
    const account = await newAccount();
    const sub = await requestSubscription(db, ctx.as.paymentsOwner, { productId: product.id, serviceAccountId: account.id, purpose: "Fraud screening of payments." });
    await expect(approveSubscription(db, ctx.as.paymentsOwner, sub.id)).rejects.toMatchObject({ status: 403 });
    await expect(approveSubscription(db, ctx.as.paymentsMember, sub.id)).rejects.toMatchObject({ status: 403 });
    await expect(approveSubscription(db, ctx.as.ordersOwner, sub.id)).rejects.toMatchObject({ status: 403, message: expect.stringMatching(/RESTRICTED/) });
    await expect(rejectSubscription(db, ctx.as.reviewer, sub.id, { reason: "x" })).rejects.toMatchObject({ status: 400 });
    const rejected = await rejectSubscription(db, ctx.as.reviewer, sub.id, { reason: "Use the masked product instead." });
    expect(rejected.status).toBe("REJECTED");
    expect(await db.provisioningTask.count({ where: { entityId: sub.id } })).toBe(0);
  });

  it("auto-approves PUBLIC products only when the owning domain allows it, never CONFIDENTIAL", async () => {
    const publicProduct = await approvedProduct("Public Feed", { classification: "PUBLIC" });
    const confidential = await approvedProduct("Confidential Feed", { classification: "CONFIDENTIAL" });
    const account = await newAccount();
    const manual = await requestSubscription(db, ctx.as.paymentsOwner, { productId: publicProduct.id, serviceAccountId: account.id, purpose: "Before the setting changes." });
    expect(manual.status).toBe("REQUESTED");
    await db.domain.update({ where: { id: ctx.orders.id }, data: { autoApprovePublicSubscriptions: true } });
    try {
      const account2 = await newAccount();
      const auto = await requestSubscription(db, ctx.as.paymentsOwner, { productId: publicProduct.id, serviceAccountId: account2.id, purpose: "After the setting changed." });
      expect(auto.status).toBe("APPROVED");
      expect(await db.provisioningTask.count({ where: { entityId: auto.id, kind: "GRANT_SUBSCRIPTION_ACL" } })).toBe(1);
      const explicit = await requestSubscription(db, ctx.as.paymentsOwner, { productId: confidential.id, serviceAccountId: account2.id, purpose: "Confidential needs a person." });
      expect(explicit.status).toBe("REQUESTED");
    } finally {
      await db.domain.update({ where: { id: ctx.orders.id }, data: { autoApprovePublicSubscriptions: false } });
    }
  });
});

describe("reads", () => {
  it("searches by text, tag, domain, classification and status with pagination", async () => {
    await approvedProduct("Searchable Clicks", { tags: ["clickstream"], description: "Every click on the shop front page." });
    const reviewerActor = await loadActor(db, ctx.people.reviewer.id);
    const search = (input: Record<string, unknown>) => searchProducts(db, reviewerActor, input);
    const byText = await search({ q: "front page" });
    expect(byText.items.map((p) => p.name)).toEqual(["Searchable Clicks"]);
    expect((await search({ q: "CLICKSTREAM" })).items.map((p) => p.name)).toEqual(["Searchable Clicks"]);
    expect((await search({ tag: "clickstream", domain: "orders", status: "APPROVED" })).total).toBe(1);
    expect((await search({ tag: "clickstream", domain: "payments" })).total).toBe(0);
    const page = await search({ pageSize: 2, page: 1, sort: "name" });
    expect(page.items).toHaveLength(2);
    expect(page.pageCount).toBe(Math.ceil(page.total / 2));
    const names = page.items.map((p) => p.name);
    expect([...names].sort((a, b) => a.localeCompare(b))).toEqual(names);
    await expect(search({ classification: "SECRET" })).rejects.toMatchObject({ status: 400 });
  });

  it("hides other domains' unpublished products from search, facets and the product page", async () => {
    const draft = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Secret Draft", tags: ["unreleased"] }));
    const payer = await loadActor(db, ctx.people.paymentsOwner.id);
    const owner = await loadActor(db, ctx.people.ordersOwner.id);
    const reviewer = await loadActor(db, ctx.people.reviewer.id);
    expect((await searchProducts(db, payer, { q: "Secret Draft" })).total).toBe(0);
    expect((await searchProducts(db, owner, { q: "Secret Draft" })).total).toBe(1);
    expect((await searchProducts(db, reviewer, { q: "Secret Draft" })).total).toBe(1);
    expect((await catalogFacets(db, payer)).tags).not.toContain("unreleased");
    expect((await catalogFacets(db, owner)).tags).toContain("unreleased");
    await expect(getProduct(db, payer, draft.id)).rejects.toMatchObject({ status: 404 });
    expect((await getProduct(db, owner, draft.id)).name).toBe("Secret Draft");
  });

  it("shows every subscription to owners and governance, only their own to consumers", async () => {
    const product = await approvedProduct("Visibility");
    const account = await newAccount();
    await requestSubscription(db, ctx.as.paymentsOwner, { productId: product.id, serviceAccountId: account.id, purpose: "Visibility check request." });
    const asOwner = await getProduct(db, await loadActor(db, ctx.people.ordersOwner.id), product.id);
    expect(asOwner.subscriptions).toHaveLength(1);
    expect(asOwner.viewer.isOwner).toBe(true);
    expect(asOwner.provisioning.map((s) => s.status)).toEqual(["PENDING", "PENDING", "PENDING"]);
    const outsider = await db.user.create({ data: { email: "outsider@x.test", name: "Outsider" } });
    const asOutsider = await getProduct(db, await loadActor(db, outsider.id), product.id);
    expect(asOutsider.subscriptions).toHaveLength(0);
    expect(asOutsider.viewer.isOwner).toBe(false);
  });

  it("gives governance the whole queue and owners the requests for their products", async () => {
    const queueGov = await reviewQueue(db, await loadActor(db, ctx.people.reviewer.id));
    const queueOwner = await reviewQueue(db, await loadActor(db, ctx.people.ordersOwner.id));
    expect(queueGov.subscriptions.length).toBeGreaterThanOrEqual(queueOwner.subscriptions.length);
    expect(queueOwner.products).toEqual([]);
    expect(queueOwner.subscriptions.every((s) => s.product.domainId === ctx.orders.id)).toBe(true);
    await expect(reviewQueue(db, await loadActor(db, ctx.people.paymentsMember.id))).rejects.toMatchObject({ status: 403 });
  });

  it("limits the audit log to governance and admins, and owners for their own products", async () => {
    const product = await approvedProduct("Audited");
    const all = await listAuditEvents(db, await loadActor(db, ctx.people.reviewer.id), { actor: "owner@orders" });
    expect(all.items.every((e) => e.actorEmail === "owner@orders.test")).toBe(true);
    const owners = await listAuditEvents(db, await loadActor(db, ctx.people.ordersOwner.id), { entityType: "DataProduct", entityId: product.id });
    expect(owners.items.map((e) => e.action)).toEqual(["product.approved", "product.submitted", "product.registered"]);
    await expect(listAuditEvents(db, await loadActor(db, ctx.people.paymentsOwner.id), {})).rejects.toMatchObject({ status: 403 });
    await expect(listAuditEvents(db, await loadActor(db, ctx.people.paymentsOwner.id), { entityType: "DataProduct", entityId: product.id })).rejects.toMatchObject({
      status: 403,
    });
  });
});

describe("a subscription in another environment", () => {
  it("says it waits for the worker there, and that credentials from before sealing need one rotation", async () => {
    const product = await approvedProduct("Sub Elsewhere");
    const account = await newAccount();
    await db.cluster.create({ data: { environment: "prodwait", bootstrap: "kafka.prodwait.example:9093", securityProtocol: "SASL_SSL", saslMechanism: "scram-sha-512" } });
    const sub = await db.subscription.create({
      data: { productId: product.id, consumingDomainId: ctx.payments.id, serviceAccountId: account.id, purpose: "Reconcile in prodwait.", status: "APPROVED", requestedById: ctx.people.paymentsOwner.id, environment: "prodwait" },
    });
    const owner = await loadActor(db, ctx.people.paymentsOwner.id);
    const detail = () => subscriptionDetail(db, owner, sub.id, "localhost:9092");

    // No credentials yet: the worker issues them on that cluster itself.
    expect((await detail()).environmentWait).toEqual({ environment: "prodwait", needsRotation: false });
    // Issued before credentials were sealed for other environments: only a rotation can carry them there.
    await db.serviceAccount.update({ where: { id: account.id }, data: { secretHash: "scrypt$legacy", secretIssuedAt: new Date() } });
    expect((await detail()).environmentWait).toEqual({ environment: "prodwait", needsRotation: true });
    // A sealed issue (what every issue since writes) can be installed there.
    await db.serviceAccount.update({ where: { id: account.id }, data: { scramSealed: "sealed-credential" } });
    expect((await detail()).environmentWait).toEqual({ environment: "prodwait", needsRotation: false });
    // ACTIVE there, or a subscription on the primary environment: nothing to wait for.
    await db.subscription.update({ where: { id: sub.id }, data: { status: "ACTIVE" } });
    expect((await detail()).environmentWait).toBeNull();
    const primary = await requestSubscription(db, ctx.as.paymentsMember, { productId: product.id, serviceAccountId: (await newAccount()).id, purpose: "Reconcile on the primary." });
    await approveSubscription(db, ctx.as.ordersOwner, primary.id);
    expect((await subscriptionDetail(db, owner, primary.id, "localhost:9092")).environmentWait).toBeNull();
  });
});
