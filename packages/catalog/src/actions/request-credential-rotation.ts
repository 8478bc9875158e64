import { inTransaction, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import { canInDomain } from "../permissions.ts";
import { assertAccountUsable } from "../principals.ts";
import { TASK_KINDS } from "../tasks.ts";

/**
 * Queues a credential rotation for the worker; owners of the account's domain
 * only. At most one rotation per account is open at a time: the account row is
 * locked, so concurrent requests serialise, and a request while one is PENDING
 * or RUNNING returns that task instead of queueing another (twenty clicks are
 * one rotation, and step numbers cannot clash).
 */
export async function requestCredentialRotation(db: Db, acting: ActingUser, serviceAccountId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "ServiceAccount" WHERE id = ${serviceAccountId} FOR UPDATE`;
    if (rows.length === 0) throw new NotFoundError("Service account", serviceAccountId);
    const account = await tx.serviceAccount.findUniqueOrThrow({ where: { id: serviceAccountId } });
    if (!canInDomain(actor, "serviceAccount:create", account.domainId)) throw new ForbiddenError("Only owners of the account's domain can rotate its credentials.");
    await assertAccountUsable(tx, account);
    const open = await tx.provisioningTask.findFirst({
      where: { entityType: "ServiceAccount", entityId: account.id, kind: TASK_KINDS.ROTATE_CREDENTIALS, status: { in: ["PENDING", "RUNNING"] } },
      orderBy: { step: "desc" },
    });
    if (open) return open;
    const last = await tx.provisioningTask.aggregate({ where: { entityType: "ServiceAccount", entityId: account.id }, _max: { step: true } });
    const task = await tx.provisioningTask.create({
      data: {
        kind: TASK_KINDS.ROTATE_CREDENTIALS,
        payload: { serviceAccountId: account.id, requestedAt: new Date().toISOString() },
        entityType: "ServiceAccount",
        entityId: account.id,
        step: (last._max.step ?? 0) + 1,
      },
    });
    await recordAudit(tx, actor, "serviceAccount.rotation.requested", "ServiceAccount", account.id, { taskId: task.id });
    return task;
  });
}
