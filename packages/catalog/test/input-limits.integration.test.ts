import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawInputProblems } from "../src/action.ts";
import { createServiceAccount, createWebhook, listAuditEvents, loadActor, registerProduct, requestSubscription, searchProducts, type Db } from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/* Issue 8, finding 8: NUL bytes and over-long strings are refused with a 400 naming the field, never a 500 from PostgreSQL. */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

describe("input limits", () => {
  it("refuses NUL in any string field, naming it", async () => {
    const cases: [string, Record<string, unknown>][] = [
      ["name", { name: "Order\u0000Events" }],
      ["description", { description: "Every order placed\u0000, as it happens." }],
      ["contactEmail", { contactEmail: "owner\u0000@orders.test" }],
      ["tags.0", { tags: ["or\u0000ders"] }],
      ["schema.definition", { schema: { format: "AVRO", definition: "{\u0000}" } }],
      ["domainId", { domainId: `${ctx.orders.id}\u0000` }],
    ];
    for (const [field, override] of cases) {
      const error = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, override)).catch((e: unknown) => e);
      expect(error, field).toMatchObject({ status: 400, code: "VALIDATION_FAILED" });
      expect((error as { fields: Record<string, string[]> }).fields[field], field).toEqual(expect.arrayContaining([expect.stringContaining("NUL")]));
    }
    await expect(createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-\u0000x" })).rejects.toMatchObject({
      status: 400,
      fields: { name: expect.any(Array) },
    });
    await expect(
      requestSubscription(db, ctx.as.paymentsOwner, { productId: "x\u0000", serviceAccountId: "y", purpose: "A good purpose here." }),
    ).rejects.toMatchObject({ status: 400, fields: { productId: expect.any(Array) } });
    const actor = await loadActor(db, ctx.people.admin.id);
    await expect(searchProducts(db, actor, { q: "ord\u0000er" })).rejects.toMatchObject({ status: 400, fields: { q: expect.any(Array) } });
    await expect(listAuditEvents(db, actor, { entityId: "\u0000" })).rejects.toMatchObject({ status: 400, fields: { entityId: expect.any(Array) } });
    expect(await db.dataProduct.count()).toBe(0);
  });

  it("refuses NUL anywhere in any action's input, also in fields a schema does not bound, and absurd nesting", async () => {
    expect(rawInputProblems({ a: [{ b: "x\u0000" }], ok: "fine" })).toEqual({ "a.0.b": [expect.stringContaining("NUL")] });
    let deep: unknown = "x";
    for (let i = 0; i < 40; i++) deep = [deep];
    expect(Object.values(rawInputProblems({ deep }))[0]?.[0]).toContain("nested more than 32 levels");
    await expect(createWebhook(db, Buffer.alloc(32), ctx.as.ordersOwner, { domainId: ctx.orders.id, url: "https://hooks.example.com/x", description: "hook\u0000" })).rejects.toMatchObject({
      status: 400,
      fields: { description: [expect.stringContaining("NUL")] },
    });
  });

  it("bounds every string: a 1 MB contact e-mail is a 400, not a stored megabyte", async () => {
    const huge = `${"a".repeat(1_000_000)}@orders.test`;
    await expect(registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { contactEmail: huge }))).rejects.toMatchObject({
      status: 400,
      fields: { contactEmail: [expect.stringContaining("at most 254")] },
    });
    await expect(
      registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { schema: { format: "AVRO", definition: " ".repeat(300_000) } })),
    ).rejects.toMatchObject({ status: 400, fields: { "schema.definition": expect.any(Array) } });
    const actor = await loadActor(db, ctx.people.admin.id);
    await expect(searchProducts(db, actor, { domain: "d".repeat(500) })).rejects.toMatchObject({ status: 400, fields: { domain: expect.any(Array) } });
    await expect(searchProducts(db, actor, { page: "100000000" })).rejects.toMatchObject({ status: 400, fields: { page: expect.any(Array) } });
    expect(await db.dataProduct.count()).toBe(0);
  });
});
