import { inTransaction, type ActingUser } from "../action.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError } from "../errors.ts";
import { canInDomain } from "../permissions.ts";
import { decryptSecret } from "../secrets.ts";

/**
 * Shows a service account's newly issued password once: only to an owner of
 * the account's domain, and the ciphertext is cleared in the same transaction,
 * so a second call (or a second browser tab) gets a 409, never the secret.
 */
export async function revealCredentialOnce(db: Db, secretsKey: Buffer, acting: ActingUser, serviceAccountId: string): Promise<{ username: string; password: string; mechanism: "SCRAM-SHA-512"; issuedAt: Date | null }> {
  return inTransaction(db, acting, async (tx, actor) => {
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
  });
}
