import type { ClaimAclDecision, ClaimBinding } from "../actions/decide-claim-acls.ts";
import type { Db } from "../db.ts";

/*
 * Grants the catalog does not know are never invisible (issue 31, point 2):
 * every ACL binding the worker's cluster scan found on a product's topic
 * (ClusterTopic.acls) whose principal is neither the domain's producer nor an
 * account with a granted subscription on this environment, and that a claim's
 * review did not keep on purpose (an EXCEPTION with its reason, listed by
 * grantExceptions instead). Shown in the product's drift view and in the
 * lineage's "needs attention" list until it is removed on the cluster or
 * becomes a subscription.
 */

/** An ACL on a product's topic, as the pages show it. */
interface ShownAcl {
  principal: string;
  operation: string;
  permission: string;
  host: string;
  patternType: string;
  resourceName: string;
}

export interface UnknownGrant extends ShownAcl {
  topic: string;
  /** Why it is flagged, in words for the page. */
  why: string;
}


const text = (v: unknown, fallback: string) => (typeof v === "string" ? v : fallback);
const sameBinding = (a: ClaimBinding, b: ClaimBinding) =>
  a.resourceType === b.resourceType && a.resourceName === b.resourceName && a.patternType === b.patternType && a.principal === b.principal && a.host === b.host && a.operation === b.operation && a.permission === b.permission;

/** Unknown grants per product id (products without any are absent). */
export async function unknownGrants(db: Db, productIds: string[]): Promise<Map<string, UnknownGrant[]>> {
  const result = new Map<string, UnknownGrant[]>();
  if (productIds.length === 0) return result;
  const products = await db.dataProduct.findMany({
    where: { id: { in: productIds } },
    select: { id: true, topicName: true, domainId: true, claim: { select: { foundAcls: true, removeAcls: true, aclsDecidedById: true, aclDecisions: true } } },
  });
  const [observed, producers, subscriptions] = await Promise.all([
    db.clusterTopic.findMany({ where: { name: { in: products.map((p) => p.topicName) } }, select: { name: true, acls: true } }),
    db.serviceAccount.findMany({ where: { domainId: { in: [...new Set(products.map((p) => p.domainId))] }, isProducer: true }, select: { name: true, domainId: true } }),
    // The primary cluster's grants (ClusterTopic is the primary cluster's scan); ended ones are named as such.
    db.subscription.findMany({
      where: { productId: { in: products.map((p) => p.id) }, environment: null, status: { in: ["APPROVED", "ACTIVE", "REVOKED"] } },
      select: { productId: true, status: true, serviceAccount: { select: { name: true } } },
    }),
  ]);
  for (const product of products) {
    const acls = observed.find((t) => t.name === product.topicName)?.acls;
    if (!Array.isArray(acls) || acls.length === 0) continue;
    const producer = producers.find((a) => a.domainId === product.domainId);
    const granted = new Set(subscriptions.filter((s) => s.productId === product.id && s.status !== "REVOKED").map((s) => `User:${s.serviceAccount.name}`));
    const ended = new Set(subscriptions.filter((s) => s.productId === product.id && s.status === "REVOKED").map((s) => `User:${s.serviceAccount.name}`));
    if (producer) granted.add(`User:${producer.name}`);
    const found = Array.isArray(product.claim?.foundAcls) ? (product.claim.foundAcls as ClaimBinding[]) : [];
    const removed = Array.isArray(product.claim?.removeAcls) ? (product.claim.removeAcls as ClaimBinding[]) : [];
    const decided = Boolean(product.claim?.aclsDecidedById);
    const decisions = Array.isArray(product.claim?.aclDecisions) ? (product.claim.aclDecisions as unknown as ClaimAclDecision[]) : [];
    const flagged: UnknownGrant[] = [];
    for (const raw of acls) {
      if (typeof raw !== "object" || raw === null || Array.isArray(raw)) continue;
      const b = raw as ClaimBinding;
      const principal = text(b.principal, "?");
      if (granted.has(principal)) continue;
      const fromClaim = found.some((f) => sameBinding(f, b));
      const toRemove = removed.some((f) => sameBinding(f, b));
      const decision = decisions.find((d) => sameBinding(d.binding, b));
      // Kept by the claim's review on purpose: a documented exception (grantExceptions), or — from before
      // decisions had kinds — a binding the review did not remove.
      if (fromClaim && decided && !toRemove && (decision === undefined ? decisions.length === 0 : decision.decision === "EXCEPTION")) continue;
      const why = ended.has(principal)
        ? "Its subscription has ended; the worker removes it on its next reconcile."
        : decision?.decision === "ADOPT"
          ? toRemove
            ? `Found when the topic was claimed; the review moved this access to a subscription of ${decision.serviceAccountName ?? "a service account"}, and the worker removes this ACL once the claim is approved.`
            : `Found when the topic was claimed; the review adopts it as a subscription of ${decision.serviceAccountName ?? "a service account"}, granted when the claim is approved.`
          : fromClaim
            ? toRemove
              ? "Found when the topic was claimed; the review chose to remove it and the worker has not yet."
              : "Found when the topic was claimed; the claim's review has not decided it yet."
            : "No subscription or producer grant in the catalog gives this principal access: an ACL made outside Kappa Mesh.";
      flagged.push({
        topic: product.topicName,
        principal,
        operation: text(b.operation, "?"),
        permission: text(b.permission, "ALLOW"),
        host: text(b.host, "*"),
        patternType: text(b.patternType, "LITERAL"),
        resourceName: text(b.resourceName, product.topicName),
        why,
      });
    }
    if (flagged.length > 0) result.set(product.id, flagged);
  }
  return result;
}

export interface GrantException extends ShownAcl {
  reason: string;
  /** Whether the worker's last scan still saw it on the cluster. */
  present: boolean;
}

/**
 * The ACLs a claim's review kept on purpose as documented exceptions, with
 * their reasons: listed on the product (drift view), not flagged as unknown.
 */
export async function grantExceptions(db: Db, productId: string): Promise<GrantException[]> {
  const product = await db.dataProduct.findUnique({ where: { id: productId }, select: { topicName: true, claim: { select: { aclDecisions: true } } } });
  const decisions = Array.isArray(product?.claim?.aclDecisions) ? (product.claim.aclDecisions as unknown as ClaimAclDecision[]) : [];
  const exceptions = decisions.filter((d) => d.decision === "EXCEPTION");
  if (!product || exceptions.length === 0) return [];
  const observed = await db.clusterTopic.findUnique({ where: { name: product.topicName }, select: { acls: true } });
  const acls = (Array.isArray(observed?.acls) ? observed.acls : []) as ClaimBinding[];
  return exceptions.map((d) => ({
    principal: text(d.binding.principal, "?"),
    operation: text(d.binding.operation, "?"),
    permission: text(d.binding.permission, "ALLOW"),
    host: text(d.binding.host, "*"),
    patternType: text(d.binding.patternType, "LITERAL"),
    resourceName: text(d.binding.resourceName, product.topicName),
    reason: d.reason ?? "",
    present: acls.some((a) => sameBinding(a, d.binding)),
  }));
}
