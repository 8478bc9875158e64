/*
 * Functions the portal calls (server side) for worker-owned state. They follow
 * the catalog's conventions: acting user first, permission checked inside the
 * same transaction as the change, an audit event in that transaction.
 */
import { ConflictError, ForbiddenError, NotFoundError, canInDomain, hasGlobal, loadActingActor, type ActingUser, type Db } from "@kappa/catalog";
import { decryptSecret } from "./secrets.ts";
import { ROTATE_CREDENTIALS } from "./tasks/handlers.ts";

const TX = { isolationLevel: "ReadCommitted" as const, timeout: 15_000 };

/**
 * Puts a FAILED provisioning task back in the queue (attempts reset). Allowed to
 * platform admins, governance reviewers and owners of the domain the task
 * provisions for (the product's domain; for a subscription also the consuming one).
 */
export async function retryTask(db: Db, acting: ActingUser, taskId: string) {
  return db.$transaction(async (tx) => {
    const actor = await loadActingActor(tx, acting);
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
  }, TX);
}

/**
 * Shows a service account's newly issued password once: only to an owner of
 * the account's domain, and the ciphertext is cleared in the same transaction,
 * so a second call (or a second browser tab) gets a 409, never the secret.
 */
export async function revealCredentialOnce(db: Db, secretsKey: Buffer, acting: ActingUser, serviceAccountId: string): Promise<{ username: string; password: string; mechanism: "SCRAM-SHA-512"; issuedAt: Date | null }> {
  return db.$transaction(async (tx) => {
    const actor = await loadActingActor(tx, acting);
    const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "ServiceAccount" WHERE id = ${serviceAccountId} FOR UPDATE`;
    if (rows.length === 0) throw new NotFoundError("Service account", serviceAccountId);
    const account = await tx.serviceAccount.findUniqueOrThrow({ where: { id: serviceAccountId }, omit: { secretCiphertext: false, secretHash: false } });
    if (!canInDomain(actor, "serviceAccount:create", account.domainId)) {
      throw new ForbiddenError("Only owners of the account's domain can see its credentials.");
    }
    if (!account.secretCiphertext) {
      throw new ConflictError(
        account.secretHash ? "The password was already shown once. Rotate the credentials to get a new one." : "No credentials have been issued for this account yet.",
        "SECRET_NOT_AVAILABLE",
      );
    }
    const password = decryptSecret(secretsKey, account.secretCiphertext, account.id);
    await tx.serviceAccount.update({ where: { id: account.id }, data: { secretCiphertext: null } });
    await tx.auditEvent.create({
      data: { actorId: actor.id, actorEmail: actor.email, action: "serviceAccount.credentials.revealed", entityType: "ServiceAccount", entityId: account.id, data: { principal: `User:${account.name}` } },
    });
    return { username: account.name, password, mechanism: "SCRAM-SHA-512" as const, issuedAt: account.secretIssuedAt };
  }, TX);
}

/** Queues a credential rotation for the worker; owners of the account's domain only. */
export async function requestCredentialRotation(db: Db, acting: ActingUser, serviceAccountId: string) {
  return db.$transaction(async (tx) => {
    const actor = await loadActingActor(tx, acting);
    const account = await tx.serviceAccount.findUnique({ where: { id: serviceAccountId } });
    if (!account) throw new NotFoundError("Service account", serviceAccountId);
    if (!canInDomain(actor, "serviceAccount:create", account.domainId)) throw new ForbiddenError("Only owners of the account's domain can rotate its credentials.");
    const last = await tx.provisioningTask.aggregate({ where: { entityType: "ServiceAccount", entityId: account.id }, _max: { step: true } });
    const task = await tx.provisioningTask.create({
      data: {
        kind: ROTATE_CREDENTIALS,
        payload: { serviceAccountId: account.id, requestedAt: new Date().toISOString() },
        entityType: "ServiceAccount",
        entityId: account.id,
        step: (last._max.step ?? 0) + 1,
      },
    });
    await tx.auditEvent.create({
      data: { actorId: actor.id, actorEmail: actor.email, action: "serviceAccount.rotation.requested", entityType: "ServiceAccount", entityId: account.id, data: { taskId: task.id } },
    });
    return task;
  }, TX);
}
