import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { notify } from "../notifications/notify.ts";
import { lockSubscription, moveSubscriptionStatus } from "../subscription-access.ts";
import { nextSubscriptionStatus } from "../transitions.ts";
import { reasonInput } from "../validation.ts";
import { assertMayDecideSubscription } from "./approve-subscription.ts";

export async function rejectSubscription(db: Db, acting: ActingUser, subscriptionId: string, rawInput: unknown) {
  const { reason } = parseInput(reasonInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const subscription = await lockSubscription(tx, subscriptionId);
    assertMayDecideSubscription(actor, subscription);
    const to = nextSubscriptionStatus(subscription.status, "reject");
    const updated = await moveSubscriptionStatus(tx, subscription, to, { decidedById: actor.id, decidedAt: new Date(), reason, editorIds: [] });
    await recordAudit(tx, actor, "subscription.rejected", "Subscription", subscriptionId, { from: subscription.status, to, reason });
    await notify(tx, {
      kind: "subscription.rejected",
      title: `Access to ${subscription.product.name} rejected`,
      body: `${actor.name}: ${reason}`,
      link: `/subscriptions/${subscriptionId}`,
      entityType: "Subscription",
      entityId: subscriptionId,
      audience: { domainMembers: [subscription.consumingDomainId] },
      webhookDomains: [subscription.consumingDomainId, subscription.product.domainId],
      exclude: [actor.id],
      data: { product: subscription.product.topicName, principal: `User:${subscription.serviceAccount.name}`, reason },
    });
    return updated;
  });
}
