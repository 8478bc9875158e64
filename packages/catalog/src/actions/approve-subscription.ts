import { inTransaction, type ActingUser } from "../action.ts";
import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { assertLiveInEnvironment } from "../environments/subscriptions.ts";
import { ForbiddenError } from "../errors.ts";
import { assertFourEyes } from "../four-eyes.ts";
import { notify } from "../notifications/notify.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { enforcePolicy } from "../policies/enforce.ts";
import { assertAccountUsable } from "../principals.ts";
import { grantRequestedQuotaClass } from "../quotas/choose-quota-class.ts";
import { lockSubscription, moveSubscriptionStatus } from "../subscription-access.ts";
import { enqueueSubscriptionGrant } from "../tasks.ts";
import { nextSubscriptionStatus } from "../transitions.ts";

/**
 * Who may decide on a subscription: governance, or an owner of the product's
 * domain — except for RESTRICTED products, where only governance may. Nobody
 * decides on a request they made or changed themselves (four eyes).
 */
export function assertMayDecideSubscription(
  actor: Actor,
  subscription: { requestedById: string; editorIds?: readonly string[]; product: { domainId: string; classification: string } },
): void {
  const governance = hasGlobal(actor, "subscription:decide");
  const owner = canInDomain(actor, "subscription:decide", subscription.product.domainId);
  if (subscription.product.classification === "RESTRICTED" && !governance) {
    throw new ForbiddenError("Subscriptions to RESTRICTED products are decided by governance reviewers.");
  }
  if (!governance && !owner) {
    throw new ForbiddenError("Only owners of the product's domain or governance reviewers decide on its subscriptions.");
  }
  assertFourEyes(actor, subscription, "this subscription");
}

export async function approveSubscription(db: Db, acting: ActingUser, subscriptionId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    const subscription = await lockSubscription(tx, subscriptionId);
    assertMayDecideSubscription(actor, subscription);
    const to = nextSubscriptionStatus(subscription.status, "approve");
    await assertAccountUsable(tx, subscription.serviceAccount);
    // Access on another environment needs the product live there at the decision too.
    if (subscription.environment !== null) await assertLiveInEnvironment(tx, subscription.productId, subscription.product.name, subscription.environment);
    const policy = await enforcePolicy(tx, actor, {
      event: "subscription.approve",
      entityType: "Subscription",
      entityId: subscriptionId,
      facts: {
        subscription: { purpose: subscription.purpose, accountName: subscription.serviceAccount.name, openSubscriptionsOfAccount: 0, productClassification: subscription.product.classification },
        decider: { isGovernance: hasGlobal(actor, "subscription:decide") },
      },
    });
    // A PII need is granted only by governance: an owner's approval grants access with PII masked.
    const grantsPii = subscription.piiRequested && hasGlobal(actor, "subscription:decide");
    const updated = await moveSubscriptionStatus(tx, subscription, to, {
      decidedById: actor.id,
      decidedAt: new Date(),
      reason: null,
      editorIds: [],
      ...(grantsPii ? { piiApprovedById: actor.id, piiApprovedAt: new Date() } : {}),
    });
    await enqueueSubscriptionGrant(tx, updated, subscription.product.topicName, subscription.serviceAccount);
    // A larger quota class asked for is governance's, like PII: a reviewer's approval grants it too (four eyes held above).
    const grantsQuota = subscription.quotaClassRequested !== null && hasGlobal(actor, "subscription:decide");
    if (grantsQuota) await grantRequestedQuotaClass(tx, actor, { entityType: "Subscription", id: subscriptionId }, subscription, `${subscription.product.topicName} for User:${subscription.serviceAccount.name}`, "subscription");
    await recordAudit(tx, actor, "subscription.approved", "Subscription", subscriptionId, {
      from: subscription.status,
      to,
      product: subscription.product.topicName,
      principal: `User:${subscription.serviceAccount.name}`,
      piiApproved: grantsPii,
      ...(subscription.environment ? { environment: subscription.environment } : {}),
      policy: (await policy.record()).summary,
    });
    await notify(tx, {
      kind: "subscription.approved",
      title: `Access to ${subscription.product.name} approved`,
      body: subscription.environment
        ? `Access is granted on the ${subscription.environment} cluster within seconds; pick up the credentials on the subscription page.`
        : "Access is granted on the broker within seconds; pick up the credentials on the subscription page.",
      link: `/subscriptions/${subscriptionId}`,
      entityType: "Subscription",
      entityId: subscriptionId,
      audience: { domainMembers: [subscription.consumingDomainId] },
      webhookDomains: [subscription.consumingDomainId, subscription.product.domainId],
      exclude: [actor.id],
      data: { product: subscription.product.topicName, principal: `User:${subscription.serviceAccount.name}` },
    });
    if (subscription.piiRequested && !grantsPii) {
      // Access is granted with PII masked; the personal data waits for governance's own decision.
      await notify(tx, {
        kind: "subscription.requested",
        title: `${subscription.serviceAccount.name} asks for personal data of ${subscription.product.name}`,
        body: `${actor.name} approved the access with PII masked; granting the personal data is governance's decision. Justification: ${subscription.piiJustification ?? "none given"}`,
        link: `/subscriptions/${subscriptionId}`,
        entityType: "Subscription",
        entityId: subscriptionId,
        audience: { governance: true },
        exclude: [actor.id, subscription.requestedById],
        data: { product: subscription.product.topicName, principal: `User:${subscription.serviceAccount.name}`, pii: true },
      });
    }
    return updated;
  });
}
