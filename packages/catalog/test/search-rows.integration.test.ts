import { Prisma } from "@prisma/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, poolOf } from "../src/db.ts";
import { approveProduct, loadActor, registerProduct, searchProducts, submitForReview, type Db } from "../src/index.ts";
import { readRows } from "../src/read-rows.ts";
import { seedScaleCatalog } from "../src/testing/scale-catalog.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/*
 * The request path's reads are single statements instead of the ORM's
 * includes (issue 14: the ORM's client work cost more than the SQL). They
 * must hand back exactly what the ORM did — every column with its type
 * (Decimal, BigInt, Date, null), the domain, the active subscribers — and
 * the actor must stay uncached: a revoked role is gone on the next load.
 */

let db: Db;
let dbUrl: string;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  let url: string;
  ({ db, url, dispose } = await openTestDatabase());
  dbUrl = url;
  ctx = await seedPeople(db);
  const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Refund Lines", tags: ["payments", "pii"] }));
  await submitForReview(db, ctx.as.ordersOwner, p.id);
  await approveProduct(db, ctx.as.reviewer, p.id);
  await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Draft Lines" }));
  await seedScaleCatalog(url, { products: 300, domains: 5, subscriptions: 200 });
});
afterAll(async () => dispose());

describe("the search's rows", () => {
  it("are what the ORM's findMany with the domain and the active-subscriber count returns, column for column", async () => {
    const governance = await loadActor(db, ctx.people.reviewer.id);
    const result = await searchProducts(db, governance, { pageSize: 100, sort: "name" });
    expect(result.items).toHaveLength(100);
    const ids = result.items.map((i) => i.id);
    const orm = await db.dataProduct.findMany({
      where: { id: { in: ids } },
      include: { domain: { select: { slug: true, name: true } }, _count: { select: { subscriptions: { where: { status: "ACTIVE" } } } } },
    });
    const byId = new Map(orm.map((r) => [r.id, r]));
    expect(result.items).toEqual(ids.map((id) => byId.get(id)));
    // Relevance (ids per class, then the rows) and typos (nearest names, then the rows) read the rows separately.
    for (const input of [{ q: "order", pageSize: 50 }, { q: "refnds", pageSize: 50 }]) {
      const found = await searchProducts(db, governance, input);
      expect(found.items.length).toBeGreaterThan(0);
      const again = await db.dataProduct.findMany({
        where: { id: { in: found.items.map((i) => i.id) } },
        include: { domain: { select: { slug: true, name: true } }, _count: { select: { subscriptions: { where: { status: "ACTIVE" } } } } },
      });
      expect(found.items).toEqual(found.items.map((i) => again.find((r) => r.id === i.id)));
    }
    // The comparison covers the awkward types and some subscribed products (it could not pass by accident).
    const first = result.items[0]!;
    expect(first.availabilityPct).toBeInstanceOf(Prisma.Decimal);
    expect(typeof first.retentionMs).toBe("bigint");
    expect(first.createdAt).toBeInstanceOf(Date);
    expect(result.items.some((i) => i._count.subscriptions > 0)).toBe(true);
    expect(result.items.some((i) => i.submittedAt === null)).toBe(true);
  });
});

describe("loadActor", () => {
  it("reads the user and every membership with its domain's slug, and a revoked role is gone on the next load", async () => {
    await db.membership.create({ data: { userId: ctx.people.paymentsOwner.id, domainId: ctx.orders.id, role: "MEMBER" } });
    const actor = await loadActor(db, ctx.people.paymentsOwner.id);
    const user = await db.user.findUniqueOrThrow({ where: { id: ctx.people.paymentsOwner.id }, include: { memberships: { include: { domain: true } } } });
    expect(actor).toEqual({
      id: user.id,
      email: user.email,
      name: user.name,
      globalRole: "USER",
      sessionVersion: user.sessionVersion,
      memberships: expect.arrayContaining(user.memberships.map((m) => ({ domainId: m.domainId, domainSlug: m.domain.slug, role: m.role }))),
    });
    expect(actor.memberships).toHaveLength(2);
    await db.membership.delete({ where: { userId_domainId: { userId: ctx.people.paymentsOwner.id, domainId: ctx.orders.id } } });
    expect((await loadActor(db, ctx.people.paymentsOwner.id)).memberships).toEqual([{ domainId: ctx.payments.id, domainSlug: ctx.payments.slug, role: "OWNER" }]);
    const reviewer = await loadActor(db, ctx.people.reviewer.id);
    expect(reviewer).toMatchObject({ globalRole: "GOVERNANCE", memberships: [] });
    await expect(loadActor(db, "no-such-user")).rejects.toThrow(/no longer exists/);
  });

  it("reads straight from the pool outside a transaction, and on the transaction's own connection inside one", async () => {
    // The pool is known once Prisma has connected (it has: the tests above ran queries).
    expect(poolOf(db)).not.toBeNull();
    const before = (await loadActor(db, ctx.people.paymentsOwner.id)).memberships.length;
    await db
      .$transaction(async (tx) => {
        expect(poolOf(tx)).toBeNull();
        await tx.membership.create({ data: { userId: ctx.people.paymentsOwner.id, domainId: ctx.orders.id, role: "MEMBER" } });
        // Uncommitted: only the transaction's connection sees it — loadActor(tx) must read there.
        expect((await loadActor(tx, ctx.people.paymentsOwner.id)).memberships).toHaveLength(before + 1);
        expect((await loadActor(db, ctx.people.paymentsOwner.id)).memberships).toHaveLength(before);
        throw new Error("roll back");
      })
      .catch((error: unknown) => {
        if (!(error instanceof Error) || error.message !== "roll back") throw error;
      });
    expect((await loadActor(db, ctx.people.paymentsOwner.id)).memberships).toHaveLength(before);
  });
});

describe("the hot reads' named statements (read-rows.ts)", () => {
  // One connection, so every statement below runs in the same session.
  const single = (url: string) => {
    const u = new URL(url);
    u.searchParams.set("connection_limit", "1");
    return createPrismaClient(u.toString());
  };

  it("are prepared once per connection, and still planned for their own values", async () => {
    const one = single(dbUrl);
    try {
      await one.$queryRaw`SELECT 1`; // connects the pool
      const statement = Prisma.sql`SELECT count(*)::int AS n FROM "DataProduct" WHERE status = ${"ACTIVE"}::"ProductStatus"`;
      const first = await readRows<{ n: number }>(one, statement);
      expect(await readRows<{ n: number }>(one, statement)).toEqual(first);
      const prepared = await readRows<{ statement: string }>(one, Prisma.sql`SELECT statement FROM pg_prepared_statements WHERE name LIKE 'kappa\_%'`);
      expect(prepared.map((p) => p.statement)).toContain(statement.text);
      const [mode] = await readRows<{ mode: string }>(one, Prisma.sql`SELECT current_setting('plan_cache_mode') AS mode`);
      expect(mode?.mode).toBe("force_custom_plan");
    } finally {
      await one.$disconnect();
    }
  });

  it("survive a column added under a prepared statement (a migration while the portal runs)", async () => {
    const one = single(dbUrl);
    try {
      await one.$executeRawUnsafe(`CREATE TABLE "ReadRowsProbe" (a int)`);
      await one.$executeRawUnsafe(`INSERT INTO "ReadRowsProbe" VALUES (1)`);
      const all = Prisma.sql`SELECT * FROM "ReadRowsProbe"`;
      expect(await readRows(one, all)).toEqual([{ a: 1 }]);
      await one.$executeRawUnsafe(`ALTER TABLE "ReadRowsProbe" ADD COLUMN b text DEFAULT 'x'`);
      // PostgreSQL refuses the prepared statement ("cached plan must not change result type"); it reruns unnamed.
      expect(await readRows(one, all)).toEqual([{ a: 1, b: "x" }]);
      expect(await readRows(one, all)).toEqual([{ a: 1, b: "x" }]);
    } finally {
      await one.$executeRawUnsafe(`DROP TABLE IF EXISTS "ReadRowsProbe"`);
      await one.$disconnect();
    }
  });

  it("are not used behind a transaction pooler (pgbouncer=true): no session setting, nothing prepared", async () => {
    const u = new URL(dbUrl);
    u.searchParams.set("pgbouncer", "true");
    const pooled = single(u.toString());
    try {
      await pooled.$queryRaw`SELECT 1`;
      const statement = Prisma.sql`SELECT count(*)::int AS n FROM "Domain" WHERE slug <> ${"-"}`;
      await readRows(pooled, statement);
      await readRows(pooled, statement);
      const prepared = await readRows<{ n: number }>(pooled, Prisma.sql`SELECT count(*)::int AS n FROM pg_prepared_statements`);
      expect(prepared[0]?.n).toBe(0);
      const [mode] = await readRows<{ mode: string }>(pooled, Prisma.sql`SELECT current_setting('plan_cache_mode') AS mode`);
      expect(mode?.mode).toBe("auto");
    } finally {
      await pooled.$disconnect();
    }
  });
});
