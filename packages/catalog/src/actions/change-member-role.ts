import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { endSessions } from "../actor.ts";
import { lockDomain, requireAnotherOwner, requireMemberManager } from "../admin/domain-access.ts";
import { changeMemberRoleInput } from "../admin-validation.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { NotFoundError } from "../errors.ts";

/**
 * Changes a member's role in a domain. The change makes the membership MANUAL:
 * someone decided it here, so the next SSO sign-in leaves it as it is.
 */
export async function changeMemberRole(db: Db, acting: ActingUser, domainId: string, userId: string, rawInput: unknown) {
  const { role } = parseInput(changeMemberRoleInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    requireMemberManager(actor, domainId);
    const domain = await lockDomain(tx, domainId);
    const membership = await tx.membership.findUnique({ where: { userId_domainId: { userId, domainId } }, include: { user: { select: { email: true } } } });
    if (!membership) throw new NotFoundError("Membership of user", userId);
    if (membership.role === "OWNER" && role !== "OWNER") await requireAnotherOwner(tx, domain, userId);
    const updated = await tx.membership.update({ where: { userId_domainId: { userId, domainId } }, data: { role, source: "MANUAL" } });
    // A changed role ends the person's sessions (issue 30, finding 13): they sign in again under the new one.
    if (membership.role !== role) await endSessions(tx, userId);
    await recordAudit(tx, actor, "member.roleChanged", "Domain", domainId, { email: membership.user.email, userId, from: membership.role, to: role });
    return updated;
  });
}
