import { Prisma } from "@prisma/client";
import { z } from "zod";
import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, NotFoundError, ValidationError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";
import { activePolicy } from "../policies/store.ts";
import { fieldErrors } from "../validation.ts";
import { allocate, costOfUsage, formatMicros, type ProductUsage } from "./compute.ts";
import type { ChargebackRule, Prices } from "./prices.ts";

/*
 * GET /api/v1/costs?month=YYYY-MM: the month's usage and cost per domain and
 * product, the split charged to consuming domains, and the total. Amounts are
 * decimal strings with six decimals (exact: they are computed in millionths
 * of the currency, and the split is allocated with largest remainders), so a
 * domain's total is the sum of its products' producer shares and the charges
 * it carries, and the totals of all domains add up to the platform total.
 */

export const costsQueryInput = z.object({
  month: z
    .string({ message: "month must be YYYY-MM, e.g. 2026-11." })
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, "month must be YYYY-MM, e.g. 2026-11.")
    .optional()
    .meta({ description: "The calendar month (UTC), YYYY-MM; default: the current month." }),
});

/** Months shown in the trend (this one and the ones before it). */
export const TREND_MONTHS = 6;

const monthOf = (at: Date) => at.toISOString().slice(0, 7);
function monthRange(month: string) {
  const [y, m] = month.split("-").map(Number) as [number, number];
  const start = new Date(Date.UTC(y, m - 1, 1));
  const end = new Date(Date.UTC(y, m, 1));
  return { start, end, hours: (end.getTime() - start.getTime()) / 3600_000 };
}
function previousMonths(month: string, n: number): string[] {
  const [y, m] = month.split("-").map(Number) as [number, number];
  return Array.from({ length: n }, (_, i) => monthOf(new Date(Date.UTC(y, m - 1 - (n - 1 - i), 1))));
}

interface LedgerRow {
  month: string;
  productId: string;
  subscriptionId: string;
  domainId: string;
  consumingDomainId: string | null;
  bytesIn: bigint;
  bytesOut: bigint;
  localByteHours: bigint;
  remoteByteHours: bigint;
  partitionMinutes: bigint;
}

async function ledgerRows(db: Db, from: Date, to: Date, productId?: string): Promise<LedgerRow[]> {
  return db.$queryRaw<LedgerRow[]>`
    SELECT to_char(day, 'YYYY-MM') AS month, "productId", "subscriptionId", "domainId", "consumingDomainId",
           sum("bytesIn")::bigint AS "bytesIn", sum("bytesOut")::bigint AS "bytesOut", sum("localByteHours")::bigint AS "localByteHours",
           sum("remoteByteHours")::bigint AS "remoteByteHours", sum("partitionMinutes")::bigint AS "partitionMinutes"
      FROM "UsageRecord"
     WHERE day >= ${from}::date AND day < ${to}::date ${productId ? Prisma.sql`AND "productId" = ${productId}` : Prisma.empty}
     GROUP BY 1, 2, 3, 4, 5`;
}

/** Usage per product of one month from its ledger rows. */
function usageByProduct(rows: LedgerRow[]): Map<string, ProductUsage> {
  const out = new Map<string, ProductUsage>();
  for (const r of rows) {
    const u = out.get(r.productId) ?? { productId: r.productId, domainId: r.domainId, bytesIn: 0n, bytesOut: 0n, localByteHours: 0n, remoteByteHours: 0n, partitionMinutes: 0n, reads: [] };
    if (r.subscriptionId === "") {
      u.bytesIn += r.bytesIn;
      u.localByteHours += r.localByteHours;
      u.remoteByteHours += r.remoteByteHours;
      u.partitionMinutes += r.partitionMinutes;
      u.domainId = r.domainId;
    } else {
      u.bytesOut += r.bytesOut;
      if (r.consumingDomainId) u.reads.push({ domainId: r.consumingDomainId, bytes: r.bytesOut });
    }
    out.set(r.productId, u);
  }
  return out;
}

export interface MonthCosts {
  month: string;
  products: {
    usage: ProductUsage;
    cost: ReturnType<typeof costOfUsage>;
    /** Micros charged to each consuming domain (the producer's own share under producerShare). */
    split: Map<string, { micros: bigint; bytes: bigint }>;
    producerShare: bigint;
  }[];
}

/** Every product's cost of one month and who carries it. */
export function monthCosts(month: string, rows: LedgerRow[], prices: Prices, rule: ChargebackRule): MonthCosts {
  const { hours } = monthRange(month);
  const products = [...usageByProduct(rows.filter((r) => r.month === month)).values()].map((usage) => {
    const cost = costOfUsage(usage, prices, hours);
    const reads = new Map<string, bigint>();
    for (const r of usage.reads) reads.set(r.domainId, (reads.get(r.domainId) ?? 0n) + r.bytes);
    const split = new Map<string, { micros: bigint; bytes: bigint }>();
    let producerShare = cost.total;
    const readTotal = [...reads.values()].reduce((a, b) => a + b, 0n);
    if (rule === "consumers" && readTotal > 0n) {
      const shares = allocate(cost.total, [...reads.entries()].map(([domainId, bytes]) => ({ key: domainId, weight: bytes })));
      producerShare = 0n;
      for (const [domainId, bytes] of reads) split.set(domainId, { micros: shares.get(domainId) ?? 0n, bytes });
    } else for (const [domainId, bytes] of reads) split.set(domainId, { micros: 0n, bytes });
    return { usage, cost, split, producerShare };
  });
  return { month, products };
}

const num = (v: bigint) => Number(v);
const GB = 1e9;
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** The costs answer for one month, as the actor may see it. */
export async function listCosts(db: Db, actor: Actor, query: unknown, now = Date.now()) {
  const parsed = costsQueryInput.safeParse(query ?? {});
  if (!parsed.success) throw new ValidationError("The costs query is invalid.", fieldErrors(parsed.error));
  const month = parsed.data.month ?? monthOf(new Date(now));
  const admin = hasGlobal(actor, "platform:admin");
  const visible = admin ? null : new Set(actor.memberships.map((m) => m.domainId));
  const { document, version } = await activePolicy(db);
  const prices = document.prices;
  const rule = document.chargeback.rule;
  const months = previousMonths(month, TREND_MONTHS);
  const rows = await ledgerRows(db, monthRange(months[0] ?? month).start, monthRange(month).end);
  const perMonth = months.map((m) => monthCosts(m, rows, prices, rule));
  const current = perMonth[perMonth.length - 1] ?? monthCosts(month, [], prices, rule);

  const productIds = [...new Set(perMonth.flatMap((m) => m.products.map((p) => p.usage.productId)))];
  const [products, domains] = await Promise.all([
    db.dataProduct.findMany({ where: { id: { in: productIds } }, select: { id: true, name: true, topicName: true, domainId: true } }),
    db.domain.findMany({ where: admin ? {} : { id: { in: [...(visible ?? [])] } }, select: { id: true, slug: true, name: true, archivedAt: true }, orderBy: { slug: "asc" } }),
  ]);
  const productById = new Map(products.map((p) => [p.id, p]));
  const allDomainIds = new Set(current.products.flatMap((p) => [p.usage.domainId, ...p.split.keys()]));
  const slugs = new Map((await db.domain.findMany({ where: { id: { in: [...allDomainIds] } }, select: { id: true, slug: true } })).map((d) => [d.id, d.slug]));

  /** A domain's total in one month: producer shares of its products plus what it is charged. */
  const domainTotal = (m: MonthCosts, domainId: string) =>
    m.products.reduce((sum, p) => sum + (p.usage.domainId === domainId ? p.producerShare : 0n) + (p.split.get(domainId)?.micros ?? 0n), 0n);

  const domainViews = domains
    .map((d) => {
      const own = current.products.filter((p) => p.usage.domainId === d.id);
      const charged = current.products.filter((p) => p.split.has(d.id));
      const ownCost = own.reduce((s, p) => s + p.cost.total, 0n);
      const producerShare = own.reduce((s, p) => s + p.producerShare, 0n);
      const chargedToOthers = own.reduce((s, p) => s + [...p.split.entries()].filter(([id]) => id !== d.id).reduce((a, [, v]) => a + v.micros, 0n), 0n);
      const chargedIn = charged.reduce((s, p) => s + (p.split.get(d.id)?.micros ?? 0n), 0n);
      const total = producerShare + chargedIn;
      return {
        id: d.id,
        slug: d.slug,
        name: d.name,
        total: formatMicros(total),
        ownProductsCost: formatMicros(ownCost),
        producerShare: formatMicros(producerShare),
        chargedToOthers: formatMicros(chargedToOthers),
        chargedToThisDomain: formatMicros(chargedIn),
        products: own
          .map((p) => {
            const info = productById.get(p.usage.productId);
            return {
              id: p.usage.productId,
              name: info?.name ?? p.usage.productId,
              topic: info?.topicName ?? null,
              usage: {
                bytesIn: num(p.usage.bytesIn),
                bytesOut: num(p.usage.bytesOut),
                hotStorageGbMonth: round6(num(p.usage.localByteHours) / GB / monthRange(month).hours),
                tieredStorageGbMonth: round6(num(p.usage.remoteByteHours) / GB / monthRange(month).hours),
                partitionHours: round6(num(p.usage.partitionMinutes) / 60),
              },
              cost: {
                hotStorage: formatMicros(p.cost.hotStorage),
                tieredStorage: formatMicros(p.cost.tieredStorage),
                in: formatMicros(p.cost.in),
                out: formatMicros(p.cost.out),
                partitions: formatMicros(p.cost.partitions),
                total: formatMicros(p.cost.total),
              },
              producerShare: formatMicros(p.producerShare),
              split: [...p.split.entries()]
                .map(([domainId, v]) => ({ domainId, slug: slugs.get(domainId) ?? domainId, bytesRead: num(v.bytes), amount: formatMicros(v.micros) }))
                .sort((a, b) => a.slug.localeCompare(b.slug)),
              trend: perMonth.map((m) => ({ month: m.month, total: formatMicros(m.products.find((x) => x.usage.productId === p.usage.productId)?.cost.total ?? 0n) })),
            };
          })
          .sort((a, b) => a.name.localeCompare(b.name)),
        charges: charged
          .map((p) => {
            const info = productById.get(p.usage.productId);
            const v = p.split.get(d.id);
            return {
              productId: p.usage.productId,
              productName: info?.name ?? p.usage.productId,
              topic: info?.topicName ?? null,
              producerDomain: slugs.get(p.usage.domainId) ?? p.usage.domainId,
              bytesRead: num(v?.bytes ?? 0n),
              amount: formatMicros(v?.micros ?? 0n),
            };
          })
          .sort((a, b) => a.productName.localeCompare(b.productName)),
        trend: perMonth.map((m) => ({ month: m.month, total: formatMicros(domainTotal(m, d.id)) })),
        _total: total,
      };
    })
    .filter((d) => !admin || d._total > 0n || d.products.length > 0 || d.charges.length > 0 || domains.find((x) => x.id === d.id)?.archivedAt === null);

  const total = domainViews.reduce((s, d) => s + d._total, 0n);
  const platformTotal = current.products.reduce((s, p) => s + p.cost.total, 0n);
  return {
    month,
    currency: prices.currency,
    prices,
    chargeback: rule,
    policyVersion: version,
    scope: admin ? ("platform" as const) : ("domains" as const),
    domains: domainViews.map(({ _total, ...d }) => d),
    total: formatMicros(total),
    platformTotal: admin ? formatMicros(platformTotal) : null,
    trend: perMonth.map((m) => ({
      month: m.month,
      total: formatMicros(admin ? m.products.reduce((s, p) => s + p.cost.total, 0n) : domainViews.reduce((s, d) => s + domainTotal(m, d.id), 0n)),
    })),
  };
}

/** A product's cost this month and its trend: for its domain's members, governance and admins. */
export async function productCost(db: Db, actor: Actor, productId: string, now = Date.now()) {
  const product = await db.dataProduct.findUnique({ where: { id: productId }, select: { id: true, domainId: true, status: true } });
  if (!product) throw new NotFoundError("Product", productId);
  const member = actor.memberships.some((m) => m.domainId === product.domainId);
  if (!member && !hasGlobal(actor, "platform:admin")) {
    // Others do not learn that an unpublished product exists.
    if (["DRAFT", "IN_REVIEW", "REJECTED"].includes(product.status)) throw new NotFoundError("Product", productId);
    throw new ForbiddenError("Only the product's domain and platform admins see its cost.");
  }
  const month = monthOf(new Date(now));
  const { document } = await activePolicy(db);
  const months = previousMonths(month, TREND_MONTHS);
  const rows = await ledgerRows(db, monthRange(months[0] ?? month).start, monthRange(month).end, productId);
  const perMonth = months.map((m) => monthCosts(m, rows, document.prices, document.chargeback.rule));
  const now_ = perMonth[perMonth.length - 1]?.products[0];
  return {
    month,
    currency: document.prices.currency,
    chargeback: document.chargeback.rule,
    total: formatMicros(now_?.cost.total ?? 0n),
    producerShare: formatMicros(now_?.producerShare ?? 0n),
    chargedToConsumers: formatMicros((now_?.cost.total ?? 0n) - (now_?.producerShare ?? 0n)),
    trend: perMonth.map((m) => ({ month: m.month, total: formatMicros(m.products[0]?.cost.total ?? 0n) })),
  };
}
