import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError } from "../errors.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { lockSubscription, moveSubscriptionStatus } from "../subscription-access.ts";
import { enqueueSubscriptionRevoke } from "../tasks.ts";
import { nextSubscriptionStatus } from "../transitions.ts";
import { reasonInput } from "../validation.ts";

export const recertifyInput = z.object({
  decision: z.enum(["keep", "revoke"], { message: "Decide keep or revoke." }),
  reason: reasonInput.shape.reason,
});

/**
 * An owner of the product (or governance) recertifies one granted
 * subscription: keep (the next due date counts from now) or revoke (the
 * worker removes the ACLs, as any revoke), always with a reason.
 */
export async function recertifySubscription(db: Db, acting: ActingUser, subscriptionId: string, rawInput: unknown) {
  const { decision, reason } = parseInput(recertifyInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const subscription = await lockSubscription(tx, subscriptionId);
    if (!hasGlobal(actor, "product:review") && !canInDomain(actor, "subscription:decide", subscription.product.domainId)) {
      throw new ForbiddenError("Only the product's owners and governance recertify its subscriptions.");
    }
    if (subscription.status !== "APPROVED" && subscription.status !== "ACTIVE") {
      throw new ConflictError(`Only granted subscriptions are recertified; this one is ${subscription.status}.`, "INVALID_TRANSITION");
    }
    if (decision === "keep") {
      const updated = await tx.subscription.update({ where: { id: subscriptionId }, data: { certifiedAt: new Date(), certifiedById: actor.id } });
      await recordAudit(tx, actor, "subscription.recertified", "Subscription", subscriptionId, { decision, reason });
      return updated;
    }
    const to = nextSubscriptionStatus(subscription.status, "revoke");
    const updated = await moveSubscriptionStatus(tx, subscription, to, { decidedById: actor.id, decidedAt: new Date(), reason });
    await enqueueSubscriptionRevoke(tx, updated, subscription.product.topicName, subscription.serviceAccount);
    await recordAudit(tx, actor, "subscription.revoked", "Subscription", subscriptionId, { from: subscription.status, to, reason, via: "recertification" });
    return updated;
  });
}
