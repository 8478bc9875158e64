import { inTransaction, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";

/** Removes a group mapping; what it granted is taken away at each user's next SSO sign-in. */
export async function deleteSsoGroupMapping(db: Db, acting: ActingUser, mappingId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "user:manage")) throw new ForbiddenError("Only platform admins can change the single-sign-on mapping.");
    const mapping = await tx.ssoGroupMapping.findUnique({ where: { id: mappingId }, include: { domain: { select: { slug: true } } } });
    if (!mapping) throw new NotFoundError("Group mapping", mappingId);
    await tx.ssoGroupMapping.delete({ where: { id: mappingId } });
    await recordAudit(tx, actor, "sso.mappingDeleted", "SsoGroupMapping", mappingId, {
      group: mapping.group,
      ...(mapping.domain ? { domain: mapping.domain.slug, role: mapping.role ?? "" } : { globalRole: mapping.globalRole ?? "" }),
    });
    return { id: mappingId };
  });
}
