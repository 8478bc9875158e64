import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveProduct, catalogFacets, loadActor, registerProduct, searchProducts, submitForReview, type Db } from "../src/index.ts";
import { seedScaleCatalog } from "../src/testing/scale-catalog.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/*
 * The catalog search's behaviour (issue 14): ranking by where the words
 * match, prefixes, typos with "did you mean", counts that stop at 1,000, and
 * tag counts kept by triggers. Plans are guarded by search-plans.integration.
 */

let db: Db;
let url: string;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

async function published(name: string, overrides: Record<string, unknown> = {}) {
  const p = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name, ...overrides }));
  await submitForReview(db, ctx.as.ordersOwner, p.id);
  return approveProduct(db, ctx.as.reviewer, p.id);
}

beforeAll(async () => {
  ({ db, url, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
  // Oldest first: recency must not be what puts the name match on top.
  await published("Refunds", { description: "Money paid back to the customer.", tags: ["payments"] });
  await published("Ledger Lines", { description: "Every booking, refunds included.", tags: ["finance"] });
  await published("Chargeback Cases", { description: "Disputed card payments.", tags: ["refunds"] });
  await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Refund Secrets", description: "Not published yet, still a draft.", tags: ["hidden-tag"] }));
});
afterAll(async () => dispose());

describe("catalog search", () => {
  it("ranks a match in the name above one in the tags above one in the description", async () => {
    const payer = await loadActor(db, ctx.people.paymentsOwner.id);
    const result = await searchProducts(db, payer, { q: "refund" });
    expect(result.sort).toBe("relevance");
    expect(result.match).toBe("text");
    expect(result.items.map((p) => p.name)).toEqual(["Refunds", "Chargeback Cases", "Ledger Lines"]);
    expect(result).toMatchObject({ total: 3, totalIsExact: true });
    // Asked for another order, the same matches come in that order.
    expect((await searchProducts(db, payer, { q: "refund", sort: "name" })).items.map((p) => p.name)).toEqual(["Chargeback Cases", "Ledger Lines", "Refunds"]);
  });

  it("matches prefixes and topic names; words the index cannot use find nothing rather than everything", async () => {
    const payer = await loadActor(db, ctx.people.paymentsOwner.id);
    expect((await searchProducts(db, payer, { q: "ref" })).items.map((p) => p.name)).toContain("Refunds");
    expect((await searchProducts(db, payer, { q: "orders.ledger" })).items.map((p) => p.name)).toEqual(["Ledger Lines"]);
    const punctuation = await searchProducts(db, payer, { q: "%%%" });
    expect(punctuation).toMatchObject({ total: 0, items: [] });
  });

  it("answers a typo with the nearest names and offers them, within the visibility rules", async () => {
    const payer = await loadActor(db, ctx.people.paymentsOwner.id);
    const typo = await searchProducts(db, payer, { q: "refnds" });
    expect(typo.match).toBe("fuzzy");
    expect(typo.suggestions[0]).toBe("Refunds");
    expect(typo.items[0]?.name).toBe("Refunds");
    // Another domain's draft is neither a result nor a suggestion.
    expect(typo.suggestions).not.toContain("Refund Secrets");
    expect(typo.items.map((p) => p.name)).not.toContain("Refund Secrets");
    const owner = await loadActor(db, ctx.people.ordersOwner.id);
    expect((await searchProducts(db, owner, { q: "refnd secrts" })).suggestions).toContain("Refund Secrets");
    // Nothing near: no suggestions, no results.
    expect(await searchProducts(db, payer, { q: "zzqqxx" })).toMatchObject({ match: "fuzzy", total: 0, items: [], suggestions: [] });
  });

  it("counts exactly up to 1,000 and says 1,000+ beyond", async () => {
    await seedScaleCatalog(url, { products: 5_000 });
    const reviewer = await loadActor(db, ctx.people.reviewer.id);
    const many = await searchProducts(db, reviewer, { q: "orders", pageSize: 10 });
    expect(many).toMatchObject({ total: 1_000, totalIsExact: false, pageCount: 100 });
    // The planner's estimate past the cap: rounded, above the cap, and near the true count (statistics, not a scan).
    const [counted] = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM "DataProduct" WHERE "searchVector" @@ to_tsquery('english', 'orders:*')`;
    const trueCount = counted?.n ?? 0;
    expect(many.totalEstimate).not.toBeNull();
    expect(many.totalEstimate!).toBeGreaterThan(1_000);
    expect(many.totalEstimate! / trueCount).toBeGreaterThan(0.5);
    expect(many.totalEstimate! / trueCount).toBeLessThan(2);
    expect(String(many.totalEstimate)).toMatch(/^\d{1,2}0*$/);
    const few = await searchProducts(db, reviewer, { q: "chargeback" });
    expect(few.totalIsExact).toBe(true);
    expect(few.totalEstimate).toBeNull();
    // Five seeded chargebacks (one per thousand) and ours.
    expect(few.total).toBe(6);
    // Subscriber counts come with the page: the seed's active subscriptions of these products.
    const page = await searchProducts(db, reviewer, { pageSize: 50 });
    const ids = page.items.map((p) => p.id);
    const active = await db.subscription.groupBy({ by: ["productId"], where: { productId: { in: ids }, status: "ACTIVE" }, _count: true });
    const expected = new Map(active.map((a) => [a.productId, a._count]));
    expect(page.items.map((p) => [p.id, p._count.subscriptions])).toEqual(ids.map((id) => [id, expected.get(id) ?? 0]));
  });

  it("keeps the tag counts true through inserts, edits, status changes and deletes", async () => {
    const recount = async () => {
      const rows = await db.$queryRaw<{ tag: string; products: number; unpublished: number }[]>`
        SELECT x.tag, count(DISTINCT p.id) FILTER (WHERE p.status IN ('APPROVED','PROVISIONING','ACTIVE','DEPRECATED'))::int AS products,
                      count(DISTINCT p.id) FILTER (WHERE p.status IN ('DRAFT','IN_REVIEW','REJECTED'))::int AS unpublished
          FROM "DataProduct" p, unnest(p.tags) AS x(tag) GROUP BY x.tag`;
      return new Map(rows.filter((r) => r.products + r.unpublished > 0).map((r) => [r.tag, [r.products, r.unpublished]]));
    };
    const kept = async () => {
      const rows = await db.productTagCount.findMany({ where: { OR: [{ products: { gt: 0 } }, { unpublished: { gt: 0 } }] } });
      return new Map(rows.map((r) => [r.tag, [r.products, r.unpublished]]));
    };
    expect(await kept()).toEqual(await recount());
    await db.$executeRaw`UPDATE "DataProduct" SET status = 'RETIRED' WHERE id IN (SELECT id FROM "DataProduct" WHERE status = 'ACTIVE' ORDER BY id LIMIT 200)`;
    await db.$executeRaw`UPDATE "DataProduct" SET status = 'ACTIVE' WHERE status = 'DRAFT' AND id LIKE 'scale-%'`;
    await db.$executeRaw`UPDATE "DataProduct" SET tags = array_append(tags, 'tagged-later') WHERE id IN (SELECT id FROM "DataProduct" ORDER BY id LIMIT 300)`;
    await db.$executeRaw`UPDATE "DataProduct" SET tags = ARRAY['pii', 'pii'] WHERE id = 'scale-p42'`;
    await db.$executeRaw`DELETE FROM "Subscription" WHERE "productId" IN (SELECT id FROM "DataProduct" WHERE status = 'REJECTED')`;
    await db.$executeRaw`DELETE FROM "SchemaVersion" WHERE "productId" IN (SELECT id FROM "DataProduct" WHERE status = 'REJECTED')`;
    await db.$executeRaw`DELETE FROM "DataProduct" WHERE status = 'REJECTED' AND id LIKE 'scale-%'`;
    expect(await kept()).toEqual(await recount());
    expect((await kept()).get("tagged-later")?.[0]).toBeGreaterThan(0);
  });

  it("offers the most used tags, and a member's own drafts' tags, never other domains' unpublished tags", async () => {
    const payer = await loadActor(db, ctx.people.paymentsOwner.id);
    const owner = await loadActor(db, ctx.people.ordersOwner.id);
    const reviewer = await loadActor(db, ctx.people.reviewer.id);
    expect((await catalogFacets(db, payer)).tags).not.toContain("hidden-tag");
    expect((await catalogFacets(db, owner)).tags).toContain("hidden-tag");
    const facets = await catalogFacets(db, reviewer);
    expect(facets.tags.length).toBeLessThanOrEqual(50);
    expect(facets.tags.slice(0, 3)).toContain("orders");
    expect(facets.domains.map((d) => d.slug)).toContain("logistics");
  });
});
