import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ForbiddenError } from "../errors.ts";
import { notify } from "../notifications/notify.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { lockSubscription, moveSubscriptionStatus } from "../subscription-access.ts";
import { enqueueSubscriptionRevoke } from "../tasks.ts";
import { nextSubscriptionStatus } from "../transitions.ts";
import { reasonInput } from "../validation.ts";

/**
 * Ends access: the product's owners or governance may revoke, and the
 * consuming domain's owners may give up their own subscription.
 */
export async function revokeSubscription(db: Db, acting: ActingUser, subscriptionId: string, rawInput: unknown) {
  const { reason } = parseInput(reasonInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const subscription = await lockSubscription(tx, subscriptionId);
    const allowed =
      hasGlobal(actor, "subscription:revoke") ||
      canInDomain(actor, "subscription:revoke", subscription.product.domainId) ||
      canInDomain(actor, "subscription:revoke", subscription.consumingDomainId);
    if (!allowed) throw new ForbiddenError("Only the product's owners, the subscribing domain's owners or governance can revoke a subscription.");
    const to = nextSubscriptionStatus(subscription.status, "revoke");
    const updated = await moveSubscriptionStatus(tx, subscription, to, { decidedById: actor.id, decidedAt: new Date(), reason });
    await enqueueSubscriptionRevoke(tx, updated, subscription.product.topicName, subscription.serviceAccount);
    await recordAudit(tx, actor, "subscription.revoked", "Subscription", subscriptionId, { from: subscription.status, to, reason });
    await notify(tx, {
      kind: "subscription.revoked",
      title: `Access to ${subscription.product.name} revoked`,
      body: `${actor.name}: ${reason}`,
      link: `/subscriptions/${subscriptionId}`,
      entityType: "Subscription",
      entityId: subscriptionId,
      audience: { domainMembers: [subscription.consumingDomainId], domainOwners: [subscription.product.domainId] },
      webhookDomains: [subscription.consumingDomainId, subscription.product.domainId],
      exclude: [actor.id],
      data: { product: subscription.product.topicName, principal: `User:${subscription.serviceAccount.name}`, reason },
    });
    return updated;
  });
}
