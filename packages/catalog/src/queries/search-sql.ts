import { Prisma } from "@prisma/client";
import { PRODUCT_STATUSES } from "../enums.ts";

/*
 * The SQL of the catalog search, one builder per statement, so the search,
 * its benchmark (raw SQL side by side) and the EXPLAIN guard test run exactly
 * the same statements. Every branch is index-backed:
 *  - text: the weighted tsvector (GIN "DataProduct_searchVector_idx");
 *  - typos: nearest names by word similarity (GiST "DataProduct_name_trgm_gist_idx", KNN,
 *    with a 256-byte signature so the nearest-first walk reads few pages);
 *  - sorts: (updatedAt DESC, id), (createdAt DESC, id), (name, id);
 *  - filters: tags (GIN), status, classification, domain (unique index on domainId, slug, …),
 *    a tag with a classification (GIN over both, with btree_gin for the enum).
 * Values are always bound parameters; only constants are spliced in.
 */

/** Statuses in which a product is published: anyone signed in may find it. */
export const PUBLISHED_STATUSES = ["APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"] as const;

/** Exact counts stop here; beyond it the catalog says "1,000+". */
export const COUNT_CAP = 1_000;
/** Candidates the typo search considers (nearest names first). */
export const FUZZY_CANDIDATES = 100;
/** Word-similarity distance (1 − similarity) up to which a name counts as a near match: "refnds" ~ "Refund" is 0.57. */
export const FUZZY_MAX_DISTANCE = 0.6;

export type SearchSort = "relevance" | "updated" | "created" | "name";

export interface SearchFilter {
  /** null: the actor sees every product (governance); otherwise the domains whose unpublished products they see. */
  ownDomainIds: string[] | null;
  domain?: string;
  classification?: string;
  tag?: string;
  status?: string;
}

const PUBLISHED = Prisma.raw(PUBLISHED_STATUSES.map((s) => `'${s}'`).join(", "));

/** A search box's words: letters and digits only, lower case, at most 8. */
export function searchWords(q: string): string[] {
  return q.toLowerCase().match(/[\p{L}\p{N}]+/gu)?.slice(0, 8) ?? [];
}

/**
 * A search box's words as a tsquery: every word required, each a prefix
 * (`ref` finds Refunds), letters and digits only; `weights` restricts the
 * match to those weight classes (A = name and topic, B = tags). null: no word.
 */
export function tsQueryText(q: string, weights = ""): string | null {
  const words = searchWords(q);
  if (words.length === 0) return null;
  return words.map((w) => `${w}:*${weights}`).join(" & ");
}

/** The WHERE conditions every statement shares: visibility, status, and the filters. */
export function filterConditions(f: SearchFilter): Prisma.Sql[] {
  const out: Prisma.Sql[] = [];
  if (f.ownDomainIds !== null) out.push(Prisma.sql`(p.status IN (${PUBLISHED}) OR p."domainId" = ANY(${f.ownDomainIds}::text[]))`);
  out.push(statusCondition(f));
  if (f.domain) out.push(Prisma.sql`p."domainId" = (SELECT d.id FROM "Domain" d WHERE d.slug = ${f.domain})`);
  if (f.classification) out.push(classificationCondition(f.classification));
  if (f.tag) out.push(tagCondition(f.tag));
  return out;
}

const statusCondition = (f: SearchFilter) => (f.status ? Prisma.sql`p.status = ${f.status}::"ProductStatus"` : Prisma.sql`p.status <> 'RETIRED'`);
const classificationCondition = (classification: string) => Prisma.sql`p.classification = ${classification}::"Classification"`;
const tagCondition = (tag: string) => Prisma.sql`p.tags @> ARRAY[${tag}]::text[]`;

const where = (conditions: Prisma.Sql[]) => Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}`;
const matches = (tsquery: string) => Prisma.sql`p."searchVector" @@ to_tsquery('english', ${tsquery})`;

const ORDER: Record<Exclude<SearchSort, "relevance">, Prisma.Sql> = {
  updated: Prisma.sql`p."updatedAt" DESC, p.id`,
  created: Prisma.sql`p."createdAt" DESC, p.id`,
  name: Prisma.sql`p.name, p.id`,
};

/**
 * Matching products counted up to COUNT_CAP + 1, never further: the count
 * costs at most a thousand index entries, whatever the catalog holds.
 *
 * `recency` orders the capped rows for the plan's sake, not the result's: it
 * makes the planner walk the recency index, never a sequential scan (a LIMIT
 * alone invites one that stops after a thousand matches — cheap for a common
 * word, the whole table where the matches sit at its end). `free` leaves the
 * path to the planner: with a domain, the domain's own index (its products
 * only: 1.4 ms at 100k against 8 ms walking the recency index past every
 * other domain's), and for words the text index (textCount in
 * search-products.ts picks the form from the plan).
 */
export function countSql(f: SearchFilter, q: string | null, form: "recency" | "free" = f.domain ? "free" : "recency"): Prisma.Sql {
  const conditions = filterConditions(f);
  const tsquery = q ? tsQueryText(q) : null;
  if (q) conditions.push(tsquery ? matches(tsquery) : Prisma.sql`false`);
  const order = form === "recency" ? Prisma.sql`ORDER BY ${ORDER.updated}` : Prisma.empty;
  return Prisma.sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM "DataProduct" p ${where(conditions)} ${order} LIMIT ${COUNT_CAP + 1}) AS capped`;
}

/**
 * Statuses the visibility rule can hide from a member once RETIRED is ruled
 * out by the status condition: the unpublished ones (other domains' drafts,
 * reviews and rejections).
 */
const HIDDEN_STATUSES = Prisma.raw(
  PRODUCT_STATUSES.filter((s) => s !== "RETIRED" && !(PUBLISHED_STATUSES as readonly string[]).includes(s)).map((s) => `'${s}'`).join(", "),
);

/** The estimates statement and what its InitPlans are, in order (search-count.ts reads them). */
export interface EstimatesStatement {
  statement: Prisma.Sql;
  /**
   * null: no lower bound can be derived for this search (a domain filter —
   * its condition's estimate is the planner's generic one for a value only
   * known at run time —, or a member filtering on a status they may not see
   * everywhere). Otherwise what follows InitPlan 1 (the capped count) and 2
   * (the table's rows): whether InitPlan 3 estimates the rows the visibility
   * rule hides, and how many narrow conditions follow.
   */
  bound: { hidden: boolean; narrow: number } | null;
}

/**
 * One EXPLAIN, never executed, that plans what deciding the count needs
 * (about a millisecond of planning, no scan):
 *  1. the capped count in the planner's own form (countSql "free"): its
 *     plan says whether that form scans, and its scan's rows are the
 *     estimate of all matches ("about 27,000");
 *  2. the table's rows as the planner reckons them (reltuples scaled to the
 *     table's current size);
 *  3. for a member, the rows the visibility rule may hide (unpublished
 *     statuses, anyone's);
 *  4. each condition alone — the status condition, the classification, the
 *     tag, and each word on its own (the planner's estimate of several words
 *     together assumes they are independent, which is no bound). A word as
 *     the whole lexeme, not the prefix the search matches: its rows are a
 *     subset of the prefix's, and its estimate is the lexeme's frequency in
 *     the statistics' sample, where a prefix's is extrapolated from the
 *     lexemes that match it — or, with fewer than 100 of them in the
 *     statistics, PostgreSQL's fixed guess of 2 %.
 * Each of 2–4 is `SELECT 1 … LIMIT 1`, so none is planned as a parallel
 * scan (whose rows are per worker).
 */
export function estimatesSql(f: SearchFilter, q: string | null): EstimatesStatement {
  const one = (condition: Prisma.Sql | null) => Prisma.sql`(SELECT 1 FROM "DataProduct" p ${condition ? where([condition]) : Prisma.empty} LIMIT 1)`;
  const parts: Prisma.Sql[] = [Prisma.sql`(${countSql(f, q, "free")})`, one(null)];
  const unseen = f.ownDomainIds !== null && f.status !== undefined && !(PUBLISHED_STATUSES as readonly string[]).includes(f.status);
  const words = q ? searchWords(q) : [];
  let bound: EstimatesStatement["bound"] = null;
  if (!f.domain && !unseen && (!q || words.length > 0)) {
    // With a status filter the rule hides nothing the filter lets through (published, or governance).
    const hidden = f.ownDomainIds !== null && f.status === undefined;
    if (hidden) parts.push(one(Prisma.sql`p.status IN (${HIDDEN_STATUSES})`));
    const narrow = [statusCondition(f), ...(f.classification ? [classificationCondition(f.classification)] : []), ...(f.tag ? [tagCondition(f.tag)] : []), ...words.map((w) => matches(w))];
    parts.push(...narrow.map(one));
    bound = { hidden, narrow: narrow.length };
  }
  return { statement: Prisma.sql`EXPLAIN (FORMAT JSON) SELECT ${Prisma.join(parts, ", ")}`, bound };
}

/**
 * How far the statistics may be behind the table: rows inserted, updated or
 * deleted since DataProduct was last analysed, and whether it ever was
 * (without statistics the planner's estimates are defaults, no evidence).
 */
export function tableChangesSql(): Prisma.Sql {
  return Prisma.sql`
    SELECT coalesce(s.n_mod_since_analyze, 0)::float8 AS changed,
           (s.last_analyze IS NOT NULL OR s.last_autoanalyze IS NOT NULL) AS analysed
      FROM pg_stat_user_tables s WHERE s.relid = '"DataProduct"'::regclass`;
}

/** Two significant figures: 27,431 → 27,000 (an estimate claims no more). */
export function roundEstimate(n: number): number {
  if (n < 100) return Math.round(n);
  const unit = 10 ** (Math.floor(Math.log10(n)) - 1);
  return Math.round(n / unit) * unit;
}

/** The relevance classes, best first: 1 all words in name or topic, 2 with the tags, 3 anywhere (the description). */
export const RELEVANCE_TIERS = [1, 2, 3] as const;
export type RelevanceTier = (typeof RELEVANCE_TIERS)[number];

/**
 * The ids of one page in a fixed order (`updated`, `created`, `name`; also
 * `relevance` without words). Relevance with words is `tierSql`, one class
 * at a time.
 */
export function pageSql(f: SearchFilter, q: string | null, sort: SearchSort, offset: number, limit: number): Prisma.Sql {
  const conditions = filterConditions(f);
  const tsquery = q ? tsQueryText(q) : null;
  if (q && !tsquery) return Prisma.sql`SELECT NULL::text AS id WHERE false`;
  if (tsquery) conditions.push(matches(tsquery));
  const order = ORDER[sort === "relevance" ? "updated" : sort];
  return Prisma.sql`SELECT p.id FROM "DataProduct" p ${where(conditions)} ORDER BY ${order} OFFSET ${offset} LIMIT ${limit}`;
}

/**
 * One relevance class's first `limit` ids, most recent first. The search
 * asks the classes in order and stops once it has offset + page-size ids:
 * a common word fills the page from class 1 with one short index walk, and
 * the later classes — which for such a word may be empty, and would then
 * walk the whole recency index to prove it — are never asked.
 */
export function tierSql(f: SearchFilter, q: string, tier: RelevanceTier, limit: number): Prisma.Sql {
  const all = tsQueryText(q) ?? "";
  const inNameOrTopic = tsQueryText(q, "A") ?? "";
  const withTags = tsQueryText(q, "AB") ?? "";
  const extra =
    tier === 1 ? [matches(inNameOrTopic)]
    : tier === 2 ? [matches(withTags), Prisma.sql`NOT ${matches(inNameOrTopic)}`]
    : [matches(all), Prisma.sql`NOT ${matches(withTags)}`];
  return Prisma.sql`SELECT p.id FROM "DataProduct" p ${where([...filterConditions(f), ...extra])} ORDER BY ${ORDER.updated} LIMIT ${limit}`;
}

/**
 * Names nearest to the query by word similarity (pg_trgm `<<->`, KNN over the
 * GiST index): a bounded walk of FUZZY_CANDIDATES entries, then the distance
 * cut. Used when the text search finds nothing — for the results and for the
 * "did you mean" names.
 */
export function fuzzySql(f: SearchFilter, q: string): Prisma.Sql {
  const conditions = filterConditions(f);
  return Prisma.sql`
    SELECT id, name, distance FROM (
      SELECT p.id, p.name, ${q} <<-> p.name AS distance FROM "DataProduct" p ${where(conditions)}
       ORDER BY ${q} <<-> p.name LIMIT ${FUZZY_CANDIDATES}
    ) AS nearest
    WHERE distance <= ${FUZZY_MAX_DISTANCE}
    ORDER BY distance, id`;
}

/**
 * The columns of a DataProduct row as the ORM reads them (every scalar field;
 * the generated searchVector is not one), so the details statement hands back
 * exactly the shape of `findMany` (test/search-details.integration.test.ts).
 */
const PRODUCT_COLUMNS = Prisma.raw(Object.values(Prisma.DataProductScalarFieldEnum).map((c) => `p."${c}"`).join(", "));

/**
 * The page's rows with their domain and their active subscribers, in one
 * statement: primary-key lookups, and per row an index-only count over
 * Subscription(productId, status). (The ORM's findMany with the domain took
 * two queries and several milliseconds of client work per request.)
 */
export function detailsSql(ids: string[]): Prisma.Sql {
  return Prisma.sql`
    SELECT ${DETAILS_COLUMNS}
      FROM "DataProduct" p JOIN "Domain" d ON d.id = p."domainId"
     WHERE p.id = ANY(${ids}::text[])`;
}

const DETAILS_COLUMNS = Prisma.sql`${PRODUCT_COLUMNS}, json_build_object('slug', d.slug, 'name', d.name) AS domain,
           (SELECT count(*)::int FROM "Subscription" s WHERE s."productId" = p.id AND s.status = 'ACTIVE') AS subscribers`;

/**
 * A page in a fixed order with its rows' details (detailsSql's columns), in
 * one statement: the page's short index walk (pageSql) as a subquery, then
 * primary-key lookups. One round trip instead of two for the common case
 * (no words, or words with an explicit sort).
 */
export function pageRowsSql(f: SearchFilter, q: string | null, sort: Exclude<SearchSort, "relevance">, offset: number, limit: number): Prisma.Sql {
  return Prisma.sql`
    SELECT ${DETAILS_COLUMNS}
      FROM (${pageSql(f, q, sort, offset, limit)}) AS page
      JOIN "DataProduct" p ON p.id = page.id JOIN "Domain" d ON d.id = p."domainId"
     ORDER BY ${ORDER[sort]}`;
}

/**
 * One relevance class's first `limit` rows with their details (detailsSql's
 * columns) in one statement: tierSql's short index walk as a subquery, then
 * primary-key lookups — the first page of a common word in one round trip.
 */
export function tierRowsSql(f: SearchFilter, q: string, tier: RelevanceTier, limit: number): Prisma.Sql {
  return Prisma.sql`
    SELECT ${DETAILS_COLUMNS}
      FROM (${tierSql(f, q, tier, limit)}) AS page
      JOIN "DataProduct" p ON p.id = page.id JOIN "Domain" d ON d.id = p."domainId"
     ORDER BY ${ORDER.updated}`;
}

/**
 * The filter menu's tags, most used first, from the trigger-kept counts:
 * published products for everyone, unpublished ones too for governance
 * (a table of one row per tag, whatever the catalog holds).
 */
export function topTagsSql(limit: number, includeUnpublished: boolean): Prisma.Sql {
  return includeUnpublished
    ? Prisma.sql`SELECT tag FROM "ProductTagCount" WHERE products + unpublished > 0 ORDER BY products + unpublished DESC, tag LIMIT ${limit}`
    : Prisma.sql`SELECT tag FROM "ProductTagCount" WHERE products > 0 ORDER BY products DESC, tag LIMIT ${limit}`;
}

/** Tags of the unpublished products of the actor's own domains (the few the shared counts leave out for them). */
export function ownUnpublishedTagsSql(domainIds: string[]): Prisma.Sql {
  return Prisma.sql`SELECT DISTINCT unnest(p.tags) AS tag FROM "DataProduct" p WHERE p."domainId" = ANY(${domainIds}::text[]) AND p.status IN ('DRAFT', 'IN_REVIEW', 'REJECTED')`;
}
