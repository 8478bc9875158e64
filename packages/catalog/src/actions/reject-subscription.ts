import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
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
    return updated;
  });
}
