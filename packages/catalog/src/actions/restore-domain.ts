import { inTransaction, type ActingUser } from "../action.ts";
import { lockDomain, requireDomainAdmin } from "../admin/domain-access.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError } from "../errors.ts";

/** Undoes an archive: the domain takes products, members and subscriptions again. */
export async function restoreDomain(db: Db, acting: ActingUser, domainId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    requireDomainAdmin(actor, "restore domains");
    const domain = await lockDomain(tx, domainId);
    if (!domain.archivedAt) throw new ConflictError(`${domain.name} is not archived.`, "DOMAIN_NOT_ARCHIVED");
    const restored = await tx.domain.update({ where: { id: domainId }, data: { archivedAt: null } });
    await recordAudit(tx, actor, "domain.restored", "Domain", domainId, { slug: domain.slug });
    return restored;
  });
}
