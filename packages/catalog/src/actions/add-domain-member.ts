import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { lockDomain, requireMemberManager, requireNotArchived } from "../admin/domain-access.ts";
import { addMemberInput } from "../admin-validation.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, ValidationError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";

/**
 * Adds a person to a domain with a role (platform admins, and the domain's
 * owners for their own domain). A membership added here is MANUAL: SSO
 * sign-in never removes it.
 *
 * Only a platform admin (`user:manage`) may add an e-mail that has no account
 * yet, which creates one without a password (the person signs in through
 * single sign-on with that e-mail and the membership is already there). An
 * owner adds people who already have an account (issue 30, finding 15):
 * creating accounts is identity administration across the platform, and the
 * account an owner made — display name of the owner's choosing — would be the
 * one an SSO sign-in with that e-mail adopts, so an owner could pre-register
 * anyone's address (a colleague's, an admin's) under a misleading name.
 */
export async function addDomainMember(db: Db, acting: ActingUser, domainId: string, rawInput: unknown) {
  const input = parseInput(addMemberInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    requireMemberManager(actor, domainId);
    const domain = await lockDomain(tx, domainId);
    requireNotArchived(domain);
    let user = await tx.user.findUnique({ where: { email: input.email } });
    const created = user === null;
    if (created && !hasGlobal(actor, "user:manage")) {
      const message = `No one has an account with ${input.email} yet: they sign in once (single sign-on), or a platform admin adds them.`;
      throw new ValidationError(message, { email: [message] });
    }
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
