import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { subscriptionObjectiveInput } from "../alerts/inputs.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError } from "../errors.ts";
import { canInDomain } from "../permissions.ts";
import { lockSubscription } from "../subscription-access.ts";

const OPEN = ["PENDING", "APPROVED", "ACTIVE"];

/**
 * Sets (or clears) the subscriber's own lag objectives for a subscription —
 * max lag in records and in seconds — which the worker's alert rules watch.
 * The subscribing domain's owners decide them, as they decide replays.
 */
export async function setSubscriptionObjective(db: Db, acting: ActingUser, subscriptionId: string, rawInput: unknown) {
  const input = parseInput(subscriptionObjectiveInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const subscription = await lockSubscription(tx, subscriptionId);
    if (!canInDomain(actor, "subscription:replay", subscription.consumingDomainId)) {
      throw new ForbiddenError("Only the subscribing domain's owners set its lag objectives.");
    }
    if (!OPEN.includes(subscription.status)) throw new ConflictError(`The subscription is ${subscription.status.toLowerCase()}; there is no lag to watch.`);
    const before = await tx.subscriptionObjective.findUnique({ where: { subscriptionId } });
    const data = { maxLagRecords: input.maxLagRecords === null ? null : BigInt(input.maxLagRecords), maxLagSeconds: input.maxLagSeconds, updatedById: actor.id };
    const objective =
      input.maxLagRecords === null && input.maxLagSeconds === null
        ? (await tx.subscriptionObjective.deleteMany({ where: { subscriptionId } }), null)
        : await tx.subscriptionObjective.upsert({ where: { subscriptionId }, create: { subscriptionId, ...data }, update: data });
    await recordAudit(tx, actor, "subscription.objectiveSet", "Subscription", subscriptionId, {
      before: before ? { maxLagRecords: before.maxLagRecords?.toString() ?? null, maxLagSeconds: before.maxLagSeconds } : null,
      after: objective ? { maxLagRecords: input.maxLagRecords, maxLagSeconds: input.maxLagSeconds } : null,
    });
    return objective ? { subscriptionId, maxLagRecords: input.maxLagRecords, maxLagSeconds: input.maxLagSeconds, updatedAt: objective.updatedAt.toISOString() } : null;
  });
}
