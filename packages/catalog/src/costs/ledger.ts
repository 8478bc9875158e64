import { Prisma } from "@prisma/client";
import type { Db } from "../db.ts";

/*
 * The usage ledger (issue 33): one row per UTC day and product (bytes in,
 * storage, partition-hours) and per day and subscription (bytes out), computed
 * from the worker's minute history (TopicObservationSample,
 * ConsumerGroupObservationSample). A day is recomputed from the observations
 * as long as they are kept and upserted under (day, product, subscription):
 * an observation that arrives late corrects the day's row (revision + 1) and
 * is never counted twice.
 *
 * - records in: the growth of the topic's end offsets (summed over partitions)
 *   from the last sample before the day (at most LOOKBACK earlier) — or the
 *   day's first sample — to the day's last sample; records out the same over
 *   a subscription's groups' committed offsets. Bytes = records × the topic's
 *   average record size on disk (local log bytes over the records held
 *   locally, from the latest observation).
 * - storage: the day's average local and remote log bytes × hours observed;
 *   partition-minutes: partitions × minutes observed (from the day's start
 *   when the observer was already sampling the topic before it, else from the
 *   first sample, to one minute past the last).
 */

const MINUTE = 60_000;
const DAY = 86_400_000;
/** How far before a day the ledger looks for the sample that day's growth is measured from. */
export const LEDGER_LOOKBACK_MS = 6 * 3600_000;
/** A sample this close before the day's start means the topic was observed from the start of the day. */
const CONTINUOUS_MS = 60 * MINUTE;

export interface UsageDayResult {
  day: string;
  products: number;
  subscriptions: number;
  /** Rows written for the first time or changed by a later observation. */
  written: number;
}

interface TopicDay {
  productId: string;
  domainId: string;
  partitions: number;
  first: Date;
  last: Date;
  localAvg: number;
  remoteAvg: number;
  endFirst: bigint;
  endLast: bigint;
  endBefore: bigint | null;
  beforeAt: Date | null;
  bytesPerRecord: number;
}

interface GroupDay {
  subscriptionId: string;
  productId: string;
  consumingDomainId: string;
  committedFirst: bigint;
  committedLast: bigint;
  committedBefore: bigint | null;
}

const dayStart = (day: string) => new Date(`${day}T00:00:00.000Z`);
export const utcDay = (at: number | Date) => new Date(at).toISOString().slice(0, 10);

const growth = (from: bigint, to: bigint) => (to > from ? to - from : 0n);

/** Recomputes one UTC day (YYYY-MM-DD) of the ledger from the observation history and upserts what changed. */
export async function recordUsageDay(db: Db, day: string): Promise<UsageDayResult> {
  const start = dayStart(day);
  const end = new Date(start.getTime() + DAY);
  const lookback = new Date(start.getTime() - LEDGER_LOOKBACK_MS);

  const topics = await db.$queryRaw<TopicDay[]>`
    SELECT p.id AS "productId", p."domainId", p.partitions, d.first, d.last, d."localAvg", d."remoteAvg",
           f."endOffset" AS "endFirst", l."endOffset" AS "endLast", b."endOffset" AS "endBefore", b.bucket AS "beforeAt",
           CASE WHEN o."localBytes" > 0 AND o."endOffset" > coalesce(o."earliestLocalOffset", o."earliestOffset")
                THEN o."localBytes"::float8 / (o."endOffset" - coalesce(o."earliestLocalOffset", o."earliestOffset"))::float8
                WHEN coalesce(l."remoteBytes", 0) = 0 AND l."localBytes" > 0 AND l."endOffset" > l."earliestOffset"
                THEN l."localBytes"::float8 / (l."endOffset" - l."earliestOffset")::float8
                ELSE 0 END AS "bytesPerRecord"
      FROM (SELECT topic, min(bucket) AS first, max(bucket) AS last,
                   avg(coalesce("localBytes", 0))::float8 AS "localAvg", avg(coalesce("remoteBytes", 0))::float8 AS "remoteAvg"
              FROM "TopicObservationSample" WHERE bucket >= ${start} AND bucket < ${end} GROUP BY topic) d
      JOIN "DataProduct" p ON p."topicName" = d.topic
      JOIN "TopicObservationSample" f ON f.topic = d.topic AND f.bucket = d.first
      JOIN "TopicObservationSample" l ON l.topic = d.topic AND l.bucket = d.last
      LEFT JOIN "TopicObservation" o ON o.topic = d.topic
      LEFT JOIN LATERAL (SELECT s."endOffset", s.bucket FROM "TopicObservationSample" s
                          WHERE s.topic = d.topic AND s.bucket < ${start} AND s.bucket >= ${lookback}
                          ORDER BY s.bucket DESC LIMIT 1) b ON true`;

  const groups = await db.$queryRaw<GroupDay[]>`
    SELECT sub.id AS "subscriptionId", sub."productId", sub."consumingDomainId",
           f."committedOffset" AS "committedFirst", l."committedOffset" AS "committedLast", b."committedOffset" AS "committedBefore"
      FROM (SELECT "groupId", topic, min(bucket) AS first, max(bucket) AS last
              FROM "ConsumerGroupObservationSample"
             WHERE bucket >= ${start} AND bucket < ${end} AND "committedOffset" IS NOT NULL AND "subscriptionId" IS NOT NULL
             GROUP BY "groupId", topic) d
      JOIN "ConsumerGroupObservationSample" f ON f."groupId" = d."groupId" AND f.topic = d.topic AND f.bucket = d.first
      JOIN "ConsumerGroupObservationSample" l ON l."groupId" = d."groupId" AND l.topic = d.topic AND l.bucket = d.last
      JOIN "Subscription" sub ON sub.id = l."subscriptionId"
      JOIN "DataProduct" p ON p.id = sub."productId" AND p."topicName" = d.topic
      LEFT JOIN LATERAL (SELECT s."committedOffset" FROM "ConsumerGroupObservationSample" s
                          WHERE s."groupId" = d."groupId" AND s.topic = d.topic AND s.bucket < ${start} AND s.bucket >= ${lookback}
                            AND s."committedOffset" IS NOT NULL
                          ORDER BY s.bucket DESC LIMIT 1) b ON true`;

  const perRecord = new Map<string, number>();
  const domainOf = new Map<string, string>();
  const rows: Prisma.Sql[] = [];
  for (const t of topics) {
    perRecord.set(t.productId, t.bytesPerRecord);
    domainOf.set(t.productId, t.domainId);
    const continuous = t.beforeAt !== null && start.getTime() - t.beforeAt.getTime() <= CONTINUOUS_MS;
    const from = continuous ? start.getTime() : t.first.getTime();
    const minutes = Math.max(1, Math.round((Math.min(end.getTime(), t.last.getTime() + MINUTE) - from) / MINUTE));
    const hours = minutes / 60;
    const recordsIn = growth(t.endBefore ?? t.endFirst, t.endLast);
    rows.push(
      Prisma.sql`(${start}::date, ${t.productId}, '', ${t.domainId}, NULL, ${recordsIn}, ${BigInt(Math.round(Number(recordsIn) * t.bytesPerRecord))},
        0, 0, ${BigInt(Math.round(t.localAvg * hours))}, ${BigInt(Math.round(t.remoteAvg * hours))}, ${BigInt(t.partitions * minutes)}, ${minutes})`,
    );
  }

  const bySubscription = new Map<string, { productId: string; consumingDomainId: string; records: bigint }>();
  for (const g of groups) {
    const entry = bySubscription.get(g.subscriptionId) ?? { productId: g.productId, consumingDomainId: g.consumingDomainId, records: 0n };
    entry.records += growth(g.committedBefore ?? g.committedFirst, g.committedLast);
    bySubscription.set(g.subscriptionId, entry);
  }
  if (bySubscription.size > 0) {
    const missing = [...new Set([...bySubscription.values()].map((s) => s.productId))].filter((id) => !domainOf.has(id));
    for (const p of await db.dataProduct.findMany({ where: { id: { in: missing } }, select: { id: true, domainId: true } })) domainOf.set(p.id, p.domainId);
  }
  for (const [subscriptionId, s] of bySubscription) {
    const domainId = domainOf.get(s.productId);
    if (!domainId) continue;
    const bytes = BigInt(Math.round(Number(s.records) * (perRecord.get(s.productId) ?? 0)));
    rows.push(Prisma.sql`(${start}::date, ${s.productId}, ${subscriptionId}, ${domainId}, ${s.consumingDomainId}, 0, 0, ${s.records}, ${bytes}, 0, 0, 0, 0)`);
  }

  let written = 0;
  for (let i = 0; i < rows.length; i += 400) {
    written += await db.$executeRaw`
      INSERT INTO "UsageRecord" (day, "productId", "subscriptionId", "domainId", "consumingDomainId", "recordsIn", "bytesIn",
                                 "recordsOut", "bytesOut", "localByteHours", "remoteByteHours", "partitionMinutes", "observedMinutes")
      VALUES ${Prisma.join(rows.slice(i, i + 400))}
      ON CONFLICT (day, "productId", "subscriptionId") DO UPDATE SET
        "domainId" = EXCLUDED."domainId", "consumingDomainId" = EXCLUDED."consumingDomainId",
        "recordsIn" = EXCLUDED."recordsIn", "bytesIn" = EXCLUDED."bytesIn", "recordsOut" = EXCLUDED."recordsOut", "bytesOut" = EXCLUDED."bytesOut",
        "localByteHours" = EXCLUDED."localByteHours", "remoteByteHours" = EXCLUDED."remoteByteHours",
        "partitionMinutes" = EXCLUDED."partitionMinutes", "observedMinutes" = EXCLUDED."observedMinutes",
        revision = "UsageRecord".revision + 1, "computedAt" = now()
      WHERE ("UsageRecord"."recordsIn", "UsageRecord"."bytesIn", "UsageRecord"."recordsOut", "UsageRecord"."bytesOut", "UsageRecord"."localByteHours",
             "UsageRecord"."remoteByteHours", "UsageRecord"."partitionMinutes", "UsageRecord"."observedMinutes")
            IS DISTINCT FROM (EXCLUDED."recordsIn", EXCLUDED."bytesIn", EXCLUDED."recordsOut", EXCLUDED."bytesOut", EXCLUDED."localByteHours",
             EXCLUDED."remoteByteHours", EXCLUDED."partitionMinutes", EXCLUDED."observedMinutes")`;
  }
  return { day, products: topics.length, subscriptions: bySubscription.size, written };
}

/**
 * The worker's periodic step: today, and yesterday while the observations it
 * is computed from (the day and its lookback) are still kept; older days are
 * final.
 */
export async function recordUsageLedger(db: Db, options: { now: number; historyHours: number }): Promise<UsageDayResult[]> {
  const today = utcDay(options.now);
  const yesterday = utcDay(dayStart(today).getTime() - DAY);
  const kept = options.now - options.historyHours * 3600_000;
  const days = dayStart(yesterday).getTime() - LEDGER_LOOKBACK_MS >= kept ? [yesterday, today] : [today];
  const results: UsageDayResult[] = [];
  for (const day of days) results.push(await recordUsageDay(db, day));
  return results;
}
