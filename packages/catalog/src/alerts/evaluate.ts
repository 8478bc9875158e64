import type { Db, Tx } from "../db.ts";
import { notify, type NotificationAudience } from "../notifications/notify.ts";

/*
 * Alert rules, evaluated after each observation cycle of the worker:
 *   LAG_RECORDS / LAG_SECONDS — a subscription's consumer group against the
 *     subscriber's own objectives (max lag in records, in seconds);
 *   FRESHNESS — a product's newest record against its freshness SLA.
 * Hysteresis in time, so any number of workers evaluating gives the same
 * answer: an alert fires once the value has stayed above the threshold for
 * fireAfterMs, and resolves once it has stayed at or below threshold ×
 * clearRatio for resolveAfterMs. Each rule instance's state is one row,
 * locked while it moves, so two evaluators never fire it twice.
 */

export interface AlertOptions {
  fireAfterMs: number;
  resolveAfterMs: number;
  /** 0 < ratio ≤ 1: how far below the threshold a value must fall to count as recovered. */
  clearRatio: number;
}

export type AlertKind = "LAG_RECORDS" | "LAG_SECONDS" | "FRESHNESS";

interface Measurement {
  key: string;
  kind: AlertKind;
  productId: string;
  productName: string;
  subscriptionId: string | null;
  groupId: string | null;
  value: number;
  threshold: number;
  audience: NotificationAudience;
  link: string;
  what: string;
  unit: string;
}

const fmt = (n: number) => (Number.isInteger(n) ? n.toLocaleString("en-US") : n.toFixed(1));

async function measurements(db: Db): Promise<Measurement[]> {
  const out: Measurement[] = [];
  const objectives = await db.subscriptionObjective.findMany({
    where: { subscription: { status: { in: ["APPROVED", "ACTIVE"] } } },
    include: { subscription: { select: { id: true, consumingDomainId: true, product: { select: { id: true, name: true } } } } },
  });
  if (objectives.length > 0) {
    const groups = await db.consumerGroupObservation.findMany({ where: { subscriptionId: { in: objectives.map((o) => o.subscriptionId) } } });
    for (const o of objectives) {
      const sub = o.subscription;
      for (const g of groups.filter((x) => x.subscriptionId === o.subscriptionId)) {
        const base = { productId: sub.product.id, productName: sub.product.name, subscriptionId: sub.id, groupId: g.groupId, audience: { domainMembers: [sub.consumingDomainId] }, link: `/subscriptions/${sub.id}` };
        if (o.maxLagRecords !== null) {
          out.push({ ...base, key: `LAG_RECORDS:${sub.id}:${g.groupId}`, kind: "LAG_RECORDS", value: Number(g.totalLag), threshold: Number(o.maxLagRecords), what: `${g.groupId} lag`, unit: "records" });
        }
        if (o.maxLagSeconds !== null && g.timeLagMs !== null) {
          out.push({ ...base, key: `LAG_SECONDS:${sub.id}:${g.groupId}`, kind: "LAG_SECONDS", value: Number(g.timeLagMs) / 1000, threshold: o.maxLagSeconds, what: `${g.groupId} time lag`, unit: "s" });
        }
      }
    }
  }
  const fresh = await db.productFreshness.findMany({ where: { status: { not: "NO_DATA" }, ageMs: { not: null } } });
  if (fresh.length > 0) {
    const products = await db.dataProduct.findMany({
      where: { id: { in: fresh.map((f) => f.productId) }, status: { in: ["ACTIVE", "DEPRECATED"] } },
      select: { id: true, name: true, domainId: true, freshnessSeconds: true, subscriptions: { where: { status: { in: ["APPROVED", "ACTIVE"] } }, select: { consumingDomainId: true } } },
    });
    for (const p of products) {
      const f = fresh.find((x) => x.productId === p.id);
      if (!f || f.ageMs === null) continue;
      out.push({
        key: `FRESHNESS:${p.id}`,
        kind: "FRESHNESS",
        productId: p.id,
        productName: p.name,
        subscriptionId: null,
        groupId: null,
        value: Number(f.ageMs) / 1000,
        threshold: p.freshnessSeconds,
        audience: { domainMembers: [p.domainId, ...new Set(p.subscriptions.map((s) => s.consumingDomainId))] },
        link: `/products/${p.id}`,
        what: "time since the newest record",
        unit: "s",
      });
    }
  }
  return out;
}

async function lockState(tx: Tx, m: { key: string; kind: string; productId: string; subscriptionId: string | null; groupId: string | null }) {
  await tx.$executeRaw`
    INSERT INTO "AlertState" (key, kind, "productId", "subscriptionId", "groupId", "updatedAt") VALUES (${m.key}, ${m.kind}, ${m.productId}, ${m.subscriptionId}, ${m.groupId}, now())
    ON CONFLICT (key) DO NOTHING`;
  await tx.$queryRaw`SELECT key FROM "AlertState" WHERE key = ${m.key} FOR UPDATE`;
  return tx.alertState.findUniqueOrThrow({ where: { key: m.key } });
}

async function fire(tx: Tx, m: Measurement, now: Date): Promise<string> {
  const message = `${m.productName}: ${m.what} ${fmt(m.value)} ${m.unit} is above ${fmt(m.threshold)} ${m.unit}.`;
  const alert = await tx.alert.create({ data: { kind: m.kind, productId: m.productId, subscriptionId: m.subscriptionId, groupId: m.groupId, threshold: m.threshold, value: m.value, peakValue: m.value, message, firedAt: now } });
  await notify(tx, {
    kind: "alert.fired",
    title: m.kind === "FRESHNESS" ? `${m.productName} is stale` : `Lag alert: ${m.groupId}`,
    body: message,
    link: m.link,
    entityType: m.subscriptionId ? "Subscription" : "DataProduct",
    entityId: m.subscriptionId ?? m.productId,
    audience: m.audience,
    data: { alertId: alert.id, rule: m.kind, value: m.value, threshold: m.threshold, groupId: m.groupId },
  });
  return alert.id;
}

async function resolve(tx: Tx, alertId: string, m: Pick<Measurement, "kind" | "productName" | "groupId" | "subscriptionId" | "productId" | "link" | "audience">, now: Date, why: string): Promise<void> {
  const alert = await tx.alert.update({ where: { id: alertId }, data: { status: "RESOLVED", resolvedAt: now } });
  await notify(tx, {
    kind: "alert.resolved",
    title: m.kind === "FRESHNESS" ? `${m.productName} is fresh again` : `Lag alert resolved: ${m.groupId}`,
    body: `${why} (fired ${alert.firedAt.toISOString().slice(0, 19).replace("T", " ")} UTC, worst ${fmt(alert.peakValue)}).`,
    link: m.link,
    entityType: m.subscriptionId ? "Subscription" : "DataProduct",
    entityId: m.subscriptionId ?? m.productId,
    audience: m.audience,
    data: { alertId, rule: m.kind },
  });
}

export interface EvaluationResult {
  fired: string[];
  resolved: string[];
}

export async function evaluateAlerts(db: Db, options: AlertOptions, now: Date = new Date()): Promise<EvaluationResult> {
  const result: EvaluationResult = { fired: [], resolved: [] };
  const seen = new Set<string>();
  for (const m of await measurements(db)) {
    seen.add(m.key);
    await db.$transaction(async (tx) => {
      const state = await lockState(tx, m);
      const breaching = m.value > m.threshold;
      if (!state.firingAlertId) {
        const since = breaching ? (state.breachingSince ?? now) : null;
        if (since && now.getTime() - since.getTime() >= options.fireAfterMs) {
          const id = await fire(tx, m, now);
          result.fired.push(id);
          await tx.alertState.update({ where: { key: m.key }, data: { firingAlertId: id, breachingSince: since, clearSince: null, lastValue: m.value } });
        } else {
          await tx.alertState.update({ where: { key: m.key }, data: { breachingSince: since, lastValue: m.value } });
        }
        return;
      }
      await tx.$executeRaw`UPDATE "Alert" SET "peakValue" = GREATEST("peakValue", ${m.value}) WHERE id = ${state.firingAlertId}`;
      const clear = m.value <= m.threshold * options.clearRatio;
      const since = clear ? (state.clearSince ?? now) : null;
      if (since && now.getTime() - since.getTime() >= options.resolveAfterMs) {
        await resolve(tx, state.firingAlertId, m, now, `${m.what} is back to ${fmt(m.value)} ${m.unit}`);
        result.resolved.push(state.firingAlertId);
        await tx.alertState.update({ where: { key: m.key }, data: { firingAlertId: null, breachingSince: null, clearSince: null, lastValue: m.value } });
      } else {
        await tx.alertState.update({ where: { key: m.key }, data: { clearSince: since, lastValue: m.value } });
      }
    });
  }
  // Rules no longer measured (objective removed, group or subscription gone, product retired): their alerts end.
  const orphans = await db.alertState.findMany({ where: { key: { notIn: [...seen] }, firingAlertId: { not: null } } });
  for (const o of orphans) {
    await db.$transaction(async (tx) => {
      const state = await lockState(tx, o);
      if (!state.firingAlertId) return;
      const product = await tx.dataProduct.findUnique({ where: { id: o.productId }, select: { name: true, domainId: true } });
      const sub = o.subscriptionId ? await tx.subscription.findUnique({ where: { id: o.subscriptionId }, select: { consumingDomainId: true } }) : null;
      await resolve(tx, state.firingAlertId, { kind: o.kind as AlertKind, productName: product?.name ?? o.productId, groupId: o.groupId, subscriptionId: o.subscriptionId, productId: o.productId, link: o.subscriptionId ? `/subscriptions/${o.subscriptionId}` : `/products/${o.productId}`, audience: { domainMembers: [sub?.consumingDomainId ?? product?.domainId ?? ""].filter(Boolean) } }, now, "No longer measured");
      result.resolved.push(state.firingAlertId);
      await tx.alertState.update({ where: { key: o.key }, data: { firingAlertId: null, breachingSince: null, clearSince: null } });
    });
  }
  await db.alertState.deleteMany({ where: { key: { notIn: [...seen] }, firingAlertId: null } });
  return result;
}
