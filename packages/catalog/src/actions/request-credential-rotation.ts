import { inTransaction, type ActingUser } from "../action.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import { canInDomain } from "../permissions.ts";
import { TASK_KINDS } from "../tasks.ts";

/** Queues a credential rotation for the worker; owners of the account's domain only. */
export async function requestCredentialRotation(db: Db, acting: ActingUser, serviceAccountId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    const account = await tx.serviceAccount.findUnique({ where: { id: serviceAccountId } });
    if (!account) throw new NotFoundError("Service account", serviceAccountId);
    if (!canInDomain(actor, "serviceAccount:create", account.domainId)) throw new ForbiddenError("Only owners of the account's domain can rotate its credentials.");
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
    await tx.auditEvent.create({
      data: { actorId: actor.id, actorEmail: actor.email, action: "serviceAccount.rotation.requested", entityType: "ServiceAccount", entityId: account.id, data: { taskId: task.id } },
    });
    return task;
  });
}
