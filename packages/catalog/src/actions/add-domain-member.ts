import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { lockDomain, requireMemberManager, requireNotArchived } from "../admin/domain-access.ts";
import { addMemberInput } from "../admin-validation.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError } from "../errors.ts";

/**
 * Adds a person to a domain with a role. An e-mail without an account gets
 * one without a password: the person signs in through single sign-on with
 * that e-mail (or an admin's local-account process), and the membership is
 * already there. A membership added here is MANUAL: SSO sign-in never removes it.
 */
export async function addDomainMember(db: Db, acting: ActingUser, domainId: string, rawInput: unknown) {
  const input = parseInput(addMemberInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    requireMemberManager(actor, domainId);
    const domain = await lockDomain(tx, domainId);
    requireNotArchived(domain);
    let user = await tx.user.findUnique({ where: { email: input.email } });
    const created = user === null;
    user ??= await tx.user.create({ data: { email: input.email, name: input.name || input.email.split("@")[0] || input.email } });
    const existing = await tx.membership.findUnique({ where: { userId_domainId: { userId: user.id, domainId } } });
    if (existing) {
      throw new ConflictError(`${input.email} is already ${existing.role === "OWNER" ? "an owner" : "a member"} of ${domain.name}; change the role instead.`, "ALREADY_MEMBER", {
        email: ["Already in this domain."],
      });
    }
    const membership = await tx.membership.create({ data: { userId: user.id, domainId, role: input.role, source: "MANUAL" } });
    if (created) await recordAudit(tx, actor, "user.created", "User", user.id, { email: user.email, via: "membership" });
    await recordAudit(tx, actor, "member.added", "Domain", domainId, { email: user.email, userId: user.id, role: input.role });
    return { ...membership, user: { id: user.id, email: user.email, name: user.name } };
  });
}
