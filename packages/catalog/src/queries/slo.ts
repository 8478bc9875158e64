import { alertRuleKey } from "../actions/silence-alert.ts";
import type { Actor } from "../actor.ts";
import { INACTIVE_AFTER_MS, inactiveSince } from "../alerts/inputs.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import { parsePartitionLag } from "../observations/figures.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";

/*
 * What the SLO parts of the product and subscription pages show: objectives,
 * the live figures against them, freshness with its history, and the alert
 * history. Access as for lag (observations.ts): the subscribing domain, the
 * product's owners and governance; freshness is as public as the product.
 */

const HISTORY_MS = 3 * 3600_000;
const UNPUBLISHED = ["DRAFT", "IN_REVIEW", "REJECTED"];
const ALERTS_SHOWN = 50;

type AlertRow = Awaited<ReturnType<Db["alert"]["findMany"]>>[number];

/**
 * The alerts as the page shows them, with who acknowledged a firing one and
 * the silence on its rule (who, until when, why), and whether this viewer may
 * acknowledge or silence it (silence-alert.ts: the owners it is about).
 */
async function alertViews(db: Db, actor: Actor, alerts: AlertRow[], now: number) {
  const firing = alerts.filter((a) => a.status === "FIRING");
  const silences = firing.length ? await db.alertSilence.findMany({ where: { key: { in: firing.map(alertRuleKey) }, until: { gt: new Date(now) } } }) : [];
  const subIds = [...new Set(firing.flatMap((a) => (a.subscriptionId ? [a.subscriptionId] : [])))];
  const productIds = [...new Set(firing.filter((a) => !a.subscriptionId).map((a) => a.productId))];
  const [subs, products] = await Promise.all([
    subIds.length ? db.subscription.findMany({ where: { id: { in: subIds } }, select: { id: true, consumingDomainId: true } }) : [],
    productIds.length ? db.dataProduct.findMany({ where: { id: { in: productIds } }, select: { id: true, domainId: true } }) : [],
  ]);
  const userIds = [...new Set([...silences.map((s) => s.silencedById), ...firing.flatMap((a) => (a.acknowledgedById ? [a.acknowledgedById] : []))])];
  const users = userIds.length ? await db.user.findMany({ where: { id: { in: userIds } }, select: { id: true, name: true } }) : [];
  const nameOf = (id: string | null) => users.find((u) => u.id === id)?.name ?? null;
  return alerts.map((a) => {
    const silence = a.status === "FIRING" ? silences.find((s) => s.key === alertRuleKey(a)) : undefined;
    const owner = a.subscriptionId ? subs.find((s) => s.id === a.subscriptionId)?.consumingDomainId : products.find((p) => p.id === a.productId)?.domainId;
    return {
      ...alertView(a),
      acknowledgedAt: a.acknowledgedAt?.toISOString() ?? null,
      acknowledgedBy: nameOf(a.acknowledgedById),
      silence: silence ? { until: silence.until.toISOString(), by: nameOf(silence.silencedById), reason: silence.reason } : null,
      canSilence: a.status === "FIRING" && owner !== undefined && canInDomain(actor, a.subscriptionId ? "subscription:replay" : "product:update", owner),
    };
  });
}

const alertView = (a: AlertRow) => ({
  id: a.id,
  kind: a.kind,
  status: a.status,
  subscriptionId: a.subscriptionId,
  groupId: a.groupId,
  threshold: a.threshold,
  value: a.value,
  peakValue: a.peakValue,
  message: a.message,
  firedAt: a.firedAt.toISOString(),
  resolvedAt: a.resolvedAt?.toISOString() ?? null,
});

/** Per-partition time lag as the worker's time-lag step stored it ("read": from the record at the committed offset). */
function partitionTimeLag(detail: unknown): Map<number, { timeLagMs: number | null; method: string }> {
  const out = new Map<number, { timeLagMs: number | null; method: string }>();
  if (!Array.isArray(detail)) return out;
  for (const d of detail as unknown[]) {
    if (typeof d !== "object" || d === null) continue;
    const r = d as Record<string, unknown>;
    if (typeof r.partition !== "number") continue;
    const ms = typeof r.timeLagMs === "number" ? r.timeLagMs : null;
    out.set(r.partition, { timeLagMs: ms, method: typeof r.timeLagMethod === "string" ? r.timeLagMethod : ms === 0 ? "caught-up" : "estimated" });
  }
  return out;
}

const verdict = (value: number | null, max: number | null) => (max === null ? null : value === null ? "UNKNOWN" : value > max ? "BREACHED" : "MET");

/** A subscription's objectives, its consumer groups against them, lag history and alerts. */
export async function subscriptionSlo(db: Db, actor: Actor, subscriptionId: string, now = Date.now()) {
  const sub = await db.subscription.findUnique({
    where: { id: subscriptionId },
    select: { id: true, status: true, consumingDomainId: true, serviceAccountId: true, objective: true, product: { select: { id: true, domainId: true, topicName: true } } },
  });
  if (!sub) throw new NotFoundError("Subscription", subscriptionId);
  const allowed = actor.memberships.some((m) => m.domainId === sub.consumingDomainId) || canInDomain(actor, "product:update", sub.product.domainId) || hasGlobal(actor, "product:review");
  if (!allowed) throw new ForbiddenError("Only the subscribing domain, the product's owners and governance see its objectives and alerts.");
  const o = sub.objective;
  const objective = o ? { maxLagRecords: o.maxLagRecords === null ? null : Number(o.maxLagRecords), maxLagSeconds: o.maxLagSeconds, updatedAt: o.updatedAt.toISOString() } : null;
  const [groups, alerts, usages] = await Promise.all([
    db.consumerGroupObservation.findMany({ where: { subscriptionId, topic: sub.product.topicName }, orderBy: { groupId: "asc" } }),
    db.alert.findMany({ where: { subscriptionId }, orderBy: { firedAt: "desc" }, take: ALERTS_SHOWN }),
    db.groupTopicUsage.findMany({ where: { topic: sub.product.topicName, serviceAccountId: sub.serviceAccountId }, select: { groupId: true, lastActiveAt: true, firstSeenAt: true } }),
  ]);
  const samples = groups.length
    ? await db.consumerGroupObservationSample.findMany({
        where: { topic: sub.product.topicName, groupId: { in: groups.map((g) => g.groupId) }, bucket: { gte: new Date(now - HISTORY_MS) } },
        orderBy: { bucket: "asc" },
        select: { groupId: true, bucket: true, totalLag: true, timeLagMs: true },
      })
    : [];
  return {
    subscriptionId,
    status: sub.status,
    canEdit: canInDomain(actor, "subscription:replay", sub.consumingDomainId) && ["PENDING", "APPROVED", "ACTIVE"].includes(sub.status),
    objective,
    inactiveAfterMs: INACTIVE_AFTER_MS,
    groups: groups.map((g) => {
      const times = partitionTimeLag(g.partitionDetail);
      const totalLag = Number(g.totalLag);
      const timeLagMs = g.timeLagMs === null ? null : Number(g.timeLagMs);
      const stopped = inactiveSince(g.members, usages.find((u) => u.groupId === g.groupId), now);
      return {
        groupId: g.groupId,
        state: g.state,
        members: g.members,
        /** No members for longer than the objectives' window (alerts/inputs.ts): shown as inactive, no lag alerts. */
        inactiveSince: stopped?.toISOString() ?? null,
        totalLag,
        timeLagMs,
        records: verdict(totalLag, objective?.maxLagRecords ?? null),
        seconds: verdict(timeLagMs === null ? null : timeLagMs / 1000, objective?.maxLagSeconds ?? null),
        observedAt: g.observedAt.toISOString(),
        partitions: parsePartitionLag(g.partitionDetail).map((p) => ({ partition: p.partition, lag: p.lag, timeLagMs: times.get(p.partition)?.timeLagMs ?? null, timeLagMethod: times.get(p.partition)?.method ?? "estimated" })),
      };
    }),
    history: samples.map((s) => ({ groupId: s.groupId, bucket: s.bucket.toISOString(), totalLag: Number(s.totalLag), timeLagMs: s.timeLagMs === null ? null : Number(s.timeLagMs) })),
    alerts: await alertViews(db, actor, alerts, now),
    firing: alerts.filter((a) => a.status === "FIRING").length,
  };
}

/** A product's freshness against its SLA with history, and the alerts the viewer may see (owners and governance: all; subscribers: freshness and their own). */
export async function productSlo(db: Db, actor: Actor, productId: string, now = Date.now()) {
  const product = await db.dataProduct.findUnique({ where: { id: productId }, select: { id: true, domainId: true, status: true, freshnessSeconds: true } });
  if (!product) throw new NotFoundError("Data product", productId);
  const inDomain = actor.memberships.some((m) => m.domainId === product.domainId);
  if (UNPUBLISHED.includes(product.status) && !inDomain && !hasGlobal(actor, "product:review")) throw new NotFoundError("Data product", productId);
  const seesAll = canInDomain(actor, "product:update", product.domainId) || hasGlobal(actor, "product:review");
  const mySubscriptions = seesAll
    ? []
    : (await db.subscription.findMany({ where: { productId, consumingDomainId: { in: actor.memberships.map((m) => m.domainId) } }, select: { id: true } })).map((s) => s.id);
  const [freshness, samples, alerts] = await Promise.all([
    db.productFreshness.findUnique({ where: { productId } }),
    db.productFreshnessSample.findMany({ where: { productId, bucket: { gte: new Date(now - HISTORY_MS) } }, orderBy: { bucket: "asc" } }),
    db.alert.findMany({
      // Dead-letter alerts are the owners' (and governance's): subscribers see freshness and their own lag alerts.
      where: { productId, ...(seesAll ? {} : { kind: { not: "DLQ_GROWTH" }, OR: [{ subscriptionId: null }, { subscriptionId: { in: mySubscriptions } }] }) },
      orderBy: { firedAt: "desc" },
      take: ALERTS_SHOWN,
    }),
  ]);
  return {
    productId,
    freshness: {
      targetSeconds: product.freshnessSeconds,
      status: freshness?.status ?? "UNKNOWN",
      ageMs: freshness?.ageMs === null || freshness === null ? null : Number(freshness.ageMs),
      lastRecordAt: freshness?.lastRecordAt?.toISOString() ?? null,
      observedAt: freshness?.observedAt.toISOString() ?? null,
    },
    history: samples.map((s) => ({ bucket: s.bucket.toISOString(), ageMs: s.ageMs === null ? null : Number(s.ageMs), status: s.status })),
    alerts: await alertViews(db, actor, alerts, now),
    firing: alerts.filter((a) => a.status === "FIRING").length,
  };
}
