import { inTransaction, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError } from "../errors.ts";
import { notify } from "../notifications/notify.ts";
import { hasGlobal } from "../permissions.ts";
import { lockSubscription } from "../subscription-access.ts";

/**
 * Governance grants a subscription's stated need for PII: from then on its
 * domain sees PII fields unmasked in the message browser and the state view.
 * Four eyes: never the person who asked.
 */
export async function approveSubscriptionPii(db: Db, acting: ActingUser, subscriptionId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "subscription:decide")) throw new ForbiddenError("Only governance reviewers grant access to personal data.");
    const subscription = await lockSubscription(tx, subscriptionId);
    if (subscription.requestedById === actor.id) throw new ForbiddenError("Four-eyes rule: you cannot grant a PII need you stated yourself.");
    if (!subscription.piiRequested) throw new ConflictError("This subscription did not ask for personal data.", "PII_NOT_REQUESTED");
    if (subscription.piiApprovedAt) throw new ConflictError("Personal data is already granted for this subscription.", "PII_ALREADY_APPROVED");
    if (subscription.status !== "APPROVED" && subscription.status !== "ACTIVE") throw new ConflictError(`The subscription is ${subscription.status}; decide on the subscription itself first.`, "INVALID_TRANSITION");
    const updated = await tx.subscription.update({ where: { id: subscriptionId }, data: { piiApprovedById: actor.id, piiApprovedAt: new Date() } });
    await recordAudit(tx, actor, "subscription.pii-approved", "Subscription", subscriptionId, { product: subscription.product.topicName, principal: `User:${subscription.serviceAccount.name}`, justification: subscription.piiJustification });
    await notify(tx, {
      kind: "subscription.approved",
      title: `Personal data of ${subscription.product.name} granted`,
      body: "PII fields now show unmasked to your domain in the message browser and the latest-state view.",
      link: `/subscriptions/${subscriptionId}`,
      entityType: "Subscription",
      entityId: subscriptionId,
      audience: { domainMembers: [subscription.consumingDomainId], domainOwners: [subscription.product.domainId] },
      webhookDomains: [subscription.consumingDomainId, subscription.product.domainId],
      exclude: [actor.id],
      data: { pii: true },
    });
    return updated;
  });
}
