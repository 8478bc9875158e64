import { type Prisma } from "@prisma/client";
import { parseInput } from "../action.ts";
import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { hasGlobal } from "../permissions.ts";
import { searchProductsInput } from "../validation.ts";
import { COUNT_CAP, countSql, detailsSql, fuzzySql, ownUnpublishedTagsSql, pageSql, PUBLISHED_STATUSES, RELEVANCE_TIERS, tierSql, topTagsSql, tsQueryText, type SearchFilter, type SearchSort } from "./search-sql.ts";

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
type DetailsDomain = { slug: string; name: string };
/** A row of detailsSql: the product's columns, its domain, its active subscribers. */
type DetailsRow = Prisma.DataProductGetPayload<object> & { subscribers: number; domain: DetailsDomain | string };

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

/**
 * The page's ids: one statement for a fixed order; for relevance, the
 * classes in order until offset + page size ids are known. `ran` collects
 * the statements executed (for the benchmark and the EXPLAIN guard).
 */
async function pageIds(db: Db, filter: SearchFilter, q: string | null, sort: SearchSort, offset: number, limit: number, ran: Prisma.Sql[] = []): Promise<string[]> {
  if (!q || sort !== "relevance" || !tsQueryText(q)) {
    const statement = pageSql(filter, q, sort, offset, limit);
    ran.push(statement);
    return (await db.$queryRaw<{ id: string }[]>(statement)).map((r) => r.id);
  }
  const ids: string[] = [];
  for (const tier of RELEVANCE_TIERS) {
    const statement = tierSql(filter, q, tier, offset + limit - ids.length);
    ran.push(statement);
    ids.push(...(await db.$queryRaw<{ id: string }[]>(statement)).map((r) => r.id));
    if (ids.length >= offset + limit) break;
  }
  return ids.slice(offset, offset + limit);
}

/**
 * The catalog search behind both the page and `GET /api/v1/products`:
 * full-text over name and topic (weight A), tags (B) and description (C) with
 * prefix matching, ranked by the weight class matched; nearest names by
 * trigram similarity when the words match nothing (typos), with "did you
 * mean" names; filters, sorting and pagination. Counts are exact up to
 * 1,000, then "1,000+" (`totalIsExact: false`). Plain statements, no
 * transaction: a read has nothing to make atomic and must not hold a pooled
 * connection longer than its queries. Every signed-in user may search:
 * discovery is the point.
 */
export async function searchProducts(db: Db, actor: Actor, rawInput: unknown) {
  const { input, q, sort, filter, offset } = plan(actor, rawInput);
  const [[counted], page] = await Promise.all([
    db.$queryRaw<{ n: number }[]>(countSql(filter, q)),
    pageIds(db, filter, q, sort, offset, input.pageSize),
  ]);
  let n = counted?.n ?? 0;
  let ids = page;
  let match: "all" | "text" | "fuzzy" = q ? "text" : "all";
  let suggestions: string[] = [];
  if (q && n === 0) {
    // No product has these words: show the nearest names instead, and offer them.
    const near = await db.$queryRaw<{ id: string; name: string; distance: number }[]>(fuzzySql(filter, q));
    match = "fuzzy";
    n = near.length;
    ids = near.slice(offset, offset + input.pageSize).map((r) => r.id);
    suggestions = [...new Set(near.map((r) => r.name))].slice(0, 5);
  }
  const rows = ids.length > 0 ? await db.$queryRaw<DetailsRow[]>(detailsSql(ids)) : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const items = ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    const { subscribers, domain, ...product } = row;
    return [{ ...product, domain: typeof domain === "string" ? (JSON.parse(domain) as DetailsDomain) : domain, _count: { subscriptions: subscribers } }];
  });
  const totalIsExact = n <= COUNT_CAP;
  const total = Math.min(n, COUNT_CAP);
  return {
    items,
    total,
    /** false: more than `total` products match ("1,000+"). */
    totalIsExact,
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
 * The statements one search runs (count, page, details with subscriber counts),
 * for the benchmark to time the same SQL over a plain connection and for the
 * EXPLAIN guard test. The page ids come from running the page queries once.
 */
export async function searchStatements(db: Db, actor: Actor, rawInput: unknown): Promise<{ text: string; values: unknown[] }[]> {
  const { input, q, sort, filter, offset } = plan(actor, rawInput);
  const statements: Prisma.Sql[] = [countSql(filter, q)];
  let ids = await pageIds(db, filter, q, sort, offset, input.pageSize, statements);
  if (q && ids.length === 0 && offset === 0) {
    const fuzzy = fuzzySql(filter, q);
    statements.push(fuzzy);
    ids = (await db.$queryRaw<{ id: string }[]>(fuzzy)).slice(0, input.pageSize).map((r) => r.id);
  }
  if (ids.length > 0) statements.push(detailsSql(ids));
  return statements.map((s) => ({ text: s.text, values: s.values }));
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
    db.$queryRaw<{ tag: string }[]>(topTagsSql(50, own === null)),
    own && own.length > 0 ? db.$queryRaw<{ tag: string }[]>(ownUnpublishedTagsSql(own)) : [],
  ]);
  const tags = top.map((t) => t.tag);
  // Their own drafts' tags (at most a domain's worth) join the menu.
  for (const { tag } of mine) if (!tags.includes(tag)) tags.push(tag);
  return { domains, tags };
}
