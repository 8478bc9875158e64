import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import { hasGlobal, canInDomain } from "../permissions.ts";

/** A subscription's replays, newest first, with what the worker did (for the page's progress). */
export async function listReplays(db: Db, actor: Actor, subscriptionId: string) {
  const sub = await db.subscription.findUnique({ where: { id: subscriptionId }, select: { consumingDomainId: true, product: { select: { domainId: true } } } });
  if (!sub) throw new NotFoundError("Subscription", subscriptionId);
  const allowed = actor.memberships.some((m) => m.domainId === sub.consumingDomainId) || canInDomain(actor, "product:update", sub.product.domainId) || hasGlobal(actor, "product:review");
  if (!allowed) throw new ForbiddenError("Only the subscribing domain, the product's owners and governance see its replays.");
  const replays = await db.replayRequest.findMany({ where: { subscriptionId }, orderBy: { createdAt: "desc" }, take: 20 });
  const requesters = await db.user.findMany({ where: { id: { in: [...new Set(replays.map((r) => r.requestedById))] } }, select: { id: true, email: true } });
  return replays.map((r) => ({ ...r, requestedBy: requesters.find((u) => u.id === r.requestedById)?.email ?? null }));
}
