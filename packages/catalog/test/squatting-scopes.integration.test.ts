import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  accountProblem,
  approveProduct,
  authenticateApiToken,
  claimTopic,
  createApiToken,
  createDomain,
  createServiceAccount,
  markNotificationsRead,
  registerProduct,
  registerSchema,
  revokeApiToken,
  submitForReview,
  type Actor,
  type Db,
} from "../src/index.ts";
import { avroSchema, openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/*
 * Issue 30, finding 11: an owner could claim another domain's unmanaged topic
 * by its name prefix (blocking that domain's own claim); pre-creating
 * `<future-domain>-producer` blocked creating that domain; a read-only token
 * could revoke its user's other tokens; the registry's write check ignored
 * token scopes.
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
  await db.clusterTopic.createMany({ data: [{ name: "payments.ledger-raw", partitions: 3 }, { name: "payments-eu.audit", partitions: 1 }] });
});
afterAll(async () => dispose());

const claim = (as: { userId: string }, domainId: string, topic: string, name: string) => claimTopic(db, as, { topic, ...productInput(domainId, { name }) });

/** The actor of a fresh token of the orders owner with these scopes, as the portal authenticates it. */
async function tokenActor(scopes: string[]): Promise<{ actor: Actor; id: string }> {
  const created = await createApiToken(db, ctx.as.ordersOwner, { name: `t-${scopes.join("-")}-${Math.random()}`, scopes, expiresInDays: 30 });
  const actor = await authenticateApiToken(db, created.token, { method: "POST", path: "/test" });
  return { actor, id: created.id };
}
const acting = (actor: Actor) => ({ userId: actor.id, ...(actor.token ? { token: actor.token } : {}) });

describe("squatting", () => {
  it("a topic under another domain's prefix is that domain's to claim", async () => {
    await expect(claim(ctx.as.ordersOwner, ctx.orders.id, "payments.ledger-raw", "Ledger Raw")).rejects.toMatchObject({
      status: 403,
      message: expect.stringContaining("payments domain's prefix"),
    });
    const own = await claim(ctx.as.paymentsOwner, ctx.payments.id, "payments.ledger-raw", "Ledger Raw");
    expect(own.topicName).toBe("payments.ledger-raw");
    // A longer slug owns its namespace inside a shorter one's: with a payments-eu domain, payments cannot claim its topics.
    await createDomain(db, ctx.as.admin, { slug: "payments-eu", name: "Payments EU" });
    await expect(claim(ctx.as.paymentsOwner, ctx.payments.id, "payments-eu.audit", "Eu Audit")).rejects.toMatchObject({ status: 403 });
  });

  it("nobody can make a `<slug>-producer` account by hand, so a future domain's producer name cannot be squatted", async () => {
    await expect(createServiceAccount(db, ctx.as.ordersOwner, { domainId: ctx.orders.id, name: "orders-eu-producer" })).rejects.toMatchObject({
      status: 400,
      fields: { name: [expect.stringContaining("-producer")] },
    });
    // An account so named before the rule (a row the platform already manages) stays usable: only new names are refused.
    expect(await accountProblem(db, { name: "orders-legacy-producer", domainId: ctx.orders.id, isProducer: false })).toBeNull();
    const domain = await createDomain(db, ctx.as.admin, { slug: "orders-eu", name: "Orders EU" });
    expect(domain.slug).toBe("orders-eu");
    // The platform still makes the domain's own producer at the first approval.
    const product = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Producer Check", schema: { format: "AVRO", definition: avroSchema } }));
    await submitForReview(db, ctx.as.ordersOwner, product.id);
    await approveProduct(db, ctx.as.reviewer, product.id);
    expect(await db.serviceAccount.findFirst({ where: { domainId: ctx.orders.id, isProducer: true } })).toMatchObject({ name: "orders-producer" });
  });
});

describe("token scopes", () => {
  it("a read-only token cannot revoke its user's other tokens (it may revoke itself); a write-scoped one can", async () => {
    const reader = await tokenActor(["read"]);
    const victim = await tokenActor(["write:orders"]);
    await expect(revokeApiToken(db, acting(reader.actor), victim.id)).rejects.toMatchObject({ status: 403 });
    expect((await db.apiToken.findUniqueOrThrow({ where: { id: victim.id } })).revokedAt).toBeNull();
    await expect(markNotificationsRead(db, acting(reader.actor), { all: true })).rejects.toMatchObject({ status: 403 });
    const writer = await tokenActor(["read", "write:orders"]);
    expect((await revokeApiToken(db, acting(writer.actor), victim.id)).revokedAt).not.toBeNull();
    expect((await revokeApiToken(db, acting(reader.actor), reader.id)).revokedAt).not.toBeNull();
  });

  it("the registry's write check honours token scopes", async () => {
    const product = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Registry Scopes" }));
    await submitForReview(db, ctx.as.ordersOwner, product.id);
    await approveProduct(db, ctx.as.reviewer, product.id);
    await db.dataProduct.update({ where: { id: product.id }, data: { status: "ACTIVE" } });
    const subject = `${product.topicName}-value`;
    const reader = await tokenActor(["read"]);
    await expect(registerSchema(db, { kind: "user", actor: reader.actor }, subject, { schema: avroSchema }, "http://portal")).rejects.toMatchObject({ status: 403, errorCode: 40301 });
    const writer = await tokenActor(["write:orders"]);
    expect(await registerSchema(db, { kind: "user", actor: writer.actor }, subject, { schema: avroSchema }, "http://portal")).toEqual({ id: expect.any(Number) });
  });
});
