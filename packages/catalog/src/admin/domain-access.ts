import type { Domain } from "@prisma/client";
import type { Actor } from "../actor.ts";
import type { Tx } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError } from "../errors.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";

/** Locks a domain row: membership changes of one domain serialise, so "the last owner" stays true while we decide. */
export async function lockDomain(tx: Tx, domainId: string): Promise<Domain> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "Domain" WHERE id = ${domainId} FOR UPDATE`;
  if (rows.length === 0) throw new NotFoundError("Domain", domainId);
  return tx.domain.findUniqueOrThrow({ where: { id: domainId } });
}

export function requireDomainAdmin(actor: Actor, what: string): void {
  if (!hasGlobal(actor, "domain:manage")) throw new ForbiddenError(`Only platform admins can ${what}.`);
}

/** Platform admins manage every domain's members; owners manage their own domain's. */
export function requireMemberManager(actor: Actor, domainId: string): void {
  if (!hasGlobal(actor, "member:manage") && !canInDomain(actor, "member:manage", domainId)) {
    throw new ForbiddenError("Only platform admins and the domain's owners can manage its members.");
  }
}

export function requireNotArchived(domain: Domain): void {
  if (domain.archivedAt) throw new ConflictError(`The ${domain.name} domain is archived; restore it first.`, "DOMAIN_ARCHIVED");
}

/**
 * A domain keeps at least one owner while it is in use: someone must be able
 * to decide its subscriptions and change its products.
 */
export async function requireAnotherOwner(tx: Tx, domain: Domain, leavingUserId: string): Promise<void> {
  if (domain.archivedAt) return;
  const owners = await tx.membership.count({ where: { domainId: domain.id, role: "OWNER", userId: { not: leavingUserId } } });
  if (owners === 0) {
    throw new ConflictError(`${domain.name} would have no owner left. Make someone else an owner first, or archive the domain.`, "LAST_OWNER");
  }
}
