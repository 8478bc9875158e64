import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveProduct,
  approveSubscription,
  assertFourEyes,
  createServiceAccount,
  fourEyesConflict,
  registerProduct,
  rejectProduct,
  requestSubscription,
  submitForReview,
  updateProduct,
  type Db,
} from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/* Issue 8, finding 3: nobody approves what they created, submitted, requested or changed since the last decision. */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
  // A governance reviewer who is also an owner of the orders domain.
  await db.membership.create({ data: { userId: ctx.people.reviewer2.id, domainId: ctx.orders.id, role: "OWNER" } });
});
afterAll(async () => dispose());

describe("four eyes", () => {
  it("the helper names the part the actor played", () => {
    const record = { createdById: "a", submittedById: "b", requestedById: null, editorIds: ["c", "d"] };
    expect(fourEyesConflict("a", record)).toBe("creator");
    expect(fourEyesConflict("b", record)).toBe("submitter");
    expect(fourEyesConflict("d", record)).toBe("editor");
    expect(fourEyesConflict("e", record)).toBeNull();
    expect(() => assertFourEyes({ id: "c" }, record, "this product")).toThrow(/changed since the last decision/);
  });

  it("a reviewer who edited a product's schema or classification cannot approve it", async () => {
    const product = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Edited Events" }));
    await updateProduct(db, ctx.as.reviewer2, product.id, { classification: "PUBLIC" });
    await submitForReview(db, ctx.as.ordersOwner, product.id);
    await expect(approveProduct(db, ctx.as.reviewer2, product.id)).rejects.toMatchObject({ status: 403, code: "FOUR_EYES" });
    await expect(rejectProduct(db, ctx.as.reviewer2, product.id, { reason: "Looks fine to me" })).rejects.toMatchObject({ code: "FOUR_EYES" });
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).status).toBe("IN_REVIEW");

    // Another reviewer decides; the decision clears the editors.
    await rejectProduct(db, ctx.as.reviewer, product.id, { reason: "Describe the schema's fields." });
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).editorIds).toEqual([]);
    await updateProduct(db, ctx.as.ordersOwner, product.id, { description: "Every edited order, with its fields described." });
    await submitForReview(db, ctx.as.ordersOwner, product.id);
    // reviewer2's edit was before the last decision: now they may approve.
    expect((await approveProduct(db, ctx.as.reviewer2, product.id)).status).toBe("APPROVED");
  });

  it("the creator, the submitter and the requester never decide", async () => {
    const own = await registerProduct(db, ctx.as.reviewer2, productInput(ctx.orders.id, { name: "Reviewer Made" }));
    await submitForReview(db, ctx.as.ordersOwner, own.id);
    await expect(approveProduct(db, ctx.as.reviewer2, own.id)).rejects.toMatchObject({ code: "FOUR_EYES", message: expect.stringContaining("created") });

    const active = await db.dataProduct.findFirstOrThrow({ where: { name: "Edited Events" } });
    const account = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-four-eyes" });
    const sub = await requestSubscription(db, ctx.as.paymentsOwner, { productId: active.id, serviceAccountId: account.id, purpose: "Reconcile payments with orders." });
    // The requester is an owner of the consuming domain, and governance... but not for their own request.
    await db.user.update({ where: { id: ctx.people.paymentsOwner.id }, data: { globalRole: "GOVERNANCE" } });
    await expect(approveSubscription(db, ctx.as.paymentsOwner, sub.id)).rejects.toMatchObject({ code: "FOUR_EYES", message: expect.stringContaining("requested") });
    await db.user.update({ where: { id: ctx.people.paymentsOwner.id }, data: { globalRole: "USER" } });
    // Someone who changed the request since it was made may not decide either.
    await db.subscription.update({ where: { id: sub.id }, data: { editorIds: [ctx.people.ordersOwner.id] } });
    await expect(approveSubscription(db, ctx.as.ordersOwner, sub.id)).rejects.toMatchObject({ code: "FOUR_EYES" });
    expect((await approveSubscription(db, ctx.as.reviewer, sub.id)).status).toBe("APPROVED");
  });
});
