import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { ForbiddenError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";

/**
 * Pending decisions for the actor: governance sees every product in review and
 * every requested subscription; a domain owner sees requests for their
 * domains' products. Oldest first, so nothing waits forever.
 */
export async function reviewQueue(db: Db, actor: Actor) {
  const governance = hasGlobal(actor, "product:review");
  const ownedDomainIds = actor.memberships.filter((m) => m.role === "OWNER").map((m) => m.domainId);
  if (!governance && ownedDomainIds.length === 0) throw new ForbiddenError("Only governance reviewers and domain owners have a review queue.");
  const [products, subscriptions, changes] = await Promise.all([
    governance
      ? db.dataProduct.findMany({
          where: { status: "IN_REVIEW" },
          orderBy: { submittedAt: "asc" },
          include: { domain: { select: { slug: true, name: true } }, schemaVersions: { where: { status: "PENDING" }, orderBy: { version: "desc" }, take: 1 } },
        })
      : Promise.resolve([]),
    db.subscription.findMany({
      where: { status: "REQUESTED", ...(governance ? {} : { product: { domainId: { in: ownedDomainIds } } }) },
      orderBy: { createdAt: "asc" },
      include: {
        product: { select: { id: true, name: true, topicName: true, classification: true, domainId: true } },
        consumingDomain: { select: { slug: true, name: true } },
        serviceAccount: { select: { name: true } },
      },
    }),
    // Changes to live products (e.g. more partitions) are governance's to decide.
    governance
      ? db.productChangeRequest.findMany({
          where: { status: "REQUESTED" },
          orderBy: { createdAt: "asc" },
          include: { product: { select: { id: true, name: true, topicName: true, partitions: true, cleanupPolicy: true, domain: { select: { slug: true, name: true } } } } },
        })
      : Promise.resolve([]),
  ]);
  const requesterIds = [
    ...new Set([...products.map((p) => p.submittedById), ...subscriptions.map((s) => s.requestedById), ...changes.map((c) => c.requestedById)].filter((x): x is string => !!x)),
  ];
  const requesters = await db.user.findMany({ where: { id: { in: requesterIds } }, select: { id: true, name: true, email: true } });
  const who = (id: string | null) => requesters.find((u) => u.id === id) ?? null;
  return {
    governance,
    products: products.map((p) => ({ ...p, submittedBy: who(p.submittedById), mine: p.submittedById === actor.id || p.createdById === actor.id })),
    subscriptions: subscriptions.map((s) => ({ ...s, requestedBy: who(s.requestedById), mine: s.requestedById === actor.id })),
    changes: changes.map((c) => ({ ...c, requestedBy: who(c.requestedById), mine: c.requestedById === actor.id })),
  };
}
