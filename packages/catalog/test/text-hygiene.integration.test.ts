import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawInputProblems } from "../src/action.ts";
import { createApiToken, createDomain, createServiceAccount, registerProduct, requestSubscription, type Db } from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/*
 * Issue 30, finding 19: a product name with a lone UTF-16 surrogate answered
 * 500, other texts with one were stored and echoed, and names with control
 * characters (`\u0006`) were accepted. Every name and free text refuses both
 * with a 400 naming the field; tabs and line breaks only where a text may span lines.
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

const refusal = (field: string, text: RegExp) => ({ status: 400, code: "VALIDATION_FAILED", fields: { [field]: [expect.stringMatching(text)] } });

describe("invalid Unicode and control characters", () => {
  it("refuses a lone surrogate in a product's name and description, naming the field (not a 500, nothing stored)", async () => {
    await expect(registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Order \ud800 Events" }))).rejects.toMatchObject(refusal("name", /lone UTF-16 surrogate/));
    await expect(registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { description: "Every order placed \udc00 as it happens." }))).rejects.toMatchObject(
      refusal("description", /lone UTF-16 surrogate/),
    );
    // A well-formed pair (an emoji) is text like any other.
    const ok = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Order Events", description: "Every order placed \ud83d\udce6 as it happens.\n\tIndented line." }));
    expect(ok.description).toContain("\ud83d\udce6");
    expect(await db.dataProduct.count()).toBe(1);
  });

  it("refuses control characters in names, and tabs or line breaks where a text is one line", async () => {
    await expect(createDomain(db, ctx.as.admin, { slug: "spoof", name: "\u0006罆f spoof" })).rejects.toMatchObject(refusal("name", /control characters/));
    await expect(createDomain(db, ctx.as.admin, { slug: "spoof", name: "Two\nlines" })).rejects.toMatchObject(refusal("name", /one line/));
    await expect(registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Order\tEvents" }))).rejects.toMatchObject(refusal("name", /one line/));
    await expect(registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { description: "Every order \u0007 placed, as it happens." }))).rejects.toMatchObject(
      refusal("description", /control characters/),
    );
    await expect(createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-a\u001b" })).rejects.toMatchObject({ status: 400, fields: { name: expect.any(Array) } });
    await expect(createApiToken(db, ctx.as.paymentsOwner, { name: "ci\u0085token", scopes: ["read"], expiresInDays: 30 })).rejects.toMatchObject(refusal("name", /control characters/));
    await expect(
      requestSubscription(db, ctx.as.paymentsOwner, { productId: "p", serviceAccountId: "a", purpose: "A purpose long enough \u0006 here." }),
    ).rejects.toMatchObject(refusal("purpose", /control characters/));
    expect(await db.domain.count({ where: { slug: "spoof" } })).toBe(0);
  });

  it("refuses them anywhere in any action's raw input, field names included", () => {
    expect(rawInputProblems({ a: [{ b: "x\ud800" }], ok: "fine\n\ttoo" })).toEqual({ "a.0.b": [expect.stringContaining("lone UTF-16 surrogate")] });
    expect(rawInputProblems({ note: "bell\u0007" })).toEqual({ note: [expect.stringContaining("control characters")] });
    expect(Object.keys(rawInputProblems({ nested: { "k\u0001": 1 } }))).toEqual(["nested"]);
  });
});
