import { Prisma } from "@prisma/client";
import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { ForbiddenError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";
import { productFacts } from "../policies/enforce.ts";
import { evaluatePolicy } from "../policies/evaluate.ts";
import { activePolicy } from "../policies/store.ts";

/**
 * Pending decisions for the actor: governance sees every product in review
 * (new products, new major versions, claims of existing topics), every
 * requested subscription, every change to a live product (partitions,
 * compatibility mode), every promotion to another environment and every
 * subscription whose need for personal data waits for its grant; a domain
 * owner sees requests for their domains' products. Both see redrives of dead
 * letters waiting for a second person (CONFIDENTIAL and above; their own
 * marked `mine`: four eyes). Schema versions come from
 * pendingSchemaVersions. Oldest first, so nothing waits forever.
 */
export async function reviewQueue(db: Db, actor: Actor) {
  const governance = hasGlobal(actor, "product:review");
  const ownedDomainIds = actor.memberships.filter((m) => m.role === "OWNER").map((m) => m.domainId);
  if (!governance && ownedDomainIds.length === 0) throw new ForbiddenError("Only governance reviewers and domain owners have a review queue.");
  const [products, subscriptions, changes, piiGrants, promotions] = await Promise.all([
    governance
      ? db.dataProduct.findMany({
          where: { status: "IN_REVIEW" },
          orderBy: { submittedAt: "asc" },
          include: { domain: { select: { slug: true, name: true } }, schemaVersions: { where: { status: "PENDING" }, orderBy: { version: "desc" }, take: 1 }, claim: { select: { topic: true } } },
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
    // Owners approved the access; the need for personal data is governance's to grant besides.
    governance
      ? db.subscription.findMany({
          where: { status: { in: ["APPROVED", "ACTIVE"] }, piiRequested: true, piiApprovedAt: null },
          orderBy: { decidedAt: "asc" },
          include: {
            product: { select: { id: true, name: true, topicName: true, classification: true } },
            consumingDomain: { select: { slug: true, name: true } },
            serviceAccount: { select: { name: true } },
          },
        })
      : Promise.resolve([]),
    // Promotions to another environment, first ones and later definitions of a live deployment.
    governance
      ? db.productDeployment.findMany({
          where: { OR: [{ status: "IN_REVIEW" }, { status: "ACTIVE", pendingUpdate: { not: Prisma.AnyNull } }] },
          orderBy: { updatedAt: "asc" },
        })
      : Promise.resolve([]),
  ]);
  // Quota classes larger than the default, waiting for governance (quotas/choose-quota-class.ts).
  const [quotaProducts, quotaSubscriptions] = governance
    ? await Promise.all([
        db.dataProduct.findMany({
          where: { quotaClassRequested: { not: null }, status: { notIn: ["RETIRED", "REJECTED"] } },
          orderBy: { updatedAt: "asc" },
          select: { id: true, name: true, topicName: true, quotaClass: true, quotaClassRequested: true, quotaClassReason: true, quotaClassRequestedById: true, updatedAt: true, domain: { select: { slug: true, name: true } } },
        }),
        db.subscription.findMany({
          where: { quotaClassRequested: { not: null }, status: { in: ["REQUESTED", "APPROVED", "ACTIVE"] } },
          orderBy: { updatedAt: "asc" },
          select: {
            id: true,
            quotaClass: true,
            quotaClassRequested: true,
            quotaClassReason: true,
            quotaClassRequestedById: true,
            updatedAt: true,
            status: true,
            product: { select: { id: true, name: true, topicName: true } },
            consumingDomain: { select: { slug: true, name: true } },
            serviceAccount: { select: { name: true } },
          },
        }),
      ])
    : [[], []];
  // Redrives of dead letters waiting for a second person (issue 29): governance's, and the owners' of the product's domain.
  const waitingRedrives = await db.redriveRequest.findMany({ where: { status: "REQUESTED" }, orderBy: { createdAt: "asc" }, take: 200 });
  const redriveProducts =
    waitingRedrives.length === 0
      ? []
      : await db.dataProduct.findMany({
          where: { id: { in: [...new Set(waitingRedrives.map((r) => r.productId))] }, ...(governance ? {} : { domainId: { in: ownedDomainIds } }) },
          select: { id: true, name: true, topicName: true, classification: true, domain: { select: { slug: true, name: true } } },
        });
  const promotedProducts = await db.dataProduct.findMany({
    where: { id: { in: [...new Set(promotions.map((d) => d.productId))] } },
    select: { id: true, name: true, topicName: true, domain: { select: { slug: true, name: true } } },
  });
  const requesterIds = [
    ...new Set(
      [
        ...products.map((p) => p.submittedById),
        ...subscriptions.map((s) => s.requestedById),
        ...changes.map((c) => c.requestedById),
        ...piiGrants.flatMap((s) => [s.requestedById, s.decidedById]),
        ...promotions.map((d) => promotionRequester(d)),
        ...quotaProducts.map((p) => p.quotaClassRequestedById),
        ...quotaSubscriptions.map((s) => s.quotaClassRequestedById),
        ...waitingRedrives.map((r) => r.requestedById),
      ].filter((x): x is string => !!x),
    ),
  ];
  const requesters = await db.user.findMany({ where: { id: { in: requesterIds } }, select: { id: true, name: true, email: true } });
  const who = (id: string | null) => requesters.find((u) => u.id === id) ?? null;
  // Beside each change: the policy in force, evaluated now, as approving would evaluate it.
  const policy = await activePolicy(db);
  const productPolicy = (p: (typeof products)[number]) => ({
    version: policy.version,
    results: evaluatePolicy(policy.document, "product.register", { product: productFacts(p, p.schemaVersions[0] ?? null) }).results,
  });
  const subscriptionPolicy = (s: (typeof subscriptions)[number]) => ({
    version: policy.version,
    results: evaluatePolicy(policy.document, "subscription.approve", {
      subscription: { purpose: s.purpose, accountName: s.serviceAccount.name, openSubscriptionsOfAccount: 0, productClassification: s.product.classification },
      decider: { isGovernance: governance },
    }).results,
  });
  return {
    governance,
    products: products.map((p) => ({ ...p, submittedBy: who(p.submittedById), mine: p.submittedById === actor.id || p.createdById === actor.id, policy: productPolicy(p) })),
    subscriptions: subscriptions.map((s) => ({ ...s, requestedBy: who(s.requestedById), mine: s.requestedById === actor.id, policy: subscriptionPolicy(s) })),
    changes: changes.map((c) => ({ ...c, requestedBy: who(c.requestedById), mine: c.requestedById === actor.id })),
    piiGrants: piiGrants.map((s) => ({
      id: s.id,
      product: s.product,
      consumingDomain: s.consumingDomain,
      serviceAccount: s.serviceAccount,
      purpose: s.purpose,
      piiJustification: s.piiJustification,
      status: s.status,
      decidedAt: s.decidedAt,
      requestedBy: who(s.requestedById),
      approvedBy: who(s.decidedById),
      mine: s.requestedById === actor.id,
    })),
    quotaClasses: [
      ...quotaProducts.map((p) => ({
        entityType: "DataProduct" as const,
        id: p.id,
        title: p.name,
        detail: `${p.topicName} (producer account of ${p.domain.name})`,
        link: `/products/${p.id}`,
        inForce: p.quotaClass,
        requested: p.quotaClassRequested!,
        reason: p.quotaClassReason,
        requestedAt: p.updatedAt,
        requestedBy: who(p.quotaClassRequestedById),
        mine: p.quotaClassRequestedById === actor.id,
      })),
      ...quotaSubscriptions.map((s) => ({
        entityType: "Subscription" as const,
        id: s.id,
        title: `${s.serviceAccount.name} → ${s.product.name}`,
        detail: `${s.consumingDomain.name} reads ${s.product.topicName} (subscription ${s.status})`,
        link: `/subscriptions/${s.id}`,
        inForce: s.quotaClass,
        requested: s.quotaClassRequested!,
        reason: s.quotaClassReason,
        requestedAt: s.updatedAt,
        requestedBy: who(s.quotaClassRequestedById),
        mine: s.quotaClassRequestedById === actor.id,
      })),
    ],
    redrives: waitingRedrives.flatMap((r) => {
      const product = redriveProducts.find((p) => p.id === r.productId);
      if (!product) return [];
      return [{ id: r.id, product, dlqTopic: r.dlqTopic, selection: r.selection, previewed: r.previewed, reason: r.reason, createdAt: r.createdAt, requestedBy: who(r.requestedById), mine: r.requestedById === actor.id }];
    }),
    promotions: promotions.flatMap((d) => {
      const product = promotedProducts.find((p) => p.id === d.productId);
      if (!product) return [];
      const requestedById = promotionRequester(d);
      return [{
        id: d.id,
        product,
        environment: d.environment,
        sourceEnvironment: d.sourceEnvironment,
        update: d.status === "ACTIVE",
        requestedAt: d.status === "ACTIVE" ? (pendingOf(d)?.requestedAt ?? d.updatedAt.toISOString()) : d.createdAt.toISOString(),
        requestedBy: who(requestedById),
        mine: requestedById === actor.id,
      }];
    }),
  };
}

function pendingOf(d: { pendingUpdate: Prisma.JsonValue }): { requestedById?: string; requestedAt?: string } | null {
  return typeof d.pendingUpdate === "object" && d.pendingUpdate !== null && !Array.isArray(d.pendingUpdate) ? d.pendingUpdate : null;
}

/** Who asked for this promotion: the deployment's requester, or the one of its pending update. */
function promotionRequester(d: { status: string; requestedById: string; pendingUpdate: Prisma.JsonValue }): string {
  return (d.status === "ACTIVE" ? pendingOf(d)?.requestedById : undefined) ?? d.requestedById;
}
