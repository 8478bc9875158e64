import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { NotFoundError } from "../errors.ts";
import { canInDomain } from "../permissions.ts";
import { TASK_KINDS } from "../tasks.ts";

interface RemovedItem {
  kind: string;
  resource: string;
  acl?: string;
}

const asObject = (v: unknown): Record<string, unknown> => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * A deprecated product's way to its sunset, or — once retired — what the
 * retirement removed: the revoked subscriptions (catalog) and the grants and
 * topic the worker removed on the cluster (its RETIRE_PRODUCT audit).
 */
export async function productRetirement(db: Db, actor: Actor, productId: string) {
  const product = await db.dataProduct.findUnique({ where: { id: productId }, select: { id: true, status: true, domainId: true, sunsetAt: true, retiredAt: true, decisionReason: true, topicName: true } });
  if (!product || (product.status !== "DEPRECATED" && product.status !== "RETIRED")) throw new NotFoundError("Retirement of data product", productId);
  const activeSubscriptions = await db.subscription.count({ where: { productId, status: { in: ["APPROVED", "ACTIVE"] } } });
  // Issue 29: the DEKs retirement destroys (crypto-shredding), so the confirmation can say so.
  const encryptionKeys = await db.registryDek.count({ where: { productId } });
  const base = {
    status: product.status,
    topic: product.topicName,
    sunsetAt: product.sunsetAt,
    retiredAt: product.retiredAt,
    deprecationReason: product.decisionReason,
    activeSubscriptions,
    encryptionKeys,
    canRetireEarly: product.status === "DEPRECATED" && activeSubscriptions === 0 && canInDomain(actor, "product:retire", product.domainId),
  };
  if (product.status !== "RETIRED") return { ...base, retirement: null };
  const [event, shredded, task, removal] = await Promise.all([
    db.auditEvent.findFirst({ where: { entityType: "DataProduct", entityId: productId, action: "product.retired" }, orderBy: { at: "desc" } }),
    db.auditEvent.findFirst({ where: { entityType: "DataProduct", entityId: productId, action: "product.keys-destroyed" }, orderBy: { at: "desc" } }),
    db.provisioningTask.findFirst({ where: { entityType: "DataProduct", entityId: productId, kind: TASK_KINDS.RETIRE_PRODUCT }, orderBy: { createdAt: "desc" } }),
    db.auditEvent.findMany({ where: { entityType: "DataProduct", entityId: productId, action: "provisioning.retire_product" }, orderBy: { at: "asc" } }),
  ]);
  const data = asObject(event?.data);
  const removed: RemovedItem[] = removal.flatMap((e) => {
    const changes = asObject(e.data).changes;
    return Array.isArray(changes)
      ? changes.map((c) => {
          const o = asObject(c);
          return { kind: textOf(o.kind), resource: textOf(o.resource), ...(typeof o.acl === "string" ? { acl: o.acl } : {}) };
        })
      : [];
  });
  const revoked = Array.isArray(data.revokedSubscriptions) ? data.revokedSubscriptions.map((r) => textOf(asObject(r).principal)) : [];
  return {
    ...base,
    retirement: {
      trigger: data.trigger === "owner" ? ("owner" as const) : ("sunset" as const),
      reason: typeof data.reason === "string" ? data.reason : null,
      by: event?.actorEmail ?? null,
      revokedPrincipals: revoked,
      keysDestroyed: Array.isArray(asObject(shredded?.data).deks) ? (asObject(shredded?.data).deks as unknown[]).length : 0,
      task: task ? { status: task.status, lastError: task.lastError, completedAt: task.completedAt } : null,
      removed,
      topicDeleted: removed.some((r) => r.kind === "topic.deleted"),
    },
  };
}

/** A text field of a stored audit payload ("" when absent or not text). */
function textOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}
