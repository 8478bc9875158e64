/*
 * The quota in force for a product's producer account or a subscription's
 * account, and how close that account runs to it (issue 33): bytes per second
 * per minute over the chart window, from what the worker already observes —
 * per topic, the records per second of each one-minute sample
 * (TopicObservationSample) for what the producer writes, the movement of the
 * committed offsets of the account's consumer groups
 * (ConsumerGroupObservationSample) for what a consumer reads — times the
 * topic's bytes per record on the broker (TopicObservation: local bytes over
 * local records, the usage ledger's estimate). The producer account writes
 * every topic of its domain and a consuming account reads all its
 * subscriptions, so the figures are the account's, which is what its Kafka
 * quota bounds.
 */
import { Prisma } from "@prisma/client";
import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { activePolicy } from "../policies/store.ts";
import { CHART_WINDOW_MS } from "../queries/observations.ts";
import { desiredQuotasOfServiceAccounts, isLargerThanDefault, quotaClassesFromPolicy, quotaOfClass, type QuotaInForce } from "./quota-classes.ts";

export interface QuotaUsage {
  /** Whose quota: the domain's producer account, or the subscription's account (null before a producer exists). */
  account: { id: string; name: string } | null;
  direction: "produce" | "consume";
  /** The quota on the account's Kafka user now; null when the account has no live use (no quota is set). */
  inForce: QuotaInForce | null;
  /** What this product or subscription chose (the default where nothing was), and a larger class waiting for governance. */
  chosen: QuotaInForce;
  requested: { class: string; reason: string | null } | null;
  /** The policy's classes, for the choice (name, rates, whether it needs governance). */
  classes: Array<QuotaInForce & { needsApproval: boolean; isDefault: boolean }>;
  /** The byte rate that bounds this direction (producer_byte_rate or consumer_byte_rate); null without a quota. */
  limitBytesPerSecond: number | null;
  /** Per minute: the account's bytes per second. */
  points: Array<{ t: number; bytesPerSecond: number }>;
  latestBytesPerSecond: number | null;
  peakBytesPerSecond: number | null;
  /** The peak over the window as a percentage of the limit. */
  peakPercentOfQuota: number | null;
  windowMs: number;
}

/** Bytes per record of a topic as the broker stores it (the usage ledger's estimate), SQL over a TopicObservation `o`. */
const BYTES_PER_RECORD = Prisma.sql`CASE WHEN o."localBytes" > 0 AND o."endOffset" > coalesce(o."earliestLocalOffset", o."earliestOffset")
  THEN o."localBytes"::float8 / (o."endOffset" - coalesce(o."earliestLocalOffset", o."earliestOffset"))::float8 ELSE 0 END`;

export async function quotaUsage(db: Db, actor: Actor, target: { productId: string } | { subscriptionId: string }, now = Date.now()): Promise<QuotaUsage> {
  const since = new Date(now - CHART_WINDOW_MS);
  const classes = quotaClassesFromPolicy((await activePolicy(db)).document);
  const classList = Object.keys(classes.classes)
    .sort()
    .map((name) => ({ ...quotaOfClass(classes, name), needsApproval: isLargerThanDefault(classes, name), isDefault: name === classes.default }));
  let account: { id: string; name: string } | null;
  let direction: "produce" | "consume";
  let chosen: { quotaClass: string | null; quotaClassRequested: string | null; quotaClassReason: string | null };
  let rows: Array<{ bucket: Date; bytesPerSecond: number | null }>;
  if ("productId" in target) {
    const product = await db.dataProduct.findUnique({ where: { id: target.productId }, select: { id: true, domainId: true, quotaClass: true, quotaClassRequested: true, quotaClassReason: true } });
    if (!product) throw new NotFoundError("Data product", target.productId);
    if (!actor.memberships.some((m) => m.domainId === product.domainId) && !hasGlobal(actor, "product:review") && !hasGlobal(actor, "platform:admin")) {
      throw new ForbiddenError("Only members of the product's domain, governance and admins see its producer account's quota.");
    }
    account = await db.serviceAccount.findFirst({ where: { domainId: product.domainId, isProducer: true }, select: { id: true, name: true } });
    direction = "produce";
    chosen = product;
    rows = await db.$queryRaw<Array<{ bucket: Date; bytesPerSecond: number | null }>>`
      SELECT s.bucket, sum(coalesce(s."messagesPerSecond", 0) * ${BYTES_PER_RECORD})::float8 AS "bytesPerSecond"
        FROM "TopicObservationSample" s
        JOIN "DataProduct" p ON p."topicName" = s.topic AND p."domainId" = ${product.domainId}
        JOIN "TopicObservation" o ON o.topic = s.topic
       WHERE s.bucket >= ${since}
       GROUP BY s.bucket ORDER BY s.bucket`;
  } else {
    const sub = await db.subscription.findUnique({
      where: { id: target.subscriptionId },
      select: { id: true, consumingDomainId: true, quotaClass: true, quotaClassRequested: true, quotaClassReason: true, product: { select: { domainId: true } }, serviceAccount: { select: { id: true, name: true } } },
    });
    if (!sub) throw new NotFoundError("Subscription", target.subscriptionId);
    const isProductOwner = canInDomain(actor, "product:update", sub.product.domainId);
    const isConsumer = actor.memberships.some((m) => m.domainId === sub.consumingDomainId);
    if (!isProductOwner && !isConsumer && !hasGlobal(actor, "product:review")) {
      throw new ForbiddenError("Only the product's owners, members of the subscribing domain and governance can see this subscription.");
    }
    account = sub.serviceAccount;
    direction = "consume";
    chosen = sub;
    // Every subscription of the account: its Kafka quota bounds them together.
    rows = await db.$queryRaw<Array<{ bucket: Date; bytesPerSecond: number | null }>>`
      SELECT g.bucket, sum(g.rate)::float8 AS "bytesPerSecond" FROM (
        SELECT s.bucket,
               CASE WHEN s.prev IS NOT NULL AND s."committedOffset" > s.prev
                    THEN (s."committedOffset" - s.prev)::float8 / greatest(extract(epoch FROM s.bucket - s."prevBucket"), 1) * ${BYTES_PER_RECORD}
                    ELSE 0 END AS rate
          FROM (SELECT c.*, lag(c."committedOffset") OVER w AS prev, lag(c.bucket) OVER w AS "prevBucket"
                  FROM "ConsumerGroupObservationSample" c
                 WHERE c."subscriptionId" IN (SELECT id FROM "Subscription" WHERE "serviceAccountId" = ${sub.serviceAccount.id})
                   AND c.bucket >= ${new Date(since.getTime() - 5 * 60_000)} AND c."committedOffset" IS NOT NULL
                WINDOW w AS (PARTITION BY c."groupId", c.topic ORDER BY c.bucket)) s
          JOIN "TopicObservation" o ON o.topic = s.topic
         WHERE s.bucket >= ${since}) g
       GROUP BY g.bucket ORDER BY g.bucket`;
  }
  const inForce = account ? ((await desiredQuotasOfServiceAccounts(db, [account.id])).get(account.id) ?? null) : null;
  const limit = inForce ? (direction === "produce" ? inForce.producerByteRate : inForce.consumerByteRate) : null;
  const points = rows.map((r) => ({ t: r.bucket.getTime(), bytesPerSecond: Math.max(0, Math.round(r.bytesPerSecond ?? 0)) }));
  const peak = points.length > 0 ? Math.max(...points.map((p) => p.bytesPerSecond)) : null;
  return {
    account,
    direction,
    inForce,
    chosen: quotaOfClass(classes, chosen.quotaClass),
    requested: chosen.quotaClassRequested ? { class: chosen.quotaClassRequested, reason: chosen.quotaClassReason } : null,
    classes: classList,
    limitBytesPerSecond: limit,
    points,
    latestBytesPerSecond: points.at(-1)?.bytesPerSecond ?? null,
    peakBytesPerSecond: peak,
    peakPercentOfQuota: peak !== null && limit ? Math.round((peak / limit) * 1000) / 10 : null,
    windowMs: CHART_WINDOW_MS,
  };
}
