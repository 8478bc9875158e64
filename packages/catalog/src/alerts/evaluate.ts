import type { Db, Tx } from "../db.ts";
import { notify, type NotificationAudience } from "../notifications/notify.ts";
import { inactiveSince } from "./inputs.ts";

/*
 * Alert rules, evaluated after each observation cycle of the worker:
 *   LAG_RECORDS / LAG_SECONDS — a subscription's consumer group against the
 *     subscriber's own objectives (max lag in records, in seconds);
 *   FRESHNESS — a product's newest record against its freshness SLA (for
 *     products someone subscribes to: an idle product nobody reads alarms nobody);
 *   DLQ_GROWTH — records added to a product's dead-letter topic over the last
 *     DLQ_WINDOW_MS (issue 29), for the owning domain only: any growth is a
 *     breach, so the alert fires once records keep arriving for fireAfterMs
 *     and resolves once none arrived for resolveAfterMs.
 *
 * Hysteresis in time and in value, so alerts do not flap: an alert fires once
 * the value has stayed above the threshold for fireAfterMs, and resolves once
 * it has stayed at or below threshold × clearRatio for resolveAfterMs. The
 * timers live in the database (AlertState), so a restart or a second worker
 * gives the same answer; a state row exists only while a rule is breaching or
 * firing, so the evaluation of a healthy mesh reads one small table. Firing
 * and resolving lock the state row and re-check it, so two evaluators never
 * fire or resolve one alert twice.
 */

export interface AlertOptions {
  fireAfterMs: number;
  resolveAfterMs: number;
  /** 0 < ratio ≤ 1: how far below the threshold a value must fall to count as recovered. */
  clearRatio: number;
  /** A freshness figure older than this is not trusted (the worker stopped measuring it). Default 5 min. */
  staleAfterMs?: number;
}

export const ALERT_KINDS = ["LAG_RECORDS", "LAG_SECONDS", "FRESHNESS", "DLQ_GROWTH"] as const;

/** The window over which a dead-letter topic's growth is measured (DLQ_GROWTH). */
export const DLQ_WINDOW_MS = 15 * 60_000;

/** An alert's notification title, per rule kind. */
function alertTitle(kind: string, productName: string, groupId: string | null, phase: "fired" | "resolved" | "still"): string {
  if (kind === "FRESHNESS") return phase === "fired" ? `${productName} is stale` : phase === "resolved" ? `${productName} is fresh again` : `${productName} is still stale`;
  if (kind === "DLQ_GROWTH") return phase === "fired" ? `Dead letters on ${productName}` : phase === "resolved" ? `No new dead letters on ${productName}` : `Dead letters on ${productName} still arriving`;
  return phase === "fired" ? `Lag alert on ${productName}: ${groupId}` : phase === "resolved" ? `Lag alert resolved on ${productName}: ${groupId}` : `Lag alert on ${productName} still firing: ${groupId}`;
}
export type AlertKind = (typeof ALERT_KINDS)[number];

interface Rule {
  key: string;
  kind: AlertKind;
  productId: string;
  productName: string;
  subscriptionId: string | null;
  groupId: string | null;
  threshold: number;
  audience: NotificationAudience;
  link: string;
  what: string;
  unit: string;
  /** null: the rule exists but has no value this cycle (e.g. time lag not known yet) — its state is kept as it is. */
  value: number | null;
  /** Set when the consumer group has had no members for longer than the objectives' window: it does not alert. */
  inactiveSince?: Date;
}

const fmt = (n: number) => (Number.isInteger(n) ? n.toLocaleString("en-US") : n.toFixed(1));
const ACTIVE_SUBSCRIPTION = ["APPROVED", "ACTIVE"] as const;

/**
 * Every rule that needs looking at now, with its current value: every lag
 * objective (set by hand, so few), and freshness only for products whose
 * figure is BREACHED or whose rule already has a state — a product within its
 * SLA without state has nothing to start or stop, and at 100,000 products
 * reading them all every cycle would be most of the work.
 */
async function rules(db: Db, now: Date, staleAfterMs: number, freshnessStates: readonly string[]): Promise<Rule[]> {
  const out: Rule[] = [];
  const objectives = await db.subscriptionObjective.findMany({
    where: { subscription: { status: { in: [...ACTIVE_SUBSCRIPTION] }, product: { status: { in: ["ACTIVE", "DEPRECATED"] } } } },
    include: { subscription: { select: { id: true, consumingDomainId: true, product: { select: { id: true, name: true, topicName: true } } } } },
  });
  if (objectives.length > 0) {
    const groups = await db.consumerGroupObservation.findMany({
      where: { subscriptionId: { in: objectives.map((o) => o.subscriptionId) } },
      select: { subscriptionId: true, groupId: true, topic: true, totalLag: true, timeLagMs: true, members: true },
    });
    const usages = await db.groupTopicUsage.findMany({
      where: { groupId: { in: [...new Set(groups.map((g) => g.groupId))] } },
      select: { groupId: true, topic: true, lastActiveAt: true, firstSeenAt: true },
    });
    const bySubscription = new Map<string, typeof groups>();
    for (const g of groups) bySubscription.set(g.subscriptionId ?? "", [...(bySubscription.get(g.subscriptionId ?? "") ?? []), g]);
    for (const o of objectives) {
      const sub = o.subscription;
      for (const g of bySubscription.get(o.subscriptionId) ?? []) {
        if (g.topic !== sub.product.topicName) continue;
        const stopped = inactiveSince(g.members, usages.find((u) => u.groupId === g.groupId && u.topic === g.topic), now.getTime());
        const base = {
          productId: sub.product.id,
          productName: sub.product.name,
          subscriptionId: sub.id,
          groupId: g.groupId,
          audience: { domainMembers: [sub.consumingDomainId] },
          link: `/subscriptions/${sub.id}`,
          ...(stopped ? { inactiveSince: stopped } : {}),
        };
        if (o.maxLagRecords !== null) {
          out.push({ ...base, key: `LAG_RECORDS:${sub.id}:${g.groupId}`, kind: "LAG_RECORDS", value: Number(g.totalLag), threshold: Number(o.maxLagRecords), what: `consumer group ${g.groupId} lags`, unit: "records" });
        }
        if (o.maxLagSeconds !== null) {
          out.push({ ...base, key: `LAG_SECONDS:${sub.id}:${g.groupId}`, kind: "LAG_SECONDS", value: g.timeLagMs === null ? null : Number(g.timeLagMs) / 1000, threshold: o.maxLagSeconds, what: `consumer group ${g.groupId} is behind by`, unit: "s" });
        }
      }
    }
  }
  const watched = await db.productFreshness.findMany({ where: { OR: [{ status: "BREACHED" }, { productId: { in: [...freshnessStates] } }] }, select: { productId: true } });
  const products = await db.dataProduct.findMany({
    where: { id: { in: watched.map((w) => w.productId) }, status: { in: ["ACTIVE", "DEPRECATED"] }, subscriptions: { some: { status: { in: [...ACTIVE_SUBSCRIPTION] } } } },
    select: { id: true, name: true, domainId: true, freshnessSeconds: true, subscriptions: { where: { status: { in: [...ACTIVE_SUBSCRIPTION] } }, select: { consumingDomainId: true } } },
  });
  if (products.length > 0) {
    const fresh = new Map((await db.productFreshness.findMany({ where: { productId: { in: products.map((p) => p.id) } } })).map((f) => [f.productId, f]));
    for (const p of products) {
      const f = fresh.get(p.id);
      // An empty topic has no freshness to breach; a figure the worker stopped refreshing is not trusted.
      const known = f !== undefined && f.ageMs !== null && now.getTime() - f.observedAt.getTime() <= staleAfterMs;
      out.push({
        key: `FRESHNESS:${p.id}`,
        kind: "FRESHNESS",
        productId: p.id,
        productName: p.name,
        subscriptionId: null,
        groupId: null,
        value: known ? (now.getTime() - f.observedAt.getTime() + Number(f.ageMs)) / 1000 : null,
        threshold: p.freshnessSeconds,
        audience: { domainMembers: [...new Set([p.domainId, ...p.subscriptions.map((s) => s.consumingDomainId)])] },
        link: `/products/${p.id}`,
        what: "the newest record is",
        unit: "s old",
      });
    }
  }
  out.push(...(await deadLetterRules(db, now, staleAfterMs)));
  return out;
}

/**
 * DLQ_GROWTH per live product with a DLQ rule and a recent sample of its
 * dead-letter topic: the end offset now minus the lowest end offset sampled
 * within the window (a topic recreated with fewer records counts as no growth).
 */
async function deadLetterRules(db: Db, now: Date, staleAfterMs: number): Promise<Rule[]> {
  const samples = await db.deadLetterSample.findMany({
    where: { bucket: { gte: new Date(now.getTime() - DLQ_WINDOW_MS) } },
    select: { productId: true, endOffset: true, observedAt: true },
    orderBy: { bucket: "asc" },
  });
  if (samples.length === 0) return [];
  const byProduct = new Map<string, { min: bigint; last: bigint; observedAt: Date }>();
  for (const s of samples) {
    const seen = byProduct.get(s.productId);
    byProduct.set(s.productId, { min: seen && seen.min < s.endOffset ? seen.min : s.endOffset, last: s.endOffset, observedAt: s.observedAt });
  }
  const products = await db.dataProduct.findMany({
    where: { id: { in: [...byProduct.keys()] }, status: { in: ["ACTIVE", "DEPRECATED"] }, qualityRules: { some: { onFailure: "DLQ" } } },
    select: { id: true, name: true, domainId: true, topicName: true },
  });
  return products.map((p): Rule => {
    const f = byProduct.get(p.id);
    const known = f !== undefined && now.getTime() - f.observedAt.getTime() <= staleAfterMs;
    const grown = known ? f.last - f.min : 0n;
    return {
      key: `DLQ_GROWTH:${p.id}`,
      kind: "DLQ_GROWTH",
      productId: p.id,
      productName: p.name,
      subscriptionId: null,
      groupId: null,
      value: known ? Number(grown > 0n ? grown : 0n) : null,
      threshold: 0,
      // Dead letters are the owners' business: nobody else is told.
      audience: { domainMembers: [p.domainId] },
      link: `/products/${p.id}`,
      what: `the dead-letter topic ${p.topicName}.dlq received`,
      unit: `records in ${DLQ_WINDOW_MS / 60_000} min`,
    };
  });
}

type State = Awaited<ReturnType<Db["alertState"]["findMany"]>>[number];

/** Locks the rule's state row and returns it, or null when another evaluator removed it meanwhile. */
async function lockState(tx: Tx, key: string): Promise<State | null> {
  const rows = await tx.$queryRaw<{ key: string }[]>`SELECT key FROM "AlertState" WHERE key = ${key} FOR UPDATE`;
  return rows.length === 0 ? null : tx.alertState.findUnique({ where: { key } });
}

/** The rules an owner silenced (AlertSilence), by key: until then their alerts neither notify when they fire nor when they resolve. */
type Silences = Map<string, { until: Date }>;
const silenced = (silences: Silences, key: string, now: Date) => (silences.get(key)?.until.getTime() ?? 0) > now.getTime();

async function fire(tx: Tx, r: Rule, value: number, now: Date, quiet: boolean): Promise<string> {
  const message = `${r.productName}: ${r.what} ${fmt(value)} ${r.unit}, above the objective of ${fmt(r.threshold)} ${r.unit}.`;
  const alert = await tx.alert.create({ data: { kind: r.kind, productId: r.productId, subscriptionId: r.subscriptionId, groupId: r.groupId, threshold: r.threshold, value, peakValue: value, message, firedAt: now } });
  if (quiet) return alert.id;
  await notify(tx, {
    kind: "alert.fired",
    title: alertTitle(r.kind, r.productName, r.groupId, "fired"),
    body: message,
    link: r.link,
    entityType: r.subscriptionId ? "Subscription" : "DataProduct",
    entityId: r.subscriptionId ?? r.productId,
    audience: r.audience,
    data: { alertId: alert.id, rule: r.kind, value, threshold: r.threshold, groupId: r.groupId },
  });
  return alert.id;
}

interface ResolveTarget {
  kind: string;
  productName: string;
  productId: string;
  subscriptionId: string | null;
  groupId: string | null;
  link: string;
  audience: NotificationAudience;
}

async function resolve(tx: Tx, alertId: string, r: ResolveTarget, now: Date, why: string, quiet = false): Promise<void> {
  const alert = await tx.alert.update({ where: { id: alertId }, data: { status: "RESOLVED", resolvedAt: now } });
  if (quiet) return;
  await notify(tx, {
    kind: "alert.resolved",
    title: alertTitle(r.kind, r.productName, r.groupId, "resolved"),
    body: `${why}. It fired ${alert.firedAt.toISOString().slice(0, 19).replace("T", " ")} UTC; worst ${fmt(alert.peakValue)} against ${fmt(alert.threshold)}.`,
    link: r.link,
    entityType: r.subscriptionId ? "Subscription" : "DataProduct",
    entityId: r.subscriptionId ?? r.productId,
    audience: r.audience,
    data: { alertId, rule: r.kind },
  });
}

export interface EvaluationResult {
  rules: number;
  fired: string[];
  resolved: string[];
  /** Alerts still firing when their silence ended: notified again. */
  refired: string[];
}

export async function evaluateAlerts(db: Db, options: AlertOptions, now: Date = new Date()): Promise<EvaluationResult> {
  const result: EvaluationResult = { rules: 0, fired: [], resolved: [], refired: [] };
  const states = new Map((await db.alertState.findMany()).map((s) => [s.key, s]));
  const silences: Silences = new Map((await db.alertSilence.findMany({ select: { key: true, until: true } })).map((s) => [s.key, s]));
  const freshnessStates = [...states.values()].filter((s) => s.kind === "FRESHNESS").map((s) => s.productId);
  const all = await rules(db, now, options.staleAfterMs ?? 300_000, freshnessStates);
  result.rules = all.length;
  const present = new Set(all.map((r) => r.key));
  const elapsed = (since: Date | null) => (since === null ? -1 : now.getTime() - since.getTime());

  for (const r of all) {
    if (r.inactiveSince) {
      // A consumer that stopped: no alert while it has no members; one that fired ends, saying why.
      const state = states.get(r.key);
      if (!state) continue;
      if (!state.firingAlertId) {
        await db.alertState.deleteMany({ where: { key: r.key, firingAlertId: null } });
        continue;
      }
      const firingId = state.firingAlertId;
      const since = r.inactiveSince;
      await db.$transaction(async (tx) => {
        const locked = await lockState(tx, r.key);
        if (!locked || locked.firingAlertId !== firingId) return;
        await resolve(tx, firingId, r, now, `Consumer group ${r.groupId} has had no members since ${since.toISOString().slice(0, 16).replace("T", " ")} UTC: it is shown as inactive and its lag does not alert until a consumer joins again`, silenced(silences, r.key, now));
        result.resolved.push(firingId);
        await tx.alertState.delete({ where: { key: r.key } });
      });
      continue;
    }
    if (r.value === null) continue;
    const value = r.value;
    const state = states.get(r.key);
    const breaching = value > r.threshold;
    if (!state?.firingAlertId) {
      if (!breaching) {
        // Below the threshold before the alert fired: the timer starts again next time.
        if (state) await db.alertState.deleteMany({ where: { key: r.key, firingAlertId: null } });
        continue;
      }
      if (!state) {
        await db.alertState.createMany({ data: [{ key: r.key, kind: r.kind, productId: r.productId, subscriptionId: r.subscriptionId, groupId: r.groupId, breachingSince: now, lastValue: value }], skipDuplicates: true });
        if (options.fireAfterMs > 0) continue;
      } else if (elapsed(state.breachingSince) < options.fireAfterMs) {
        await db.alertState.update({ where: { key: r.key }, data: { lastValue: value } });
        continue;
      }
      await db.$transaction(async (tx) => {
        const locked = await lockState(tx, r.key);
        if (!locked || locked.firingAlertId) return;
        const id = await fire(tx, r, value, now, silenced(silences, r.key, now));
        result.fired.push(id);
        await tx.alertState.update({ where: { key: r.key }, data: { firingAlertId: id, clearSince: null, lastValue: value } });
      });
      continue;
    }
    // Firing: track the worst value; resolve after a sustained recovery below threshold × clearRatio.
    const firingId = state.firingAlertId;
    await db.$executeRaw`UPDATE "Alert" SET "peakValue" = GREATEST("peakValue", ${value}) WHERE id = ${firingId}`;
    const clear = value <= r.threshold * options.clearRatio;
    if (!clear) {
      await db.alertState.update({ where: { key: r.key }, data: { clearSince: null, lastValue: value } });
      continue;
    }
    if (state.clearSince === null && options.resolveAfterMs > 0) {
      await db.alertState.update({ where: { key: r.key }, data: { clearSince: now, lastValue: value } });
      continue;
    }
    if (state.clearSince !== null && elapsed(state.clearSince) < options.resolveAfterMs) {
      await db.alertState.update({ where: { key: r.key }, data: { lastValue: value } });
      continue;
    }
    await db.$transaction(async (tx) => {
      const locked = await lockState(tx, r.key);
      if (!locked || locked.firingAlertId !== firingId) return;
      await resolve(tx, firingId, r, now, `${r.what[0]?.toUpperCase()}${r.what.slice(1)} ${fmt(value)} ${r.unit} now`, silenced(silences, r.key, now));
      result.resolved.push(firingId);
      await tx.alertState.delete({ where: { key: r.key } });
    });
  }

  // Rules that no longer exist (objective removed, group gone, subscription revoked, product retired): their alerts end.
  for (const s of states.values()) {
    if (present.has(s.key)) continue;
    if (!s.firingAlertId) {
      await db.alertState.deleteMany({ where: { key: s.key, firingAlertId: null } });
      continue;
    }
    const firingId = s.firingAlertId;
    await db.$transaction(async (tx) => {
      const locked = await lockState(tx, s.key);
      if (!locked || locked.firingAlertId !== firingId) return;
      const product = await tx.dataProduct.findUnique({ where: { id: s.productId }, select: { name: true, domainId: true } });
      const sub = s.subscriptionId ? await tx.subscription.findUnique({ where: { id: s.subscriptionId }, select: { consumingDomainId: true } }) : null;
      const domain = sub?.consumingDomainId ?? product?.domainId;
      await resolve(
        tx,
        firingId,
        { kind: s.kind, productName: product?.name ?? s.productId, productId: s.productId, subscriptionId: s.subscriptionId, groupId: s.groupId, link: s.subscriptionId ? `/subscriptions/${s.subscriptionId}` : `/products/${s.productId}`, audience: { domainMembers: domain ? [domain] : [] } },
        now,
        "No longer watched (the objective, the consumer group or the access ended)",
        silenced(silences, s.key, now),
      );
      result.resolved.push(firingId);
      await tx.alertState.delete({ where: { key: s.key } });
    });
  }

  // Silences that ended: a rule still firing notifies again (it fires again after the silence); the silence goes.
  for (const [key, silence] of silences) {
    if (silence.until.getTime() > now.getTime()) continue;
    await db.$transaction(async (tx) => {
      const ended = await tx.alertSilence.deleteMany({ where: { key, until: { lte: now } } });
      if (ended.count === 0) return;
      const state = await lockState(tx, key);
      if (!state?.firingAlertId) return;
      const alert = await tx.alert.findUnique({ where: { id: state.firingAlertId } });
      if (!alert || alert.status !== "FIRING") return;
      const product = await tx.dataProduct.findUnique({ where: { id: alert.productId }, select: { name: true, domainId: true } });
      const sub = alert.subscriptionId ? await tx.subscription.findUnique({ where: { id: alert.subscriptionId }, select: { consumingDomainId: true } }) : null;
      const name = product?.name ?? alert.productId;
      const audience: NotificationAudience = sub ? { domainMembers: [sub.consumingDomainId] } : { domainMembers: product ? [product.domainId] : [] };
      await notify(tx, {
        kind: "alert.fired",
        title: alertTitle(alert.kind, name, alert.groupId, "still"),
        body: `The silence ended and the alert still fires: ${alert.message}`,
        link: alert.subscriptionId ? `/subscriptions/${alert.subscriptionId}` : `/products/${alert.productId}`,
        entityType: alert.subscriptionId ? "Subscription" : "DataProduct",
        entityId: alert.subscriptionId ?? alert.productId,
        audience,
        data: { alertId: alert.id, rule: alert.kind, silenceEnded: true, value: state.lastValue, threshold: alert.threshold, groupId: alert.groupId },
      });
      result.refired.push(alert.id);
    });
  }
  return result;
}
