import type { Prisma } from "@prisma/client";
import { parseInput } from "../action.ts";
import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { hasGlobal } from "../permissions.ts";
import { readRows } from "../read-rows.ts";
import { searchProductsInput } from "../validation.ts";
import { countMatches } from "./search-count.ts";
import { COUNT_CAP, detailsSql, fuzzySql, ownUnpublishedTagsSql, pageRowsSql, PUBLISHED_STATUSES, RELEVANCE_TIERS, tierRowsSql, tierSql, topTagsSql, tsQueryText, type RelevanceTier, type SearchFilter, type SearchSort } from "./search-sql.ts";

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
 * benchmark and the EXPLAIN guard): the count's plan beside the page — for
 * a fixed order the page with its rows in one statement; for relevance the
 * classes' ids, then the rows —, the capped count unless the plan's
 * statistics prove more than the cap (search-count.ts), and, when the words
 * match nothing, the nearest names and their rows.
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
  // The count and the page side by side (pooled connections, one round trip of wall time).
  const [counted, page] = await Promise.all([countMatches(db, filter, q, ran, planned), pageRows()]);
  let rows = page;
  // The exact total when known: the capped count's up to the cap; a page shorter than asked for is the
  // last, so offset + its rows (past the cap too); an empty page after a skipped count asks the count.
  let exact: number | null;
  if (page.length > 0 && page.length < input.pageSize) exact = offset + page.length;
  else {
    const n = counted.n ?? (page.length === 0 ? await counted.count() : null);
    exact = n !== null && n <= COUNT_CAP ? n : null;
  }
  let match: "all" | "text" | "fuzzy" = q ? "text" : "all";
  let suggestions: string[] = [];
  if (q && exact === 0) {
    // No product has these words: show the nearest names instead, and offer them.
    const fuzzy = fuzzySql(filter, q);
    ran.push(fuzzy);
    const near = await readRows<{ id: string; name: string; distance: number }>(db, fuzzy);
    match = "fuzzy";
    exact = near.length;
    rows = await details(db, near.slice(offset, offset + input.pageSize).map((r) => r.id), ran);
    suggestions = [...new Set(near.map((r) => r.name))].slice(0, 5);
  }
  const items = rows.map(({ subscribers, domain, ...product }) => ({
    ...product,
    domain: typeof domain === "string" ? (JSON.parse(domain) as DetailsDomain) : domain,
    _count: { subscriptions: subscribers },
  }));
  const totalIsExact = exact !== null;
  const total = exact ?? COUNT_CAP;
  // Past the cap the planner says roughly how many (not recorded in `ran`: it is planned, never executed).
  const totalEstimate = totalIsExact ? null : counted.estimated;
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

/**
 * The catalog search behind both the page and `GET /api/v1/products`:
 * full-text over name and topic (weight A), tags (B) and description (C) with
 * prefix matching, ranked by the weight class matched; nearest names by
 * trigram similarity when the words match nothing (typos), with "did you
 * mean" names; filters, sorting and pagination. Counts are exact up to
 * 1,000, then "1,000+" (`totalIsExact: false`) with the planner's estimate
 * (`totalEstimate`, "about 27,000"); the count is skipped where the
 * statistics prove more than 1,000 (search-count.ts), and a page shorter
 * than asked for gives the exact total. Plain statements, no
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
 * The statements one search runs (count unless skipped, page with rows, or
 * class ids then rows, fuzzy names), for the benchmark to time the same SQL
 * over a plain connection and for the EXPLAIN guard test: the search is run
 * once and its statements recorded. `withEstimate` adds the count's plan
 * (the estimates EXPLAIN: planned, never executed, so not one for the guard
 * to EXPLAIN).
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
