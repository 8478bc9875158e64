import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveProduct,
  deprecateProduct,
  registerProduct,
  rejectProduct,
  submitForReview,
  updateProduct,
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

const auditFor = (id: string) => db.auditEvent.findMany({ where: { entityId: id }, orderBy: { id: "asc" } });

describe("registerProduct", () => {
  it("creates a DRAFT with schema v1, the derived topic and one audit event", async () => {
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Register Me" }));
    expect(p.status).toBe("DRAFT");
    expect(p.topicName).toBe("orders.register-me.v1");
    expect(p.retentionMs).toBe(-1n);
    const schemas = await db.schemaVersion.findMany({ where: { productId: p.id } });
    expect(schemas.map((s) => [s.version, s.status])).toEqual([[1, "PENDING"]]);
    expect((await auditFor(p.id)).map((e) => [e.action, e.actorEmail])).toEqual([["product.registered", "owner@orders.test"]]);
  });

  it("refuses a non-owner of the domain and writes nothing", async () => {
    const before = await db.dataProduct.count();
    await expect(registerProduct(db, ctx.as.paymentsOwner, productInput(ctx.orders.id, { name: "Not Yours" }))).rejects.toMatchObject({ status: 403 });
    await expect(registerProduct(db, ctx.as.reviewer, productInput(ctx.orders.id, { name: "Not Yours" }))).rejects.toMatchObject({ status: 403 });
    await expect(registerProduct(db, ctx.as.paymentsMember, productInput(ctx.payments.id, { name: "Member" }))).rejects.toMatchObject({ status: 403 });
    expect(await db.dataProduct.count()).toBe(before);
  });

  it("refuses bad input with field errors and writes nothing", async () => {
    const before = await db.auditEvent.count();
    const error = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { partitions: 0, name: "" })).catch((e) => e);
    expect(error).toMatchObject({ status: 400, code: "VALIDATION_FAILED" });
    expect(Object.keys(error.fields).sort()).toEqual(["name", "partitions"]);
    expect(await db.auditEvent.count()).toBe(before);
  });

  it("refuses a duplicate name in the same domain with 409", async () => {
    await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Twice" }));
    await expect(registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "twice" }))).rejects.toMatchObject({
      status: 409,
      code: "DUPLICATE_PRODUCT",
    });
  });
});

describe("review", () => {
  it("runs submit → approve, approving the schema and queueing the provisioning plan exactly once", async () => {
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Approve Me", tieredStorage: true, localRetentionMs: 600_000 }));
    await submitForReview(db, ctx.as.ordersOwner, p.id);
    const approved = await approveProduct(db, ctx.as.reviewer, p.id);
    expect(approved.status).toBe("APPROVED");
    expect((await db.schemaVersion.findFirstOrThrow({ where: { productId: p.id } })).status).toBe("APPROVED");
    const tasks = await db.provisioningTask.findMany({ where: { entityId: p.id }, orderBy: { step: "asc" } });
    expect(tasks.map((t) => [t.step, t.kind, t.status])).toEqual([
      [1, "CREATE_TOPIC", "PENDING"],
      [2, "ENSURE_SERVICE_ACCOUNT", "PENDING"],
      [3, "GRANT_PRODUCER_ACL", "PENDING"],
    ]);
    expect(tasks[0]?.payload).toEqual({
      topic: "orders.approve-me.v1",
      partitions: 6,
      configs: { "retention.ms": "-1", "cleanup.policy": "delete", "remote.storage.enable": "true", "local.retention.ms": "600000", "segment.ms": "600000" },
    });
    expect(tasks[2]?.payload).toMatchObject({ principal: "User:orders-producer", operations: ["WRITE", "DESCRIBE"], cluster: ["IDEMPOTENT_WRITE"] });
    const producer = await db.serviceAccount.findUniqueOrThrow({ where: { name: "orders-producer" } });
    expect(producer.isProducer).toBe(true);
    expect((await auditFor(p.id)).map((e) => e.action)).toEqual(["product.registered", "product.submitted", "product.approved"]);

    // Approving again is an invalid transition and queues nothing more.
    await expect(approveProduct(db, ctx.as.reviewer2, p.id)).rejects.toMatchObject({ status: 409, code: "INVALID_TRANSITION" });
    expect(await db.provisioningTask.count({ where: { entityId: p.id } })).toBe(3);
  });

  it("serialises concurrent approvals: one wins, one is refused, one plan is queued", async () => {
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Race" }));
    await submitForReview(db, ctx.as.ordersOwner, p.id);
    const results = await Promise.allSettled([approveProduct(db, ctx.as.reviewer, p.id), approveProduct(db, ctx.as.reviewer2, p.id)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(results.filter((r) => r.status === "rejected")).toHaveLength(1);
    expect(await db.provisioningTask.count({ where: { entityId: p.id } })).toBe(3);
    expect(await db.auditEvent.count({ where: { entityId: p.id, action: "product.approved" } })).toBe(1);
  });

  it("enforces four eyes: a reviewer cannot approve what they submitted", async () => {
    // A reviewer who also owns a domain registers and submits a product there.
    await db.membership.create({ data: { userId: ctx.people.reviewer2.id, domainId: ctx.orders.id, role: "OWNER" } });
    try {
      const p = await registerProduct(db, ctx.as.reviewer2, productInput(ctx.orders.id, { name: "Self Review" }));
      await submitForReview(db, ctx.as.reviewer2, p.id);
      await expect(approveProduct(db, ctx.as.reviewer2, p.id)).rejects.toMatchObject({ status: 403, message: expect.stringMatching(/Four-eyes/) });
      await expect(rejectProduct(db, ctx.as.reviewer2, p.id, { reason: "I changed my mind" })).rejects.toMatchObject({ status: 403 });
      expect((await db.dataProduct.findUniqueOrThrow({ where: { id: p.id } })).status).toBe("IN_REVIEW");
      expect(await db.provisioningTask.count({ where: { entityId: p.id } })).toBe(0);
    } finally {
      await db.membership.delete({ where: { userId_domainId: { userId: ctx.people.reviewer2.id, domainId: ctx.orders.id } } });
    }
  });

  it("only governance approves; owners and admins cannot", async () => {
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Gov Only" }));
    await submitForReview(db, ctx.as.ordersOwner, p.id);
    await expect(approveProduct(db, ctx.as.ordersOwner, p.id)).rejects.toMatchObject({ status: 403 });
    await expect(approveProduct(db, ctx.as.admin, p.id)).rejects.toMatchObject({ status: 403 });
    await expect(approveProduct(db, ctx.as.paymentsOwner, p.id)).rejects.toMatchObject({ status: 403 });
  });

  it("rejects only with a reason; the owner edits (back to DRAFT) and resubmits", async () => {
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Reject Me" }));
    await submitForReview(db, ctx.as.ordersOwner, p.id);
    await expect(rejectProduct(db, ctx.as.reviewer, p.id, { reason: "" })).rejects.toMatchObject({ status: 400, fields: { reason: [expect.any(String)] } });
    await expect(rejectProduct(db, ctx.as.reviewer, p.id, {})).rejects.toMatchObject({ status: 400 });
    const rejected = await rejectProduct(db, ctx.as.reviewer, p.id, { reason: "Describe the payload fields." });
    expect(rejected.status).toBe("REJECTED");
    expect(rejected.decisionReason).toBe("Describe the payload fields.");
    const edited = await updateProduct(db, ctx.as.ordersOwner, p.id, { description: "Every order placed, with all payload fields described." });
    expect(edited.status).toBe("DRAFT");
    expect((await submitForReview(db, ctx.as.ordersOwner, p.id)).status).toBe("IN_REVIEW");
    expect((await auditFor(p.id)).map((e) => e.action)).toEqual([
      "product.registered",
      "product.submitted",
      "product.rejected",
      "product.updated",
      "product.submitted",
    ]);
  });

  it("refuses invalid transitions with a clear error", async () => {
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Transitions" }));
    await expect(approveProduct(db, ctx.as.reviewer, p.id)).rejects.toThrow("Cannot approve a product that is DRAFT.");
    await expect(deprecateProduct(db, ctx.as.ordersOwner, p.id, { reason: "Replaced by v2", sunsetAt: new Date(Date.now() + 86_400_000) })).rejects.toMatchObject({
      status: 409,
      code: "INVALID_TRANSITION",
    });
    await submitForReview(db, ctx.as.ordersOwner, p.id);
    await expect(submitForReview(db, ctx.as.ordersOwner, p.id)).rejects.toMatchObject({ status: 409 });
    await expect(updateProduct(db, ctx.as.ordersOwner, p.id, { description: "Editing while in review." })).rejects.toMatchObject({ status: 409 });
  });
});

describe("updateProduct and deprecateProduct", () => {
  it("lets the owner change only metadata once approved", async () => {
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Locked Shape" }));
    await submitForReview(db, ctx.as.ordersOwner, p.id);
    await approveProduct(db, ctx.as.reviewer, p.id);
    const updated = await updateProduct(db, ctx.as.ordersOwner, p.id, { description: "New words for the same stream.", tags: ["orders", "v1"] });
    expect(updated.tags).toEqual(["orders", "v1"]);
    const error = await updateProduct(db, ctx.as.ordersOwner, p.id, { partitions: 12 }).catch((e) => e);
    expect(error).toMatchObject({ status: 409, code: "FIELD_LOCKED", fields: { partitions: [expect.stringMatching(/new major version/)] } });
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: p.id } })).partitions).toBe(6);
    // Sending the whole form back with locked fields unchanged is fine.
    const resent = await updateProduct(db, ctx.as.ordersOwner, p.id, { ...productInput(ctx.orders.id, { name: "Locked Shape", tags: ["orders", "v1"] }), domainId: undefined, description: "A third wording of the stream." });
    expect(resent.description).toBe("A third wording of the stream.");
    expect((await db.auditEvent.findFirstOrThrow({ where: { entityId: p.id }, orderBy: { id: "desc" } })).data).toMatchObject({ fields: ["description"] });
  });

  it("refuses edits from another domain's owner (403) and keeps the row", async () => {
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Mine Alone" }));
    await expect(updateProduct(db, ctx.as.paymentsOwner, p.id, { description: "Hijacked description." })).rejects.toMatchObject({ status: 403 });
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: p.id } })).description).toBe("Every order placed, as it happens.");
    expect(await db.auditEvent.count({ where: { entityId: p.id, action: "product.updated" } })).toBe(0);
  });

  it("renames a draft and its topic together", async () => {
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Old Name" }));
    const renamed = await updateProduct(db, ctx.as.ordersOwner, p.id, { name: "New Name" });
    expect(renamed.topicName).toBe("orders.new-name.v1");
  });

  it("deprecates an ACTIVE product with a sunset date", async () => {
    const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "To Deprecate" }));
    await submitForReview(db, ctx.as.ordersOwner, p.id);
    await approveProduct(db, ctx.as.reviewer, p.id);
    // The worker (a later issue) activates products; here we stand in for it.
    await db.dataProduct.update({ where: { id: p.id }, data: { status: "ACTIVE" } });
    const sunsetAt = new Date(Date.now() + 30 * 86_400_000);
    await expect(deprecateProduct(db, ctx.as.paymentsOwner, p.id, { reason: "Replaced by v2", sunsetAt })).rejects.toMatchObject({ status: 403 });
    await expect(deprecateProduct(db, ctx.as.ordersOwner, p.id, { reason: "Replaced by v2", sunsetAt: new Date(Date.now() - 1000) })).rejects.toMatchObject({
      status: 400,
    });
    const deprecated = await deprecateProduct(db, ctx.as.ordersOwner, p.id, { reason: "Replaced by v2", sunsetAt });
    expect(deprecated.status).toBe("DEPRECATED");
    expect(deprecated.sunsetAt?.toISOString()).toBe(sunsetAt.toISOString());
  });
});

describe("secret columns", () => {
  it("are left out of every read unless asked for by name", async () => {
    await db.user.update({ where: { id: ctx.people.admin.id }, data: { passwordHash: "scrypt$1$1$1$x$y" } });
    const user = await db.user.findUniqueOrThrow({ where: { id: ctx.people.admin.id } });
    expect(user).not.toHaveProperty("passwordHash");
    const account = await db.serviceAccount.create({ data: { domainId: ctx.orders.id, name: "omit-check", secretHash: "h", secretCiphertext: "c" } });
    expect(account).not.toHaveProperty("secretHash");
    expect(account).not.toHaveProperty("secretCiphertext");
    const explicit = await db.serviceAccount.findUniqueOrThrow({ where: { id: account.id }, omit: { secretHash: false } });
    expect(explicit.secretHash).toBe("h");
  });
});

describe("audit log", () => {
  it("is append-only in the database itself", async () => {
    await expect(db.auditEvent.deleteMany({})).rejects.toThrow(/append-only/);
    await expect(db.auditEvent.updateMany({ data: { action: "x" } })).rejects.toThrow(/append-only/);
  });
});
