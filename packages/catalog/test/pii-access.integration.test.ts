import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveProduct, approveSubscription, approveSubscriptionPii, createServiceAccount, loadActor, recordViewer, registerProduct, requestSubscription, submitForReview, type Db } from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;
let productId = "";

const piiSchema = JSON.stringify({ type: "record", name: "Customer", fields: [{ name: "orderId", type: "string" }, { name: "email", type: "string", pii: true }] });

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
  const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Customer Orders", classification: "CONFIDENTIAL", schema: { format: "AVRO", definition: piiSchema } }));
  await submitForReview(db, ctx.as.ordersOwner, p.id);
  await approveProduct(db, ctx.as.reviewer, p.id);
  await db.dataProduct.update({ where: { id: p.id }, data: { status: "ACTIVE" } });
  productId = p.id;
});
afterAll(async () => dispose());

let n = 0;
async function request(pii: { piiNeeded?: boolean; piiJustification?: string }) {
  const account = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: `payments-pii-${++n}` });
  return requestSubscription(db, ctx.as.paymentsOwner, { productId, serviceAccountId: account.id, purpose: "Refund customers by e-mail when an order fails.", ...pii });
}
const viewer = async () => recordViewer(db, await loadActor(db, ctx.people.paymentsMember.id), productId);

describe("PII needed", () => {
  it("asks for a justification", async () => {
    await expect(request({ piiNeeded: true })).rejects.toMatchObject({ fields: { piiJustification: [expect.stringContaining("why you need the personal data")] } });
  });

  it("an owner's approval grants access with PII masked; only governance grants the PII, not twice, never to the requester", async () => {
    const sub = await request({ piiNeeded: true, piiJustification: "Refund e-mails need the customer's address." });
    expect(sub).toMatchObject({ piiRequested: true, piiApprovedAt: null });
    await approveSubscription(db, ctx.as.ordersOwner, sub.id);
    expect((await db.subscription.findUniqueOrThrow({ where: { id: sub.id } })).piiApprovedAt).toBeNull();
    expect((await viewer()).piiVisible).toBe(false);
    expect((await viewer()).sensitivePaths).toEqual(["email"]);
    await expect(approveSubscriptionPii(db, ctx.as.ordersOwner, sub.id)).rejects.toMatchObject({ status: 403 });
    await approveSubscriptionPii(db, ctx.as.reviewer, sub.id);
    expect((await viewer()).piiVisible).toBe(true);
    await expect(approveSubscriptionPii(db, ctx.as.reviewer2, sub.id)).rejects.toMatchObject({ code: "PII_ALREADY_APPROVED" });
    expect(await db.auditEvent.count({ where: { entityId: sub.id, action: "subscription.pii-approved" } })).toBe(1);
  });

  it("a governance approval of a PII request grants both; a request without the need is never unmasked", async () => {
    await db.subscription.updateMany({ where: { productId }, data: { status: "REVOKED" } });
    const plain = await request({});
    await approveSubscription(db, ctx.as.reviewer, plain.id);
    expect((await viewer()).piiVisible).toBe(false);
    await expect(approveSubscriptionPii(db, ctx.as.reviewer, plain.id)).rejects.toMatchObject({ code: "PII_NOT_REQUESTED" });
    const pii = await request({ piiNeeded: true, piiJustification: "Fraud checks compare e-mail domains." });
    await approveSubscription(db, ctx.as.reviewer, pii.id);
    expect((await db.subscription.findUniqueOrThrow({ where: { id: pii.id } })).piiApprovedById).toBe(ctx.people.reviewer.id);
    expect((await viewer()).piiVisible).toBe(true);
  });
});
