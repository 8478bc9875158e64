import type { Subscription, SubscriptionStatus } from "@prisma/client";
import type { Tx } from "./db.ts";
import { ConflictError, NotFoundError } from "./errors.ts";

export async function lockSubscription(tx: Tx, subscriptionId: string) {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "Subscription" WHERE id = ${subscriptionId} FOR UPDATE`;
  if (rows.length === 0) throw new NotFoundError("Subscription", subscriptionId);
  return tx.subscription.findUniqueOrThrow({
    where: { id: subscriptionId },
    include: { product: true, serviceAccount: true },
  });
}

export async function moveSubscriptionStatus(tx: Tx, subscription: Subscription, to: SubscriptionStatus, data: Partial<Subscription> = {}) {
  const result = await tx.subscription.updateMany({ where: { id: subscription.id, status: subscription.status }, data: { ...data, status: to } });
  if (result.count !== 1) throw new ConflictError("The subscription changed while you were deciding; reload and try again.");
  return { ...subscription, ...data, status: to };
}
