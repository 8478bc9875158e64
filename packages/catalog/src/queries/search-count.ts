import type { Prisma } from "@prisma/client";
import type { Db } from "../db.ts";
import { readRows } from "../read-rows.ts";
import { COUNT_CAP, countSql, estimatesSql, roundEstimate, tableChangesSql, tsQueryText, type EstimatesStatement, type SearchFilter } from "./search-sql.ts";

/*
 * How many products a search matches, for "1,000 products" / "1,000+".
 *
 * The capped count (countSql: at most COUNT_CAP + 1 index entries) was most
 * of PostgreSQL's work for a common word or no filter at 100,000 products.
 * It is skipped when the planner's statistics prove there are more than
 * COUNT_CAP matches with room to spare. The proof is the Bonferroni
 * inequality: k sets within a table of N rows intersect in at least
 * Σ|A_i| − (k − 1)·N rows, whatever their correlation. The sets are the
 * search's conditions one by one (their row estimates: a single column's
 * statistics, no independence assumption), and the visibility rule, whose
 * set is at least N − hidden (hidden: every row in a status a member may not
 * see). The margin covers what estimates get wrong: sampling (N/50; ANALYZE
 * samples 30,000 rows, a frequency's error at 100,000 rows is a few hundred),
 * and every row changed since the statistics were taken (twice: a change can
 * move a row out of one set and into another's complement). Whatever cannot
 * be bounded so (a domain filter, a member's filter on an unpublished status,
 * a table never analysed) is counted.
 */

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Plan Rows": number;
  "Parallel Aware"?: boolean;
  "Subplan Name"?: string;
  Plans?: PlanNode[];
}

const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

export interface BoundInputs {
  /** The planner's rows for DataProduct as a whole. */
  table: number;
  /** The rows the visibility rule may hide from the actor (0 when it hides none). */
  hidden: number;
  /** Each condition's rows on its own. */
  narrow: number[];
  /** Rows changed since the table was last analysed. */
  changed: number;
}

/** The fewest rows all conditions can share: Σ narrow − (k − 1)·N − hidden (never below 0). */
export function matchesAtLeast(inputs: BoundInputs): number {
  const k = inputs.narrow.length;
  const sum = inputs.narrow.reduce((a, b) => a + b, 0);
  return Math.max(0, sum - (k - 1) * inputs.table - inputs.hidden);
}

/** What the lower bound must reach for the count to be skipped: twice the cap, plus the estimates' margin. */
export function skipThreshold(inputs: Pick<BoundInputs, "table" | "changed">): number {
  return 2 * COUNT_CAP + inputs.table / 50 + 2 * inputs.changed;
}

/** Whether the statistics prove more than COUNT_CAP matches (with no condition there is nothing to bound). */
export function provesMoreThanCap(inputs: BoundInputs): boolean {
  return inputs.narrow.length > 0 && matchesAtLeast(inputs) >= skipThreshold(inputs);
}

interface TableChanges {
  changed: number;
  analysed: boolean;
}

/**
 * The table's changes since its last ANALYZE, read at most once a second per
 * client (one small statement, not one per search; PostgreSQL's statistics
 * counters themselves trail by up to about a second). Concurrent searches
 * share one read.
 */
const CHANGES_TTL_MS = 1_000;
const changesRead = new WeakMap<object, { at: number; value: Promise<TableChanges> }>();

export function tableChanges(db: Db, now = Date.now()): Promise<TableChanges> {
  const cached = changesRead.get(db);
  if (cached && now - cached.at < CHANGES_TTL_MS) return cached.value;
  const value = readRows<{ changed: number; analysed: boolean }>(db, tableChangesSql()).then(([row]) => ({ changed: row?.changed ?? 0, analysed: row?.analysed ?? false }));
  changesRead.set(db, { at: now, value });
  // A failed read is not kept: the next search asks again.
  value.catch(() => {
    if (changesRead.get(db)?.value === value) changesRead.delete(db);
  });
  return value;
}

/** The estimates statement's InitPlans, in their order (InitPlan 1, 2, …). */
function initPlans(root: PlanNode): PlanNode[] {
  const number = (node: PlanNode) => Number(/InitPlan (\d+)/.exec(node["Subplan Name"] ?? "")?.[1] ?? NaN);
  return (root.Plans ?? []).filter((node) => !Number.isNaN(number(node))).sort((a, b) => number(a) - number(b));
}

/** The rows a `SELECT 1 … LIMIT 1` part expects of its scan of DataProduct (0 when it plans none: a condition that is always false). */
function scanRows(part: PlanNode): number {
  return nodes(part).find((node) => node["Relation Name"] === "DataProduct")?.["Plan Rows"] ?? 0;
}

export interface Counted {
  /** The capped count (at most COUNT_CAP + 1), or null when the statistics proved more than COUNT_CAP and it was not run. */
  n: number | null;
  /** The planner's estimate of all matches, rounded, when it is above the cap; else null. */
  estimated: number | null;
  /** Runs the capped count (the search runs it after all when a skipped count's page comes back empty). */
  count: () => Promise<number>;
}

/**
 * The search's count: planned first (estimatesSql, one EXPLAIN beside the
 * page), then skipped if the statistics prove more than COUNT_CAP matches,
 * else run in the form its plan serves best. For words without a domain:
 * the planner's own form unless it reads DataProduct sequentially (left
 * free, the planner may read a common word's table sequentially until a
 * thousand match — which the EXPLAIN guard forbids, as the same plan reads
 * the whole table when the matches sit at its end), else the recency walk.
 * Without words, countSql's default form. Statements run go onto `ran`; the
 * EXPLAIN onto `planned`.
 */
export async function countMatches(db: Db, filter: SearchFilter, q: string | null, ran: Prisma.Sql[], planned: Prisma.Sql[]): Promise<Counted> {
  const run = async (statement: Prisma.Sql): Promise<number> => {
    ran.push(statement);
    const [row] = await readRows<{ n: number }>(db, statement);
    return row?.n ?? 0;
  };
  // Words that are all punctuation match nothing: their count is `WHERE false`, nothing to plan.
  if (q && !tsQueryText(q)) {
    const n = await run(countSql(filter, q));
    return { n, estimated: null, count: () => run(countSql(filter, q)) };
  }
  const estimates = estimatesSql(filter, q);
  planned.push(estimates.statement);
  const text = q !== null && !filter.domain;
  if (!estimates.bound && !text) {
    // Nothing to decide from the plan: the count runs beside it.
    const statement = countSql(filter, q);
    const [n, plan] = await Promise.all([run(statement), readPlan(db, estimates)]);
    return { n, estimated: estimateOf(plan.rows), count: () => run(statement) };
  }
  const [plan, changes] = await Promise.all([readPlan(db, estimates), estimates.bound ? tableChanges(db) : null]);
  const statement = text ? countSql(filter, q, plan.sequential ? "recency" : "free") : countSql(filter, q);
  const count = () => run(statement);
  const inputs = plan.bound && changes?.analysed ? { ...plan.bound, changed: changes.changed } : null;
  if (inputs && provesMoreThanCap(inputs)) {
    // Skipped: about as many as the planner expects, and never fewer than proven (its guess for a prefix can be lower).
    return { n: null, estimated: estimateOf(Math.max(plan.rows ?? 0, matchesAtLeast(inputs))), count };
  }
  return { n: await count(), estimated: estimateOf(plan.rows), count };
}

/** An estimate worth showing: above the cap, two significant figures. */
const estimateOf = (rows: number | null) => (rows !== null && rows > COUNT_CAP ? roundEstimate(rows) : null);

interface ReadPlan {
  /** The planner's rows for all the search's conditions together (the capped count's scan), if it has them. */
  rows: number | null;
  /** Whether the capped count's free form reads DataProduct sequentially. */
  sequential: boolean;
  bound: Omit<BoundInputs, "changed"> | null;
}

async function readPlan(db: Db, estimates: EstimatesStatement): Promise<ReadPlan> {
  const [row] = await readRows<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(db, estimates.statement);
  const root = row?.["QUERY PLAN"][0]?.Plan;
  const parts = root ? initPlans(root) : [];
  const expected = 2 + (estimates.bound ? Number(estimates.bound.hidden) + estimates.bound.narrow : 0);
  if (parts.length !== expected) throw new Error(`The search's estimates statement planned ${parts.length} parts, not ${expected}.`);
  const [capped, table, ...rest] = parts;
  const all = capped ? nodes(capped) : [];
  const sequential = all.some((node) => node["Node Type"] === "Seq Scan" && node["Relation Name"] === "DataProduct");
  // The rows the planner expects of the scan under the cap's LIMIT: the estimate of all matches.
  const limited = all.find((node) => node["Node Type"] === "Limit")?.Plans?.[0]?.["Plan Rows"];
  const rows = typeof limited === "number" ? limited : null;
  // A parallel scan's rows are one worker's share: no bound from such a plan (LIMIT 1 should never get one).
  const parallel = parts.slice(1).some((part) => nodes(part).some((node) => node["Parallel Aware"] === true));
  const tableRows = table ? scanRows(table) : 0;
  if (!estimates.bound || parallel || tableRows <= 0) return { rows, sequential, bound: null };
  const [hidden, narrow] = estimates.bound.hidden ? [rest[0] ? scanRows(rest[0]) : tableRows, rest.slice(1)] : [0, rest];
  return { rows, sequential, bound: { table: tableRows, hidden, narrow: narrow.map(scanRows) } };
}
