import { inTransaction, type ActingUser } from "../action.ts";
import { lockDomain, requireDomainAdmin } from "../admin/domain-access.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError } from "../errors.ts";

/** Products that still hold a topic or a review on the cluster's behalf. */
const OPEN_PRODUCT_STATUSES = ["DRAFT", "IN_REVIEW", "APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"] as const;

/**
 * Archives a domain: it takes no new products, members or subscriptions, and
 * leaves the pickers. Refused while it has products that are not retired or
 * rejected — their owners must retire them first, so nothing keeps running
 * with nobody able to look after it. Nothing is deleted; restore undoes it.
 */
export async function archiveDomain(db: Db, acting: ActingUser, domainId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    requireDomainAdmin(actor, "archive domains");
    const domain = await lockDomain(tx, domainId);
    if (domain.archivedAt) throw new ConflictError(`${domain.name} is archived already.`, "DOMAIN_ARCHIVED");
    const open = await tx.dataProduct.findMany({ where: { domainId, status: { in: [...OPEN_PRODUCT_STATUSES] } }, select: { name: true }, take: 5 });
    if (open.length > 0) {
      throw new ConflictError(
        `${domain.name} still has products that are not retired (${open.map((p) => p.name).join(", ")}${open.length === 5 ? ", …" : ""}). Retire or reject them first.`,
        "DOMAIN_IN_USE",
      );
    }
    const archived = await tx.domain.update({ where: { id: domainId }, data: { archivedAt: new Date() } });
    await recordAudit(tx, actor, "domain.archived", "Domain", domainId, { slug: domain.slug });
    return archived;
  });
}
