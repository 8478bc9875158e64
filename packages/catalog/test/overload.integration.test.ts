import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asOverload, catalogFacets, createPrismaClient, isOverload, loadActor, OverloadedError, searchProducts, type Db } from "../src/index.ts";
import { openTestDatabase, seedPeople } from "./fixtures.ts";

/*
 * Reads under load (issue 14): the search and the facets run as plain
 * statements, never in an interactive transaction (whose start and expiry
 * timeouts turned load into 500s), and a saturated pool is an overload — a
 * 503 with Retry-After in the API — not an unexpected error.
 */

let db: Db;
let url: string;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, url, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

describe("reads under load", () => {
  it("searches and reads the filter menus without an interactive transaction", async () => {
    const noTransactions = new Proxy(db, {
      get(target, key, receiver) {
        if (key === "$transaction") throw new Error("a read opened a transaction");
        return Reflect.get(target, key, receiver);
      },
    });
    const reviewer = await loadActor(db, ctx.people.reviewer.id);
    const payer = await loadActor(db, ctx.people.paymentsOwner.id);
    for (const input of [{}, { q: "orders" }, { q: "refnds" }, { tag: "pii", sort: "name" }]) {
      await expect(searchProducts(noTransactions, payer, input)).resolves.toMatchObject({ page: 1 });
      await expect(searchProducts(noTransactions, reviewer, input)).resolves.toMatchObject({ page: 1 });
    }
    await expect(catalogFacets(noTransactions, payer)).resolves.toMatchObject({ domains: expect.any(Array) });
  });

  it("turns a pool that stays busy past its wait into an overload (503, Retry-After), and recovers", async () => {
    // The wait also bounds opening a connection: generous enough for a loaded machine.
    const small = createPrismaClient(url, { size: 1, waitMs: 1_500 });
    try {
      const payer = await loadActor(db, ctx.people.paymentsOwner.id);
      await small.$queryRaw`SELECT 1`;
      // The one connection is busy for 4 s; the search waits 1.5 s for it.
      const busy = Promise.resolve(small.$queryRaw`SELECT pg_sleep(4)::text`);
      busy.catch(() => undefined);
      await expect.poll(async () => (await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(4)%' AND state = 'active'`)[0]?.n).toBe(1);
      const refused = await searchProducts(small, payer, { q: "orders" }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(isOverload(refused)).toBe(true);
      const answer = asOverload(refused);
      expect(answer).toBeInstanceOf(OverloadedError);
      expect(answer).toMatchObject({ status: 503, code: "OVERLOADED", details: { retryAfterSeconds: 1 } });
      await busy;
      // Once the connection is free, the same search is answered.
      await expect(searchProducts(small, payer, { q: "orders" })).resolves.toMatchObject({ page: 1 });
    } finally {
      await small.$disconnect();
    }
  });

  it("recognises the other shapes of saturation, and nothing else", () => {
    expect(isOverload(Object.assign(new Error("Transaction API error: Unable to start a transaction in the given time."), { code: "P2028" }))).toBe(true);
    expect(isOverload(Object.assign(new Error("Timed out fetching a new connection from the connection pool."), { code: "P2024" }))).toBe(true);
    expect(isOverload(new Error("wrapped", { cause: Object.assign(new Error("sorry, too many clients already"), { code: "53300" }) }))).toBe(true);
    expect(isOverload(Object.assign(new Error("Unique constraint failed"), { code: "P2002" }))).toBe(false);
    expect(isOverload(new Error("boom"))).toBe(false);
    expect(isOverload(undefined)).toBe(false);
    const other = new Error("boom");
    expect(asOverload(other)).toBe(other);
  });
});
