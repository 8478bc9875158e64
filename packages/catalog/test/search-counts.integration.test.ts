import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "../src/actor.ts";
import { loadActor, searchProducts, searchStatements, type Db } from "../src/index.ts";
import { PUBLISHED_STATUSES, tsQueryText } from "../src/queries/search-sql.ts";
import { openTestDatabase, seedPeople } from "./fixtures.ts";

/*
 * The search's count is skipped when the planner's statistics prove more
 * than 1,000 matches (search-count.ts). These cases are built so that the
 * statistics mislead any weaker rule: 21,040 products where
 *  - "tundra" and "mango" are each in half of them but share only 40
 *    (independence would guess ~5,000 for both words);
 *  - tags "north"/"south" and classifications PUBLIC/INTERNAL split them in
 *    halves that "north" + INTERNAL never share (independence: ~5,000);
 *  - "quartz" is in 9,040 products of which 9,000 are another domain's
 *    drafts (a member of orders sees 40);
 *  - and at the end 9,000 of them are deleted after the statistics were
 *    taken (the statistics still say 9,040).
 * Whatever the search answers must be true: an exact total that is the real
 * count, or "1,000+" only where more than 1,000 really match.
 */

let db: Db;
let url: string;
let dispose: () => Promise<void>;
let client: pg.Client;
let member: Actor;
let governance: Actor;
let orders: string;
let payments: string;

const TOTAL = 21_040;

beforeAll(async () => {
  ({ db, url, dispose } = await openTestDatabase());
  const ctx = await seedPeople(db);
  orders = ctx.orders.id;
  payments = ctx.payments.id;
  member = await loadActor(db, ctx.people.ordersOwner.id);
  governance = await loadActor(db, ctx.people.reviewer.id);
  const seed = new pg.Client({ connectionString: url });
  await seed.connect();
  try {
    // No autovacuum: the statistics stay as ANALYZE below took them, whatever the test changes later.
    await seed.query(`ALTER TABLE "DataProduct" SET (autovacuum_enabled = false)`);
    await seed.query(
      `INSERT INTO "DataProduct" (id, "domainId", name, slug, description, classification, tags, "freshnessSeconds", "availabilityPct",
         partitions, "retentionMs", "topicName", status, "contactEmail", "createdById", "createdAt", "updatedAt")
       SELECT 'count-p' || i, CASE WHEN i <= 12000 THEN $1 ELSE $2 END, 'Item ' || i, 'item-' || i,
         concat_ws(' ', CASE WHEN i <= 10540 THEN 'tundra' END, CASE WHEN i > 10500 THEN 'mango' END, CASE WHEN i > 12000 THEN 'quartz' END, 'records'),
         (CASE WHEN i % 2 = 1 THEN 'PUBLIC' ELSE 'INTERNAL' END)::"Classification",
         ARRAY[CASE WHEN i % 2 = 1 THEN 'north' ELSE 'south' END],
         60, 99.9, 3, -1, 'counts.item-' || i || '.v1',
         (CASE WHEN i > 12000 AND i <= 21000 THEN 'DRAFT' ELSE 'ACTIVE' END)::"ProductStatus",
         'owner@counts.test', $3, now() - make_interval(secs => i), now() - make_interval(secs => i)
       FROM generate_series(1, ${TOTAL}) AS i`,
      [orders, payments, ctx.people.ordersOwner.id],
    );
  } finally {
    // Ending the session flushes its statistics counters (the inserts), so ANALYZE below resets them.
    await seed.end();
  }
  client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`ANALYZE "DataProduct"`);
}, 120_000);
afterAll(async () => {
  await client?.end();
  await dispose?.();
});

/** The true number of matches, by the visibility rule restated here (not the search's SQL). */
async function trueCount(actor: Actor, shape: Record<string, string>): Promise<number> {
  const conditions: string[] = [];
  const values: unknown[] = [];
  const value = (v: unknown) => `$${values.push(v)}`;
  if (actor === member) conditions.push(`(status::text = ANY(${value([...PUBLISHED_STATUSES])}) OR "domainId" = ${value(orders)})`);
  conditions.push(shape.status ? `status::text = ${value(shape.status)}` : `status <> 'RETIRED'`);
  if (shape.classification) conditions.push(`classification::text = ${value(shape.classification)}`);
  if (shape.tag) conditions.push(`${value(shape.tag)} = ANY(tags)`);
  if (shape.q) conditions.push(`"searchVector" @@ to_tsquery('english', ${value(tsQueryText(shape.q))})`);
  const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "DataProduct" WHERE ${conditions.join(" AND ")}`, values);
  return rows[0]?.n ?? 0;
}

const counted = async (actor: Actor, input: Record<string, unknown>) => (await searchStatements(db, actor, input)).some((s) => s.text.startsWith("SELECT count(*)"));

const SHAPES: Record<string, string>[] = [
  {},
  { q: "tundra" },
  { q: "mango" },
  { q: "tundra mango" },
  { q: "mango tundra records" },
  { q: "quartz" },
  { q: "quartz", status: "DRAFT" },
  { q: "records" },
  { tag: "north" },
  { tag: "north", classification: "INTERNAL" },
  { tag: "north", classification: "PUBLIC" },
  { q: "mango", tag: "south", classification: "INTERNAL" },
];

describe("counts the statistics would mislead", () => {
  it("answers every shape truthfully: the exact total up to 1,000, 1,000+ only beyond", async () => {
    const answers: string[] = [];
    const expected: string[] = [];
    for (const [who, actor] of [["member", member], ["governance", governance]] as const) {
      for (const shape of SHAPES) {
        const result = await searchProducts(db, actor, { ...shape, pageSize: 12 });
        const n = await trueCount(actor, shape);
        const label = `${who} ${JSON.stringify(shape)}`;
        answers.push(`${label}: ${result.totalIsExact ? result.total : "1,000+"}`);
        expected.push(`${label}: ${n <= 1_000 ? n : "1,000+"}`);
      }
    }
    expect(answers).toEqual(expected);
  });

  it("counts the words that barely overlap, the halves that never meet and the member's few visible matches", async () => {
    // Independence would put each of these past the cap; the rows say otherwise.
    expect(await searchProducts(db, governance, { q: "tundra mango", pageSize: 12 })).toMatchObject({ total: 40, totalIsExact: true });
    expect(await searchProducts(db, member, { tag: "north", classification: "INTERNAL", pageSize: 12 })).toMatchObject({ total: 0, totalIsExact: true });
    // 9,000 of the 9,040 quartz products are another domain's drafts: the member sees 40.
    expect(await searchProducts(db, member, { q: "quartz", pageSize: 12 })).toMatchObject({ total: 40, totalIsExact: true });
    expect(await counted(member, { q: "quartz", pageSize: 12 })).toBe(true);
  });

  it("skips the count where the statistics prove more than 1,000, and says 1,000+ with the estimate", async () => {
    for (const [actor, input] of [[governance, { q: "quartz" }], [governance, {}], [member, {}]] as const) {
      const result = await searchProducts(db, actor, { ...input, pageSize: 12 });
      expect(result).toMatchObject({ total: 1_000, totalIsExact: false, pageCount: 84 });
      expect(result.totalEstimate).toBeGreaterThan(1_000);
      expect(await counted(actor, { ...input, pageSize: 12 }), JSON.stringify(input)).toBe(false);
    }
  });

  it("gives the exact total when the page is short (the last page), past the cap too", async () => {
    const last = await searchProducts(db, governance, { q: "quartz", pageSize: 100, page: 91 });
    expect(last.items).toHaveLength(40);
    expect(last).toMatchObject({ total: 9_040, totalIsExact: true, totalEstimate: null, pageCount: 91 });
    const lastPlain = await searchProducts(db, governance, { pageSize: 100, page: 211 });
    expect(lastPlain).toMatchObject({ total: TOTAL, totalIsExact: true, pageCount: 211 });
    expect(lastPlain.items).toHaveLength(40);
  });

  it("counts after all when a page past the end comes back empty", async () => {
    expect(await counted(governance, { q: "quartz", pageSize: 100, page: 1 })).toBe(false);
    expect(await counted(governance, { q: "quartz", pageSize: 100, page: 200 })).toBe(true);
    const beyond = await searchProducts(db, governance, { q: "quartz", pageSize: 100, page: 200 });
    expect(beyond).toMatchObject({ items: [], total: 1_000, totalIsExact: false });
  });

  // Last: it deletes rows.
  it("does not trust statistics older than the rows: 9,000 products deleted since ANALYZE", async () => {
    await client.query(`DELETE FROM "DataProduct" WHERE status = 'DRAFT' AND description LIKE '%quartz%'`);
    // PostgreSQL's counters trail the delete (up to about a second), the search reads them at most once a second.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const { rows } = await client.query<{ changed: number }>(`SELECT n_mod_since_analyze::int AS changed FROM pg_stat_user_tables WHERE relid = '"DataProduct"'::regclass`);
      if ((rows[0]?.changed ?? 0) >= 9_000) break;
      if (Date.now() > deadline) throw new Error("the delete never reached pg_stat_user_tables");
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 1_100));
    // The planner still expects 9,040 quartz products; there are 40 (pages of 12: no short page to tell).
    expect(await searchProducts(db, governance, { q: "quartz", pageSize: 12 })).toMatchObject({ total: 40, totalIsExact: true });
    expect(await counted(governance, { q: "quartz", pageSize: 12 })).toBe(true);
  });
});
