import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";

/** Everything about the actor's domains: products, accounts, subscriptions both ways. */
export async function myDomains(db: Db, actor: Actor) {
  const ids = actor.memberships.map((m) => m.domainId);
  const domains = await db.domain.findMany({
    where: { id: { in: ids } },
    orderBy: { name: "asc" },
    include: {
      products: { orderBy: { updatedAt: "desc" }, include: { _count: { select: { subscriptions: true } } } },
      serviceAccounts: { orderBy: { name: "asc" } },
      subscriptions: {
        orderBy: { createdAt: "desc" },
        include: { product: { select: { id: true, name: true, topicName: true, status: true, sunsetAt: true } }, serviceAccount: { select: { name: true } } },
      },
      memberships: { include: { user: { select: { name: true, email: true } } } },
    },
  });
  const incoming = await db.subscription.findMany({
    where: { product: { domainId: { in: ids } } },
    orderBy: { createdAt: "desc" },
    include: {
      product: { select: { id: true, name: true, topicName: true, domainId: true } },
      consumingDomain: { select: { slug: true, name: true } },
      serviceAccount: { select: { name: true } },
    },
  });
  return domains.map((d) => ({
    ...d,
    role: actor.memberships.find((m) => m.domainId === d.id)?.role ?? "MEMBER",
    incomingSubscriptions: incoming.filter((s) => s.product.domainId === d.id),
  }));
}

/** Service accounts the actor may pick when requesting access (not producer accounts). */
export async function subscribableAccounts(db: Db, actor: Actor) {
  // Not the accounts derived products' Flink jobs run as (the worker's; requestSubscription refuses them too).
  const jobAccounts = await db.derivedProduct.findMany({ where: { serviceAccountId: { not: null } }, select: { serviceAccountId: true } });
  return db.serviceAccount.findMany({
    where: { domainId: { in: actor.memberships.map((m) => m.domainId) }, isProducer: false, id: { notIn: jobAccounts.flatMap((j) => (j.serviceAccountId ? [j.serviceAccountId] : [])) } },
    // Open subscriptions per account: the form shows the per-account policy limit as you pick.
    include: { domain: { select: { slug: true, name: true } }, _count: { select: { subscriptions: { where: { status: { in: ["REQUESTED", "APPROVED", "ACTIVE"] } } } } } },
    orderBy: { name: "asc" },
  });
}
