import { loadActingActor, type ActingUser } from "../action.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError } from "../errors.ts";
import { READING_STATUSES } from "../major-versions.ts";
import { canInDomain } from "../permissions.ts";
import { requestSubscription } from "./request-subscription.ts";

/**
 * One click for a subscriber of a superseded product: the same service account
 * and purpose, requested on the next major version. The request itself is an
 * ordinary subscription request (checked, approved and provisioned as any),
 * marked as carried over from the old subscription.
 */
export async function requestSuccessorAccess(db: Db, acting: ActingUser, subscriptionId: string) {
  const actor = await loadActingActor(db, acting);
  const from = await db.subscription.findUnique({
    where: { id: subscriptionId },
    include: { product: { select: { name: true, successor: { select: { id: true, topicName: true } } } } },
  });
  if (!from) throw new NotFoundError("Subscription", subscriptionId);
  if (!canInDomain(actor, "subscription:request", from.consumingDomainId)) {
    throw new ForbiddenError("Only members of the subscribing domain can carry its access over.");
  }
  if (!(READING_STATUSES as readonly string[]).includes(from.status)) {
    throw new ConflictError(`This subscription is ${from.status}; only an approved or active one can be carried over.`, "NOT_CARRIED_OVER");
  }
  const successor = from.product.successor;
  if (!successor) throw new ConflictError(`"${from.product.name}" has no newer major version.`, "NO_SUCCESSOR");
  // The write and every check that guards it run in requestSubscription's transaction.
  return requestSubscription(db, acting, { productId: successor.id, serviceAccountId: from.serviceAccountId, purpose: from.purpose }, { fromSubscriptionId: from.id });
}
