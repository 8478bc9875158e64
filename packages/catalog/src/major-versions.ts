import type { Tx } from "./db.ts";
import { ConflictError, NotFoundError } from "./errors.ts";
import type { PolicyDocument } from "./policies/document.ts";

/*
 * Major versions: `<domain>.<product>.v<N+1>` is a new product whose
 * `predecessorId` names v<N>. Subscribers of v<N> carry their access over
 * with one request that keeps their service account and purpose.
 */

/** Subscriptions that still read a product: their domains are told when it is superseded. */
export const READING_STATUSES = ["APPROVED", "ACTIVE"] as const;

/**
 * A request that says it carries `fromSubscriptionId` over must come from the
 * same service account and target that subscription's product's successor.
 */
export async function assertCarriedOver(tx: Tx, fromSubscriptionId: string, productId: string, serviceAccountId: string): Promise<void> {
  const from = await tx.subscription.findUnique({ where: { id: fromSubscriptionId }, include: { product: { select: { successor: { select: { id: true } } } } } });
  if (!from) throw new NotFoundError("Subscription", fromSubscriptionId);
  if (from.serviceAccountId !== serviceAccountId || from.product.successor?.id !== productId) {
    throw new ConflictError("That subscription is not to the previous major version of this product for this service account.", "NOT_A_PREDECESSOR");
  }
}

/** Domains whose subscriptions read the product now (told of new versions and of deprecation). */
export async function readerDomainIds(tx: Tx, productId: string): Promise<string[]> {
  const rows = await tx.subscription.findMany({ where: { productId, status: { in: [...READING_STATUSES] } }, select: { consumingDomainId: true }, distinct: ["consumingDomainId"] });
  return rows.map((r) => r.consumingDomainId);
}

/** Days of notice the policy asks for on a deprecation (the largest `deprecation-notice` rule; 30 without one). */
export function policyNoticeDays(document: PolicyDocument): number {
  const days = document.rules.flatMap((r) => (r.check === "deprecation-notice" ? [r.params.minDays] : []));
  return days.length > 0 ? Math.max(...days) : 30;
}
