import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  actingUser,
  approveProduct,
  authenticateApiToken,
  createApiToken,
  hashTokenSecret,
  listApiTokens,
  loadActor,
  registerProduct,
  revokeApiToken,
  submitForReview,
  type Db,
} from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
  // The owner of orders is also a member of payments, so scopes can pick one domain.
  await db.membership.create({ data: { userId: ctx.people.ordersOwner.id, domainId: ctx.payments.id, role: "OWNER" } });
});
afterAll(async () => dispose());

const use = { method: "POST", path: "/api/v1/products" };

describe("API tokens", () => {
  it("is shown once and stored only as a SHA-256 hash", async () => {
    const created = await createApiToken(db, ctx.as.ordersOwner, { name: "ci pipeline", scopes: ["read", "write:orders"], expiresInDays: 30 });
    expect(created.token).toMatch(/^kappa_[A-Za-z0-9_-]{43}$/);
    const row = await db.apiToken.findUniqueOrThrow({ where: { id: created.id }, omit: { secretHash: false } });
    expect(row.secretHash).toBe(hashTokenSecret(created.token));
    expect(JSON.stringify(row)).not.toContain(created.token);
    expect(row.prefix).toBe(created.token.slice(0, 12));
    expect(row.expiresAt.getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    const listed = await listApiTokens(db, await loadActor(db, ctx.people.ordersOwner.id));
    expect(JSON.stringify(listed)).not.toContain(created.token);
    expect(JSON.stringify(listed)).not.toContain(row.secretHash);
  });

  it("acts with the user's permissions narrowed to its scopes", async () => {
    const { token } = await createApiToken(db, ctx.as.ordersOwner, { name: "orders writer", scopes: ["write:orders"] });
    const actor = await authenticateApiToken(db, token, use);
    const created = await registerProduct(db, actingUser(actor), productInput(ctx.orders.id, { name: "Token Made" }));
    expect((await db.auditEvent.findFirstOrThrow({ where: { entityId: created.id, action: "product.registered" } })).data).toMatchObject({ tokenId: actor.token?.id });
    // The user owns payments too, but this token has no write:payments.
    await expect(registerProduct(db, actingUser(actor), productInput(ctx.payments.id, { name: "Token Made" }))).rejects.toMatchObject({ status: 403 });
    const readOnly = await authenticateApiToken(db, (await createApiToken(db, ctx.as.ordersOwner, { name: "reader", scopes: ["read"] })).token, use);
    await expect(registerProduct(db, actingUser(readOnly), productInput(ctx.orders.id, { name: "Read Only" }))).rejects.toMatchObject({ status: 403 });
    // A reviewer's token without `review` cannot approve; with it, it can.
    await submitForReview(db, ctx.as.ordersOwner, created.id);
    const reviewerRead = await authenticateApiToken(db, (await createApiToken(db, ctx.as.reviewer, { name: "rev read", scopes: ["read"] })).token, use);
    await expect(approveProduct(db, actingUser(reviewerRead), created.id)).rejects.toMatchObject({ status: 403 });
    const reviewer = await authenticateApiToken(db, (await createApiToken(db, ctx.as.reviewer, { name: "rev", scopes: ["review"] })).token, use);
    expect((await approveProduct(db, actingUser(reviewer), created.id)).status).toBe("APPROVED");
  });

  it("never carries more than its user holds, and cannot mint tokens", async () => {
    await expect(createApiToken(db, ctx.as.ordersOwner, { name: "greedy", scopes: ["admin"] })).rejects.toMatchObject({ status: 400, fields: { scopes: [expect.stringMatching(/cannot grant admin/)] } });
    await expect(createApiToken(db, ctx.as.paymentsMember, { name: "other domain", scopes: ["write:orders"] })).rejects.toMatchObject({ status: 400 });
    await expect(createApiToken(db, ctx.as.ordersOwner, { name: "bad", scopes: ["write:Orders!"] })).rejects.toMatchObject({ status: 400 });
    await expect(createApiToken(db, ctx.as.ordersOwner, { name: "long", scopes: ["read"], expiresInDays: 400 })).rejects.toMatchObject({ status: 400 });
    const actor = await authenticateApiToken(db, (await createApiToken(db, ctx.as.admin, { name: "admin", scopes: ["admin"] })).token, use);
    await expect(createApiToken(db, actingUser(actor), { name: "minted", scopes: ["read"] })).rejects.toMatchObject({ status: 403 });
  });

  it("service tokens belong to a domain and are limited to it", async () => {
    await expect(createApiToken(db, ctx.as.ordersOwner, { name: "svc", kind: "SERVICE", domainId: ctx.orders.id, scopes: ["write:payments"] })).rejects.toMatchObject({ status: 400 });
    await expect(createApiToken(db, ctx.as.paymentsMember, { name: "svc", kind: "SERVICE", domainId: ctx.payments.id, scopes: ["read"] })).rejects.toMatchObject({ status: 403 });
    const svc = await createApiToken(db, ctx.as.paymentsOwner, { name: "payments ci", kind: "SERVICE", domainId: ctx.payments.id, scopes: ["read", "write:payments"] });
    // Every owner of the domain sees it and may revoke it.
    expect((await listApiTokens(db, await loadActor(db, ctx.people.ordersOwner.id))).items.some((t) => t.id === svc.id)).toBe(true);
    await revokeApiToken(db, ctx.as.ordersOwner, svc.id);
  });

  it("refuses expired and revoked tokens, audits every use and records last use", async () => {
    const created = await createApiToken(db, ctx.as.ordersOwner, { name: "short lived", scopes: ["read"], expiresInDays: 1 });
    const actor = await authenticateApiToken(db, created.token, { method: "GET", path: "/api/v1/products" });
    const used = await db.auditEvent.findFirstOrThrow({ where: { action: "token.used", entityId: created.id } });
    expect(used.data).toEqual({ tokenId: created.id, method: "GET", path: "/api/v1/products" });
    expect((await db.apiToken.findUniqueOrThrow({ where: { id: created.id } })).lastUsedAt).not.toBeNull();
    expect(actor.token?.scopes).toEqual(["read"]);

    await expect(revokeApiToken(db, ctx.as.paymentsOwner, created.id)).rejects.toMatchObject({ status: 404 });
    await revokeApiToken(db, ctx.as.ordersOwner, created.id);
    await expect(authenticateApiToken(db, created.token, use)).rejects.toMatchObject({ status: 401 });
    await expect(revokeApiToken(db, ctx.as.ordersOwner, created.id)).rejects.toMatchObject({ status: 409 });

    const old = await createApiToken(db, ctx.as.ordersOwner, { name: "expired", scopes: ["read"], expiresInDays: 1 });
    await db.apiToken.update({ where: { id: old.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expect(authenticateApiToken(db, old.token, use)).rejects.toMatchObject({ status: 401, message: "The API token is invalid, expired or revoked." });
    await expect(authenticateApiToken(db, "kappa_" + "x".repeat(43), use)).rejects.toMatchObject({ status: 401 });
    await expect(authenticateApiToken(db, "not a token", use)).rejects.toMatchObject({ status: 401 });
  });

  it("a membership removed after issuing takes the token's write power with it", async () => {
    const { token } = await createApiToken(db, ctx.as.ordersOwner, { name: "loses power", scopes: ["write:payments"] });
    await db.membership.delete({ where: { userId_domainId: { userId: ctx.people.ordersOwner.id, domainId: ctx.payments.id } } });
    const actor = await authenticateApiToken(db, token, use);
    await expect(registerProduct(db, actingUser(actor), productInput(ctx.payments.id, { name: "Too Late" }))).rejects.toMatchObject({ status: 403 });
  });
});
