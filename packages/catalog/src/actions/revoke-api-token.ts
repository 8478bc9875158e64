import { inTransaction, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { requireWriteScope } from "../tokens/scopes.ts";

/**
 * Revokes a token at once: the next request with it is a 401. Its user, the
 * owners of a service token's domain and platform admins may revoke it.
 */
export async function revokeApiToken(db: Db, acting: ActingUser, tokenId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "ApiToken" WHERE id = ${tokenId} FOR UPDATE`;
    const token = rows.length > 0 ? await tx.apiToken.findUnique({ where: { id: tokenId }, omit: { secretHash: true } }) : null;
    const allowed = token && (token.userId === actor.id || (token.domainId && canInDomain(actor, "product:update", token.domainId)) || hasGlobal(actor, "platform:admin"));
    // Someone else's token id tells nothing: the same 404 as an unknown id.
    if (!token || !allowed) throw new NotFoundError("API token", tokenId);
    // A token may always revoke itself; any other revocation is a write.
    if (actor.token?.id !== tokenId) requireWriteScope(actor, "revoke other tokens");
    if (token.revokedAt) throw new ConflictError("This token is already revoked.", "ALREADY_REVOKED");
    const revoked = await tx.apiToken.update({ where: { id: tokenId }, data: { revokedAt: new Date(), revokedById: actor.id }, omit: { secretHash: true } });
    await recordAudit(tx, actor, "token.revoked", "ApiToken", tokenId, { name: token.name });
    return revoked;
  });
}
