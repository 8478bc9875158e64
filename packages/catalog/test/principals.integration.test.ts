import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addReservedPrincipal,
  createDomain,
  approveProduct,
  listReservedPrincipals,
  loadActor,
  removeReservedPrincipal,
  assertDomainSlugAvailable,
  createServiceAccount,
  recordWorkerPrincipals,
  registerProduct,
  requestCredentialRotation,
  requestSubscription,
  submitForReview,
  type Db,
} from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/*
 * Issue 8, findings 1 and 2: a domain owner must not be able to name an
 * account after a principal the platform or the cluster treats specially, nor
 * squat another domain's namespace (its producer above all).
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

const create = (who: keyof typeof ctx.as, domainId: string, name: string) => createServiceAccount(db, ctx.as[who], { domainId, name });

describe("service account names", () => {
  it("refuses the worker's admin user and other platform principals (takeover)", async () => {
    for (const name of ["kappa-admin", "kappa-message-browser", "ANONYMOUS", "anonymous"]) {
      const refused = create("paymentsOwner", ctx.payments.id, name);
      await expect(refused).rejects.toMatchObject({ status: 400, fields: { name: [expect.stringContaining("payments-")] } });
    }
    // An admin user that lies inside a domain's namespace is reserved by the
    // worker at start (KAFKA_ADMIN_USER), as are the cluster's super.users.
    await recordWorkerPrincipals(db, { adminUser: "payments-admin", superUsers: ["User:payments-root", "User:payments-admin"] });
    for (const name of ["payments-admin", "payments-root"]) {
      await expect(create("paymentsOwner", ctx.payments.id, name)).rejects.toMatchObject({
        status: 400,
        fields: { name: [expect.stringMatching(/reserved/)] },
      });
    }
    expect(await db.reservedPrincipal.count({ where: { source: "worker" } })).toBe(2);
    expect(await db.serviceAccount.count()).toBe(0);
  });

  it("refuses another domain's namespace and the platform's producer name (squatting)", async () => {
    await expect(create("paymentsOwner", ctx.payments.id, "orders-producer")).rejects.toMatchObject({ status: 400 });
    await expect(create("paymentsOwner", ctx.payments.id, "orders-analytics")).rejects.toMatchObject({ status: 400 });
    // Producer accounts are the platform's, even in one's own domain.
    await expect(create("ordersOwner", ctx.orders.id, "orders-producer")).rejects.toMatchObject({
      status: 400,
      fields: { name: [expect.stringContaining("producer account")] },
    });
    // A longer domain slug owns its namespace inside a shorter one's.
    const eu = await db.domain.create({ data: { slug: "orders-eu", name: "Orders EU" } });
    await expect(create("ordersOwner", ctx.orders.id, "orders-eu-analytics")).rejects.toMatchObject({
      status: 400,
      fields: { name: [expect.stringContaining("orders-eu domain")] },
    });
    await db.domain.delete({ where: { id: eu.id } });
    expect((await create("ordersOwner", ctx.orders.id, "orders-analytics")).name).toBe("orders-analytics");
  });

  it("refuses dots, so consumer-group prefixes cannot nest", async () => {
    await expect(create("paymentsOwner", ctx.payments.id, "payments-app.eu")).rejects.toMatchObject({
      status: 400,
      fields: { name: [expect.stringContaining('"."')] },
    });
  });

  it("refuses domain slugs under a reserved prefix or over another domain's accounts", async () => {
    await expect(db.$transaction((tx) => assertDomainSlugAvailable(tx, "kappa"))).rejects.toMatchObject({ status: 400, fields: { slug: [expect.any(String)] } });
    // The domain's own accounts do not block its own slug (a rename keeping it).
    await expect(db.$transaction((tx) => assertDomainSlugAvailable(tx, "orders", ctx.orders.id))).resolves.toBeUndefined();
    await expect(db.$transaction((tx) => assertDomainSlugAvailable(tx, "orders"))).rejects.toMatchObject({ fields: { slug: [expect.stringContaining("orders-analytics")] } });
    await db.serviceAccount.create({ data: { domainId: ctx.orders.id, name: "orders-crm-sync" } });
    await expect(db.$transaction((tx) => assertDomainSlugAvailable(tx, "orders-crm"))).rejects.toMatchObject({ fields: { slug: [expect.stringContaining("orders-crm-sync")] } });
    // The admin action that creates domains applies it.
    await expect(createDomain(db, ctx.as.admin, { slug: "kappa", name: "Kappa" })).rejects.toMatchObject({ status: 400, fields: { slug: expect.any(Array) } });
    await expect(createDomain(db, ctx.as.admin, { slug: "orders-crm", name: "CRM" })).rejects.toMatchObject({ status: 400 });
  });
});

describe("reserved principals managed by admins", () => {
  it("an admin-added prefix is refused at creation; platform and worker entries cannot be removed", async () => {
    await expect(addReservedPrincipal(db, ctx.as.paymentsOwner, { name: "payments-legacy", match: "PREFIX", reason: "old ETL users" })).rejects.toMatchObject({ status: 403 });
    const added = await addReservedPrincipal(db, ctx.as.admin, { name: "User:payments-legacy", match: "PREFIX", reason: "old ETL users" });
    expect(added.name).toBe("payments-legacy");
    await expect(create("paymentsOwner", ctx.payments.id, "payments-legacy-etl")).rejects.toMatchObject({ fields: { name: [expect.stringContaining("old ETL users")] } });
    const list = await listReservedPrincipals(db, await loadActor(db, ctx.people.admin.id));
    const platform = list.items.find((r) => r.name === "kappa-");
    expect(platform).toMatchObject({ source: "platform", removable: false });
    await expect(removeReservedPrincipal(db, ctx.as.admin, platform!.id)).rejects.toMatchObject({ code: "RESERVED_BY_PLATFORM" });
    await removeReservedPrincipal(db, ctx.as.admin, added.id);
    expect((await create("paymentsOwner", ctx.payments.id, "payments-legacy-etl")).name).toBe("payments-legacy-etl");
  });
});

describe("approval never reuses a foreign account as producer", () => {
  it("refuses the approval and writes nothing when <slug>-producer belongs to another domain", async () => {
    // A row from before the naming rules: payments squatted orders' producer name.
    const squat = await db.serviceAccount.create({ data: { domainId: ctx.payments.id, name: "orders-producer" } });
    const product = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Squatted Events" }));
    await submitForReview(db, ctx.as.ordersOwner, product.id);
    await expect(approveProduct(db, ctx.as.reviewer, product.id)).rejects.toMatchObject({ status: 409, code: "PRODUCER_NAME_TAKEN" });
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).status).toBe("IN_REVIEW");
    expect(await db.provisioningTask.count({ where: { entityId: product.id } })).toBe(0);
    // Nor can the squatter's account be used for anything the platform manages.
    await expect(requestCredentialRotation(db, ctx.as.paymentsOwner, squat.id)).rejects.toMatchObject({ status: 409, code: "PRINCIPAL_NOT_MANAGED" });
    await db.serviceAccount.delete({ where: { id: squat.id } });
    const approved = await approveProduct(db, ctx.as.reviewer, product.id);
    expect(approved.status).toBe("APPROVED");
    const producer = await db.serviceAccount.findFirstOrThrow({ where: { domainId: ctx.orders.id, isProducer: true } });
    expect(producer.name).toBe("orders-producer");
  });

  it("refuses subscriptions for a reserved principal left over from before the rules", async () => {
    const legacy = await db.serviceAccount.create({ data: { domainId: ctx.payments.id, name: "kappa-admin" } });
    const product = await db.dataProduct.findFirstOrThrow({ where: { name: "Squatted Events" } });
    await expect(
      requestSubscription(db, ctx.as.paymentsOwner, { productId: product.id, serviceAccountId: legacy.id, purpose: "Take over the cluster." }),
    ).rejects.toMatchObject({ status: 409, code: "PRINCIPAL_NOT_MANAGED", message: expect.stringContaining("User:kappa-admin") });
  });
});

describe("concurrent duplicates", () => {
  it("twenty identical subscription requests at once make one subscription", async () => {
    const product = await db.dataProduct.findFirstOrThrow({ where: { name: "Squatted Events" } });
    const account = await create("paymentsOwner", ctx.payments.id, "payments-burst");
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => requestSubscription(db, ctx.as.paymentsOwner, { productId: product.id, serviceAccountId: account.id, purpose: "Reconcile payments with orders, in a burst." })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(results.filter((r) => r.status === "rejected").every((r) => (r).reason?.code === "DUPLICATE_SUBSCRIPTION")).toBe(true);
    expect(await db.subscription.count({ where: { serviceAccountId: account.id } })).toBe(1);
  });
});

describe("credential rotation", () => {
  it("queues one task for twenty concurrent requests", async () => {
    const account = await create("paymentsOwner", ctx.payments.id, "payments-rotating");
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => requestCredentialRotation(db, ctx.as.paymentsOwner, account.id)));
    const ok = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    expect(ok).toHaveLength(20);
    expect(new Set(ok.map((t) => t.id)).size).toBe(1);
    const tasks = await db.provisioningTask.findMany({ where: { entityId: account.id } });
    expect(tasks).toHaveLength(1);
    expect(tasks[0]?.step).toBe(1);
    expect(await db.auditEvent.count({ where: { entityId: account.id, action: "serviceAccount.rotation.requested" } })).toBe(1);
    // Once the worker finished it, the next request is a new rotation with the next step.
    await db.provisioningTask.update({ where: { id: tasks[0]!.id }, data: { status: "DONE" } });
    const next = await requestCredentialRotation(db, ctx.as.paymentsOwner, account.id);
    expect(next.step).toBe(2);
  });
});
