import { Prisma } from "@prisma/client";
import { parseInput } from "../action.ts";
import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { hasGlobal } from "../permissions.ts";
import { readRows } from "../read-rows.ts";
import { searchProductsInput } from "../validation.ts";
import { COUNT_CAP, countSql, detailsSql, estimateSql, roundEstimate, fuzzySql, ownUnpublishedTagsSql, pageRowsSql, PUBLISHED_STATUSES, RELEVANCE_TIERS, tierRowsSql, tierSql, topTagsSql, tsQueryText, type RelevanceTier, type SearchFilter, type SearchSort } from "./search-sql.ts";

export { PUBLISHED_STATUSES } from "./search-sql.ts";

/**
 * Which products the actor may see: published ones, plus — for members of the
 * owning domain and for governance — drafts, reviews and rejections.
 */
export function visibleProducts(actor: Actor): Prisma.DataProductWhereInput {
  if (hasGlobal(actor, "product:review")) return {};
  return {
    OR: [{ status: { in: [...PUBLISHED_STATUSES] } }, { domainId: { in: actor.memberships.map((m) => m.domainId) } }],
  };
}

/** The same rule for the search's SQL: null = sees everything. */
function ownDomains(actor: Actor): string[] | null {
  return hasGlobal(actor, "product:review") ? null : actor.memberships.map((m) => m.domainId);
}

function plan(actor: Actor, rawInput: unknown) {
  const input = parseInput(searchProductsInput, rawInput);
  const q = input.q ? input.q : null;
  const sort: SearchSort = input.sort ?? (q ? "relevance" : "updated");
  const filter: SearchFilter = { ownDomainIds: ownDomains(actor), domain: input.domain, classification: input.classification, tag: input.tag, status: input.status };
  return { input, q, sort, filter, offset: (input.page - 1) * input.pageSize };
}

/** The page's ids for relevance with words: the classes in order until offset + page size ids are known. */
async function relevanceIds(db: Db, filter: SearchFilter, q: string, offset: number, limit: number, ran: Prisma.Sql[], tiers: readonly RelevanceTier[] = RELEVANCE_TIERS): Promise<string[]> {
  const ids: string[] = [];
  for (const tier of tiers) {
    const statement = tierSql(filter, q, tier, offset + limit - ids.length);
    ran.push(statement);
    ids.push(...(await readRows<{ id: string }>(db, statement)).map((r) => r.id));
    if (ids.length >= offset + limit) break;
  }
  return ids.slice(offset, offset + limit);
}

/**
 * The first page by relevance: class 1's rows with their details in one
 * statement (a common word fills the page from it: one round trip), then —
 * only if it did not — the later classes' ids and their rows.
 */
async function firstRelevancePage(db: Db, filter: SearchFilter, q: string, limit: number, ran: Prisma.Sql[]): Promise<DetailsRow[]> {
  const statement = tierRowsSql(filter, q, 1, limit);
  ran.push(statement);
  const rows = await readRows<DetailsRow>(db, statement);
  if (rows.length >= limit) return rows;
  const more = await relevanceIds(db, filter, q, 0, limit - rows.length, ran, RELEVANCE_TIERS.slice(1));
  return [...rows, ...(await details(db, more, ran))];
}

type DetailsDomain = { slug: string; name: string };
/** A row of detailsSql / pageRowsSql: the product's columns, its domain, its active subscribers. */
type DetailsRow = Prisma.DataProductGetPayload<object> & { subscribers: number; domain: DetailsDomain | string };

async function details(db: Db, ids: string[], ran: Prisma.Sql[]): Promise<DetailsRow[]> {
  if (ids.length === 0) return [];
  const statement = detailsSql(ids);
  ran.push(statement);
  const byId = new Map((await readRows<DetailsRow>(db, statement)).map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Runs one search, pushing every statement it executes onto `ran` (for the
 * benchmark and the EXPLAIN guard): the capped count beside the page — for
 * a fixed order the page with its rows in one statement; for relevance the
 * classes' ids, then the rows — and, when the words match nothing, the
 * nearest names and their rows.
 */
async function runSearch(db: Db, actor: Actor, rawInput: unknown, ran: Prisma.Sql[], planned: Prisma.Sql[] = []) {
  const { input, q, sort, filter, offset } = plan(actor, rawInput);
  const words = q ? tsQueryText(q) : null;
  const pageRows = async (): Promise<DetailsRow[]> => {
    if (q && sort === "relevance" && words) {
      if (offset === 0) return firstRelevancePage(db, filter, q, input.pageSize, ran);
      return details(db, await relevanceIds(db, filter, q, offset, input.pageSize, ran), ran);
    }
    const statement = pageRowsSql(filter, q, sort === "relevance" ? "updated" : sort, offset, input.pageSize);
    ran.push(statement);
    return readRows<DetailsRow>(db, statement);
  };
  // The count, the page and the planner's estimate side by side (pooled connections, one round
  // trip of wall time; for words the count waits for its plan). The estimate only plans — it is
  // used when the count passes the cap, and skipped where nothing can match.
  const counting = async (): Promise<{ n: number; estimated: number | null }> => {
    if (q && words && !filter.domain) return textCount(db, filter, q, ran, planned);
    const count = countSql(filter, q);
    ran.push(count);
    const [[counted], estimated] = await Promise.all([readRows<{ n: number }>(db, count), q && !words ? null : estimate(db, estimateSql(filter, q), planned)]);
    return { n: counted?.n ?? 0, estimated };
  };
  const [{ n: counted, estimated }, page] = await Promise.all([counting(), pageRows()]);
  let n = counted;
  let rows = page;
  let match: "all" | "text" | "fuzzy" = q ? "text" : "all";
  let suggestions: string[] = [];
  if (q && n === 0) {
    // No product has these words: show the nearest names instead, and offer them.
    const fuzzy = fuzzySql(filter, q);
    ran.push(fuzzy);
    const near = await readRows<{ id: string; name: string; distance: number }>(db, fuzzy);
    match = "fuzzy";
    n = near.length;
    rows = await details(db, near.slice(offset, offset + input.pageSize).map((r) => r.id), ran);
    suggestions = [...new Set(near.map((r) => r.name))].slice(0, 5);
  }
  const items = rows.map(({ subscribers, domain, ...product }) => ({
    ...product,
    domain: typeof domain === "string" ? (JSON.parse(domain) as DetailsDomain) : domain,
    _count: { subscriptions: subscribers },
  }));
  const totalIsExact = n <= COUNT_CAP;
  const total = Math.min(n, COUNT_CAP);
  // Past the cap the planner says roughly how many (not recorded in `ran`: it is planned, never executed).
  const totalEstimate = totalIsExact ? null : estimated;
  return {
    items,
    total,
    /** false: more than `total` products match ("1,000+"). */
    totalIsExact,
    /** With `totalIsExact: false`: the planner's estimate of all matches, two significant figures ("about 27,000"); null when it guesses no more than the cap. */
    totalEstimate,
    page: input.page,
    pageSize: input.pageSize,
    pageCount: Math.max(1, Math.ceil(total / input.pageSize)),
    sort,
    /** all: no search words; text: the words matched; fuzzy: nothing matched them, these are the nearest names. */
    match,
    /** With `fuzzy`: names the words were probably meant to be ("did you mean"). */
    suggestions,
  };
}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Plan Rows": number;
  Plans?: PlanNode[];
}

const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

/**
 * The capped count of a search with words, in the form the planner serves
 * best. Walking the recency index checks every product's words on the way
 * (a product of a word in 10 % of the catalog: ~11,000 rows for a thousand
 * matches, ~11 ms at 100k); the text index finds the matches directly
 * (~4 ms). Left free, though, the planner may read a common word's table
 * sequentially until a thousand match — which the EXPLAIN guard forbids, as
 * the same plan reads the whole table when the matches sit at its end. So
 * the free form is planned first (EXPLAIN: the planning the estimate costs
 * anyway, and its scan's row count is the estimate) and run unless its plan
 * scans DataProduct sequentially; then the recency walk is.
 */
async function textCount(db: Db, filter: SearchFilter, q: string, ran: Prisma.Sql[], planned: Prisma.Sql[]): Promise<{ n: number; estimated: number | null }> {
  const free = countSql(filter, q, "free");
  const explain = Prisma.sql`EXPLAIN (FORMAT JSON) ${free}`;
  planned.push(explain);
  const [row] = await readRows<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(db, explain);
  const root = row?.["QUERY PLAN"][0]?.Plan;
  const all = root ? nodes(root) : [];
  const sequential = all.length === 0 || all.some((node) => node["Node Type"] === "Seq Scan" && node["Relation Name"] === "DataProduct");
  const statement = sequential ? countSql(filter, q, "recency") : free;
  ran.push(statement);
  const [counted] = await readRows<{ n: number }>(db, statement);
  // The rows the planner expects of the scan under the cap's LIMIT: the estimate of all matches.
  const rows = all.find((node) => node["Node Type"] === "Limit")?.Plans?.[0]?.["Plan Rows"];
  return { n: counted?.n ?? 0, estimated: typeof rows === "number" && rows > COUNT_CAP ? roundEstimate(rows) : null };
}

async function estimate(db: Db, statement: Prisma.Sql, planned: Prisma.Sql[]): Promise<number | null> {
  planned.push(statement);
  const [row] = await readRows<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }>(db, statement);
  const rows = row?.["QUERY PLAN"][0]?.Plan["Plan Rows"];
  return typeof rows === "number" && rows > COUNT_CAP ? roundEstimate(rows) : null;
}

/**
 * The catalog search behind both the page and `GET /api/v1/products`:
 * full-text over name and topic (weight A), tags (B) and description (C) with
 * prefix matching, ranked by the weight class matched; nearest names by
 * trigram similarity when the words match nothing (typos), with "did you
 * mean" names; filters, sorting and pagination. Counts are exact up to
 * 1,000, then "1,000+" (`totalIsExact: false`) with the planner's estimate
 * (`totalEstimate`, "about 27,000"). Plain statements, no
 * transaction: a read has nothing to make atomic and must not hold a pooled
 * connection longer than its queries. Every signed-in user may search:
 * discovery is the point. Rows come from SQL, not the ORM (the ORM's client
 * work cost more than the statements; same shape as findMany, tested), run
 * straight on the pool (read-rows.ts).
 */
export async function searchProducts(db: Db, actor: Actor, rawInput: unknown) {
  return runSearch(db, actor, rawInput, []);
}

/**
 * The statements one search runs (count, page with rows, or class ids then
 * rows, fuzzy names), for the benchmark to time the same SQL over a plain
 * connection and for the EXPLAIN guard test: the search is run once and its
 * statements recorded. `withEstimate` adds the planner's estimate (an
 * EXPLAIN: planned, never executed, so not one for the guard to EXPLAIN).
 */
export async function searchStatements(db: Db, actor: Actor, rawInput: unknown, options: { withEstimate?: boolean } = {}): Promise<{ text: string; values: unknown[] }[]> {
  const ran: Prisma.Sql[] = [];
  const planned: Prisma.Sql[] = [];
  await runSearch(db, actor, rawInput, ran, planned);
  return [...ran, ...(options.withEstimate ? planned : [])].map((s) => ({ text: s.text, values: s.values }));
}

/**
 * Values for the catalog's filter menus: domains, and the 50 most used tags
 * of the products the actor can find — from ProductTagCount, which triggers
 * keep, so the page's cost does not grow with the catalog.
 */
export async function catalogFacets(db: Db, actor: Actor) {
  const own = ownDomains(actor);
  const [domains, top, mine] = await Promise.all([
    db.domain.findMany({ select: { slug: true, name: true }, orderBy: { name: "asc" } }),
    readRows<{ tag: string }>(db, topTagsSql(50, own === null)),
    own && own.length > 0 ? readRows<{ tag: string }>(db, ownUnpublishedTagsSql(own)) : [],
  ]);
  const tags = top.map((t) => t.tag);
  // Their own drafts' tags (at most a domain's worth) join the menu.
  for (const { tag } of mine) if (!tags.includes(tag)) tags.push(tag);
  return { domains, tags };
}
