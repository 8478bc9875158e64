import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { lockDomain, requireDomainAdmin } from "../admin/domain-access.ts";
import { renameDomainInput } from "../admin-validation.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";

/**
 * Renames a domain (display name and description). The slug stays: it is part
 * of every topic name and principal the domain has on the cluster.
 */
export async function renameDomain(db: Db, acting: ActingUser, domainId: string, rawInput: unknown) {
  const input = parseInput(renameDomainInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    requireDomainAdmin(actor, "rename domains");
    const before = await lockDomain(tx, domainId);
    const domain = await tx.domain.update({
      where: { id: domainId },
      data: { name: input.name, ...(input.description !== undefined ? { description: input.description } : {}) },
    });
    const data: Record<string, string> = { slug: domain.slug, from: before.name, to: domain.name };
    if (input.description !== undefined && input.description !== before.description) data.description = domain.description;
    await recordAudit(tx, actor, "domain.renamed", "Domain", domainId, data);
    return domain;
  });
}
