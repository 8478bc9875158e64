import { inTransaction, type ActingUser } from "../action.ts";
import { endSessions } from "../actor.ts";
import { lockDomain, requireAnotherOwner, requireMemberManager } from "../admin/domain-access.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { NotFoundError } from "../errors.ts";

/**
 * Removes a person from a domain. Their next request is refused at once
 * (roles are re-read per request). A membership that SSO granted comes back at
 * the person's next sign-in while the group mapping still says so — the page
 * says this; change the mapping or the provider's groups to keep them out.
 */
export async function removeDomainMember(db: Db, acting: ActingUser, domainId: string, userId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    requireMemberManager(actor, domainId);
    const domain = await lockDomain(tx, domainId);
    const membership = await tx.membership.findUnique({ where: { userId_domainId: { userId, domainId } }, include: { user: { select: { email: true } } } });
    if (!membership) throw new NotFoundError("Membership of user", userId);
    if (membership.role === "OWNER") await requireAnotherOwner(tx, domain, userId);
    await tx.membership.delete({ where: { userId_domainId: { userId, domainId } } });
    // A removed membership ends the person's sessions (issue 30, finding 13).
    await endSessions(tx, userId);
    await recordAudit(tx, actor, "member.removed", "Domain", domainId, { email: membership.user.email, userId, role: membership.role, source: membership.source });
    return { domainId, userId };
  });
}
