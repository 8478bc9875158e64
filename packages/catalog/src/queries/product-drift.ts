import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { grantExceptions, unknownGrants } from "./unknown-grants.ts";

/**
 * The drift view of one product: what the worker's full reconciles found on
 * the cluster different from the catalog (a config changed by hand, a deleted
 * ACL, more partitions than the catalog says) and what it did about it, from
 * its `drift.repaired` audit events — the topic's own and the ACLs of the
 * product's producer and subscribers on this topic — plus when it last checked,
 * and every ACL on the topic that no catalog grant explains (unknownGrants).
 */
export async function productDrift(db: Db, actor: Actor, productId: string, limit = 50) {
  const product = await db.dataProduct.findUnique({ where: { id: productId }, select: { id: true, domainId: true, topicName: true } });
  if (!product) throw new NotFoundError("Data product", productId);
  if (!canInDomain(actor, "product:update", product.domainId) && !hasGlobal(actor, "product:review") && !hasGlobal(actor, "platform:admin")) {
    throw new ForbiddenError("Only the product's owners, governance and admins see its drift.");
  }
  const accounts = await db.subscription.findMany({ where: { productId }, select: { serviceAccountId: true } });
  const producer = await db.serviceAccount.findFirst({ where: { domainId: product.domainId, isProducer: true }, select: { id: true } });
  const accountIds = [...new Set([...accounts.map((a) => a.serviceAccountId), ...(producer ? [producer.id] : [])])];
  const events = await db.auditEvent.findMany({
    where: { action: "drift.repaired", OR: [{ entityType: "DataProduct", entityId: productId }, { entityType: "ServiceAccount", entityId: { in: accountIds } }] },
    orderBy: { id: "desc" },
    take: limit * 4,
  });
  const aboutThisTopic = events.filter((e) => {
    if (e.entityType === "DataProduct") return true;
    const data = e.data as { binding?: { resourceType?: string; resourceName?: string } } | null;
    return data?.binding?.resourceType === "TOPIC" ? data.binding.resourceName === product.topicName : data?.binding?.resourceType !== undefined && data.binding.resourceType !== "TOPIC" && e.entityType === "ServiceAccount";
  });
  const lastRun = await db.reconcileRun.findFirst({ where: { finishedAt: { not: null } }, orderBy: { startedAt: "desc" }, select: { finishedAt: true, error: true } });
  return {
    topic: product.topicName,
    lastCheckedAt: lastRun?.finishedAt ?? null,
    lastCheckError: lastRun?.error ?? null,
    events: aboutThisTopic.slice(0, limit).map((e) => ({ id: e.id, at: e.at, entityType: e.entityType, entityId: e.entityId, data: e.data })),
    /** ACLs on the topic no catalog grant explains (the worker's last cluster scan). */
    unknownGrants: (await unknownGrants(db, [productId])).get(productId) ?? [],
    /** ACLs a claim's review kept as documented exceptions, with their reasons. */
    grantExceptions: await grantExceptions(db, productId),
  };
}
