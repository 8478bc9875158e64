import type { Db } from "../db.ts";
import { notify } from "../notifications/notify.ts";
import { activePolicy } from "../policies/store.ts";
import { lockSubscription, moveSubscriptionStatus } from "../subscription-access.ts";
import { enqueueSubscriptionRevoke } from "../tasks.ts";
import { scheduleFromPolicy } from "./policy-schedule.ts";
import { recertificationState } from "./schedule.ts";

/** The actor of what the schedule does by itself (audit log). */
export const RECERTIFICATION_ACTOR = "recertification";

export interface SweepResult {
  notified: number;
  revokedExpired: number;
  revokedOverdue: number;
}

/**
 * One pass of the recertification schedule (the worker runs it periodically):
 * subscriptions past their expiry are revoked; overdue ones are announced to
 * the product's owners once per due date (notification `access.recertification`)
 * and — when the policy's rule says `autoRevoke` — revoked once the grace
 * period has passed too. Each subscription is handled in its own transaction
 * under its row lock, so a concurrent owner decision wins or loses cleanly.
 */
export async function sweepRecertification(db: Db, now = new Date()): Promise<SweepResult> {
  const schedule = scheduleFromPolicy((await activePolicy(db)).document);
  const subs = await db.subscription.findMany({
    where: { status: { in: ["APPROVED", "ACTIVE"] } },
    select: { id: true, certifiedAt: true, decidedAt: true, createdAt: true, expiresAt: true, recertNotifiedAt: true, product: { select: { classification: true } } },
  });
  const result: SweepResult = { notified: 0, revokedExpired: 0, revokedOverdue: 0 };
  for (const s of subs) {
    const state = recertificationState(s, s.product.classification, schedule, now);
    const revokeFor = state.expired ? "expired" : state.lapsed && schedule.autoRevoke ? "overdue" : null;
    const announce = state.overdue && (!s.recertNotifiedAt || s.recertNotifiedAt < state.dueAt);
    if (!revokeFor && !announce) continue;
    await db.$transaction(async (tx) => {
      const sub = await lockSubscription(tx, s.id);
      if (sub.status !== "APPROVED" && sub.status !== "ACTIVE") return;
      const actor = { id: null, email: RECERTIFICATION_ACTOR };
      if (revokeFor) {
        const reason = revokeFor === "expired" ? `Expired on ${sub.expiresAt?.toISOString().slice(0, 10)}.` : `Not recertified by ${state.dueAt.toISOString().slice(0, 10)} (+${schedule.graceDays} days' grace); the policy revokes overdue access.`;
        const updated = await moveSubscriptionStatus(tx, sub, "REVOKED", { decidedById: null, decidedAt: now, reason });
        await enqueueSubscriptionRevoke(tx, updated, sub.product.topicName, sub.serviceAccount);
        await tx.auditEvent.create({ data: { actorId: null, actorEmail: actor.email, action: "subscription.revoked", entityType: "Subscription", entityId: sub.id, data: { from: sub.status, to: "REVOKED", reason, via: revokeFor === "expired" ? "expiry" : "recertification" } } });
        await notify(tx, {
          kind: "access.recertification",
          title: `Access of ${sub.serviceAccount.name} to ${sub.product.name} was revoked`,
          body: reason,
          link: `/subscriptions/${sub.id}`,
          entityType: "Subscription",
          entityId: sub.id,
          audience: { domainOwners: [sub.product.domainId, sub.consumingDomainId] },
        });
        if (revokeFor === "expired") result.revokedExpired++;
        else result.revokedOverdue++;
        return;
      }
      await tx.subscription.update({ where: { id: sub.id }, data: { recertNotifiedAt: now } });
      await notify(tx, {
        kind: "access.recertification",
        title: `Recertify ${sub.serviceAccount.name}'s access to ${sub.product.name}`,
        body: `Due ${state.dueAt.toISOString().slice(0, 10)}: keep or revoke it with a reason.${schedule.autoRevoke ? ` Access is revoked ${schedule.graceDays} days after the due date.` : ""}`,
        link: "/recertification",
        entityType: "Subscription",
        entityId: sub.id,
        audience: { domainOwners: [sub.product.domainId] },
      });
      result.notified++;
    });
  }
  return result;
}
