import { z } from "zod";
import { parseInput } from "../action.ts";
import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { requireVisible } from "../visibility.ts";
import { qualityRulesOf } from "./store.ts";

/*
 * Observed quality (issue 29): the share of a product's records that pass its
 * data-quality rules, from the counts the worker's sampler writes
 * (QualityObservation, five-minute buckets). Anyone who may see the product
 * sees it — a consumer decides before subscribing. A product nobody has
 * measured has no score ("not measured"), never a made-up one.
 *
 * A record passes a rule unless the rule is false for it (an expression that
 * errs lets it pass, as the client does; counted apart as errored). The
 * overall score is the share of records that passed every rule; a record that
 * does not decode with the product's schema fails it.
 */

/** The bucket the sampler counts in. */
export const QUALITY_BUCKET_MS = 5 * 60_000;
/** The row that counts whole records (rule names are lower-case words: no rule is called this). */
export const WHOLE_RECORD = "*";

const HOUR = 3_600_000;
/** Each window and the width of its chart's points. */
export const QUALITY_WINDOWS = { "1h": { span: HOUR, step: QUALITY_BUCKET_MS }, "24h": { span: 24 * HOUR, step: HOUR }, "7d": { span: 7 * 24 * HOUR, step: 6 * HOUR } } as const;
export type QualityWindow = keyof typeof QUALITY_WINDOWS;

export const productQualityInput = z.object({
  window: z.enum(["1h", "24h", "7d"], { message: "window is 1h, 24h or 7d." }).optional().default("24h"),
});

export interface QualityCounts {
  /** Records counted (passed + failed + errored). */
  records: number;
  passed: number;
  failed: number;
  errored: number;
  /** Share of records that pass (0–1); null when nothing was counted. */
  share: number | null;
}

export interface ProductQuality {
  productId: string;
  window: QualityWindow;
  from: string;
  to: string;
  /** Whether any record was sampled in the window. */
  measured: boolean;
  overall: QualityCounts;
  rules: (QualityCounts & { name: string; expression: string; onFailure: string })[];
  /** One point per step of the window, oldest first; share null where nothing was sampled. */
  series: { at: string; records: number; share: number | null }[];
  /** The newest bucket with counts. */
  lastSampledAt: string | null;
}

const wholeShare = (c: { passed: number; failed: number; errored: number }) => {
  const records = c.passed + c.failed + c.errored;
  return { records, ...c, share: records === 0 ? null : c.passed / records };
};
const ruleShare = (c: { passed: number; failed: number; errored: number }) => {
  const records = c.passed + c.failed + c.errored;
  return { records, ...c, share: records === 0 ? null : (records - c.failed) / records };
};

export async function readProductQuality(db: Db, actor: Actor, productId: string, rawInput: unknown, now = Date.now()): Promise<ProductQuality> {
  const input = parseInput(productQualityInput, rawInput ?? {});
  // Who may see the product's page may see its score; another domain's unpublished work is a 404, as there.
  await requireVisible(db, actor, "product", productId);
  const { span, step } = QUALITY_WINDOWS[input.window];
  // Whole steps, ending with the one now is in: the chart's points line up from one look to the next.
  const end = Math.floor(now / step) * step + step;
  const from = new Date(end - span);
  const [rules, totals, buckets] = await Promise.all([
    qualityRulesOf(db, productId),
    db.qualityObservation.groupBy({ by: ["rule"], where: { productId, bucket: { gte: from } }, _sum: { passed: true, failed: true, errored: true } }),
    db.qualityObservation.findMany({ where: { productId, rule: WHOLE_RECORD, bucket: { gte: from } }, orderBy: { bucket: "asc" }, select: { bucket: true, passed: true, failed: true, errored: true } }),
  ]);
  const sums = new Map(totals.map((t) => [t.rule, { passed: t._sum.passed ?? 0, failed: t._sum.failed ?? 0, errored: t._sum.errored ?? 0 }]));
  const zero = { passed: 0, failed: 0, errored: 0 };
  const overall = wholeShare(sums.get(WHOLE_RECORD) ?? zero);
  const points = new Map<number, { passed: number; failed: number; errored: number }>();
  for (const b of buckets) {
    const at = Math.floor(b.bucket.getTime() / step) * step;
    const p = points.get(at) ?? { passed: 0, failed: 0, errored: 0 };
    p.passed += b.passed;
    p.failed += b.failed;
    p.errored += b.errored;
    points.set(at, p);
  }
  const series: ProductQuality["series"] = [];
  for (let at = from.getTime(); at < end; at += step) {
    const s = wholeShare(points.get(at) ?? zero);
    series.push({ at: new Date(at).toISOString(), records: s.records, share: s.share });
  }
  return {
    productId,
    window: input.window,
    from: from.toISOString(),
    to: new Date(Math.min(now, end)).toISOString(),
    measured: overall.records > 0,
    overall,
    rules: rules.map((r) => ({ name: r.name, expression: r.expression, onFailure: r.onFailure, ...ruleShare(sums.get(r.name) ?? zero) })),
    series,
    lastSampledAt: buckets.at(-1)?.bucket.toISOString() ?? null,
  };
}

/**
 * The catalog list's score per product: the share of records that passed
 * every rule over the last 24 hours, only for products measured in that time
 * (absent from the map: "not measured"). The caller passes ids it already
 * shows the actor (a search result), so no visibility check is needed here.
 */
export async function qualityScores(db: Db, productIds: readonly string[], now = Date.now()): Promise<Map<string, { share: number; records: number }>> {
  const out = new Map<string, { share: number; records: number }>();
  if (productIds.length === 0) return out;
  const rows = await db.qualityObservation.groupBy({
    by: ["productId"],
    where: { productId: { in: [...productIds] }, rule: WHOLE_RECORD, bucket: { gte: new Date(now - QUALITY_WINDOWS["24h"].span) } },
    _sum: { passed: true, failed: true, errored: true },
  });
  for (const r of rows) {
    const s = wholeShare({ passed: r._sum.passed ?? 0, failed: r._sum.failed ?? 0, errored: r._sum.errored ?? 0 });
    if (s.share !== null) out.set(r.productId, { share: s.share, records: s.records });
  }
  return out;
}

/** A search result with each item's observed quality (`quality: null` = not measured), for the catalog page and `GET /api/v1/products`. */
export async function withQualityScores<T extends { items: { id: string }[] }>(db: Db, result: T, now = Date.now()): Promise<Omit<T, "items"> & { items: (T["items"][number] & { quality: { share: number; records: number } | null })[] }> {
  const scores = await qualityScores(
    db,
    result.items.map((i) => i.id),
    now,
  );
  return { ...result, items: result.items.map((i) => ({ ...i, quality: scores.get(i.id) ?? null })) };
}
