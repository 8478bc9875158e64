import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import type { Db, Tx } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors.ts";
import { canInDomain } from "../permissions.ts";

/*
 * Issue 31, point 5: an owner acknowledges an alert ("someone is on it") or
 * silences it for a time. A silence belongs to the alert's rule (AlertSilence,
 * keyed like AlertState): while it lasts the rule's alerts neither notify when
 * they fire nor when they resolve; when it ends and the rule still fires, the
 * evaluator notifies again (alerts/evaluate.ts). Both are audited.
 */

/** The longest silence: an alert silenced for longer is a rule that should be changed. */
export const MAX_SILENCE_MS = 90 * 24 * 3600_000;
export const SILENCE_DURATIONS = { "1h": 3600_000, "24h": 24 * 3600_000, "7d": 7 * 24 * 3600_000 } as const;

export const silenceAlertInput = z
  .object({
    /** A preset length; or `until`, a date and time. Exactly one. */
    duration: z.enum(["1h", "24h", "7d"]).optional(),
    until: z.string().trim().max(40).optional(),
    reason: z.string().trim().max(500).optional(),
  })
  .strict();

/** The rule key of an alert (as AlertState and AlertSilence store it). */
export function alertRuleKey(a: { kind: string; productId: string; subscriptionId: string | null; groupId: string | null }): string {
  return a.kind === "FRESHNESS" || a.kind === "DLQ_GROWTH" ? `${a.kind}:${a.productId}` : `${a.kind}:${a.subscriptionId ?? ""}:${a.groupId ?? ""}`;
}

type AlertRow = NonNullable<Awaited<ReturnType<Tx["alert"]["findUnique"]>>>;

/**
 * Who may acknowledge and silence an alert: the owners it is about — a lag
 * alert's subscribing domain (who set the objective), a freshness alert's
 * product domain.
 */
async function loadOwnAlert(tx: Tx, actor: Actor, alertId: string): Promise<AlertRow> {
  const alert = await tx.alert.findUnique({ where: { id: alertId } });
  if (!alert) throw new NotFoundError("Alert", alertId);
  let allowed: boolean;
  if (alert.subscriptionId) {
    const sub = await tx.subscription.findUnique({ where: { id: alert.subscriptionId }, select: { consumingDomainId: true } });
    allowed = sub !== null && canInDomain(actor, "subscription:replay", sub.consumingDomainId);
  } else {
    const product = await tx.dataProduct.findUnique({ where: { id: alert.productId }, select: { domainId: true } });
    allowed = product !== null && canInDomain(actor, "product:update", product.domainId);
  }
  if (!allowed) {
    throw new ForbiddenError(alert.subscriptionId ? "Only owners of the subscribing domain acknowledge or silence its lag alerts." : "Only the product's owners acknowledge or silence its freshness and dead-letter alerts.");
  }
  if (alert.status !== "FIRING") throw new ConflictError("The alert has resolved; only a firing alert is acknowledged or silenced.", "ALERT_RESOLVED");
  return alert;
}

export async function acknowledgeAlert(db: Db, acting: ActingUser, alertId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    const alert = await loadOwnAlert(tx, actor, alertId);
    if (alert.acknowledgedAt) return alert;
    const updated = await tx.alert.update({ where: { id: alertId }, data: { acknowledgedAt: new Date(), acknowledgedById: actor.id } });
    await recordAudit(tx, actor, "alert.acknowledged", "Alert", alertId, { kind: alert.kind, productId: alert.productId, subscriptionId: alert.subscriptionId, groupId: alert.groupId });
    return updated;
  });
}

export async function silenceAlert(db: Db, acting: ActingUser, alertId: string, rawInput: unknown, now: Date = new Date()) {
  const input = parseInput(silenceAlertInput, rawInput);
  if ((input.duration === undefined) === (input.until === undefined || input.until === "")) {
    throw new ValidationError("Silence for 1 hour, 24 hours, 7 days or until a date: choose one.", { duration: ["Choose how long, or a date."] });
  }
  let until: Date;
  if (input.duration) until = new Date(now.getTime() + SILENCE_DURATIONS[input.duration]);
  else {
    until = new Date(input.until ?? "");
    if (Number.isNaN(until.getTime())) throw new ValidationError("The end of the silence is not a date and time.", { until: ["Enter a date and time, e.g. 2026-12-24T08:00:00Z."] });
    if (until.getTime() <= now.getTime()) throw new ValidationError("The end of the silence is in the past.", { until: ["Choose a time in the future."] });
    if (until.getTime() - now.getTime() > MAX_SILENCE_MS) throw new ValidationError("A silence lasts at most 90 days; change the objective instead.", { until: ["At most 90 days from now."] });
  }
  return inTransaction(db, acting, async (tx, actor) => {
    const alert = await loadOwnAlert(tx, actor, alertId);
    const key = alertRuleKey(alert);
    const data = { kind: alert.kind, productId: alert.productId, subscriptionId: alert.subscriptionId, groupId: alert.groupId, alertId, until, reason: input.reason ?? "", silencedById: actor.id };
    const silence = await tx.alertSilence.upsert({ where: { key }, create: { key, ...data }, update: { ...data, createdAt: now } });
    await recordAudit(tx, actor, "alert.silenced", "Alert", alertId, { kind: alert.kind, until: until.toISOString(), ...(input.duration ? { duration: input.duration } : {}), ...(input.reason ? { reason: input.reason } : {}) });
    return { alertId, until: silence.until, silencedById: actor.id };
  });
}

/** Ends a silence early: the alert notifies again as usual (it does not re-send the notification it already sent). */
export async function unsilenceAlert(db: Db, acting: ActingUser, alertId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    const alert = await loadOwnAlert(tx, actor, alertId);
    const removed = await tx.alertSilence.deleteMany({ where: { key: alertRuleKey(alert) } });
    if (removed.count === 0) throw new ConflictError("The alert is not silenced.", "NOT_SILENCED");
    await recordAudit(tx, actor, "alert.unsilenced", "Alert", alertId, { kind: alert.kind });
    return { alertId };
  });
}
