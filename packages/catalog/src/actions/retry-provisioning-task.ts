import { inTransaction, type ActingUser } from "../action.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError } from "../errors.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";

/**
 * Puts a FAILED provisioning task back in the queue (attempts reset). Allowed to
 * platform admins, governance reviewers and owners of the domain the task
 * provisions for (the product's domain; for a subscription also the consuming one).
 */
export async function retryTask(db: Db, acting: ActingUser, taskId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "ProvisioningTask" WHERE id = ${taskId} FOR UPDATE`;
    if (rows.length === 0) throw new NotFoundError("Provisioning task", taskId);
    const task = await tx.provisioningTask.findUniqueOrThrow({ where: { id: taskId } });
    const domains: string[] = [];
    if (task.entityType === "DataProduct") {
      const p = await tx.dataProduct.findUnique({ where: { id: task.entityId }, select: { domainId: true } });
      if (p) domains.push(p.domainId);
    } else if (task.entityType === "Subscription") {
      const s = await tx.subscription.findUnique({ where: { id: task.entityId }, select: { consumingDomainId: true, product: { select: { domainId: true } } } });
      if (s) domains.push(s.product.domainId, s.consumingDomainId);
    } else if (task.entityType === "ServiceAccount") {
      const a = await tx.serviceAccount.findUnique({ where: { id: task.entityId }, select: { domainId: true } });
      if (a) domains.push(a.domainId);
    }
    const allowed =
      hasGlobal(actor, "platform:admin") || hasGlobal(actor, "product:review") || domains.some((d) => canInDomain(actor, "product:update", d) || canInDomain(actor, "serviceAccount:create", d));
    if (!allowed) throw new ForbiddenError("Only owners of the domain, governance reviewers or platform admins can retry provisioning.");
    if (task.status !== "FAILED") throw new ConflictError(`Only a failed task can be retried; this one is ${task.status}.`, "INVALID_TRANSITION");
    const updated = await tx.provisioningTask.update({
      where: { id: taskId },
      data: { status: "PENDING", attempts: 0, runAfter: new Date(), leaseUntil: null, leasedBy: null },
    });
    await tx.auditEvent.create({
      data: { actorId: actor.id, actorEmail: actor.email, action: "provisioning.retried", entityType: task.entityType, entityId: task.entityId, data: { taskId, kind: task.kind, lastError: task.lastError } },
    });
    return updated;
  });
}
