import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ForbiddenError } from "../errors.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { lockSubscription } from "../subscription-access.ts";
import { futureDate } from "../validation.ts";

export const subscriptionExpiryInput = z.object({
  /** ISO date or date-time in the future; null removes the expiry. */
  expiresAt: z.union([z.null(), futureDate("Enter a date (YYYY-MM-DD or an ISO date-time).", "The expiry must be in the future.")]),
});

/** Sets or clears a subscription's expiry (the product's owners, governance); on expiry the sweep revokes it. */
export async function setSubscriptionExpiry(db: Db, acting: ActingUser, subscriptionId: string, rawInput: unknown) {
  const { expiresAt } = parseInput(subscriptionExpiryInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const subscription = await lockSubscription(tx, subscriptionId);
    if (!hasGlobal(actor, "product:review") && !canInDomain(actor, "subscription:decide", subscription.product.domainId)) {
      throw new ForbiddenError("Only the product's owners and governance set a subscription's expiry.");
    }
    const updated = await tx.subscription.update({ where: { id: subscriptionId }, data: { expiresAt } });
    await recordAudit(tx, actor, "subscription.expirySet", "Subscription", subscriptionId, { expiresAt: expiresAt?.toISOString() ?? null });
    return updated;
  });
}
