import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { endSessions } from "../actor.ts";
import { setGlobalRoleInput } from "../admin-validation.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";

/**
 * Sets a user's global role (USER, GOVERNANCE, ADMIN). Two guards: nobody
 * changes their own role (an admin cannot make themselves a reviewer and then
 * approve), and the platform keeps at least one admin. The role becomes
 * MANUAL: SSO sign-in no longer changes it.
 */
export async function setGlobalRole(db: Db, acting: ActingUser, userId: string, rawInput: unknown) {
  const { globalRole } = parseInput(setGlobalRoleInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "user:manage")) throw new ForbiddenError("Only platform admins can change global roles.");
    if (userId === actor.id) throw new ForbiddenError("You cannot change your own global role; ask another admin.");
    // Serialise role changes, so two admins demoting each other cannot leave none.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('kappa:global-roles'))`;
    const user = await tx.user.findUnique({ where: { id: userId } });
    if (!user) throw new NotFoundError("User", userId);
    if (user.globalRole === "ADMIN" && globalRole !== "ADMIN") {
      const admins = await tx.user.count({ where: { globalRole: "ADMIN", id: { not: userId } } });
      if (admins === 0) throw new ConflictError("The platform needs at least one admin.", "LAST_ADMIN");
    }
    const updated = await tx.user.update({ where: { id: userId }, data: { globalRole, globalRoleSource: "MANUAL" } });
    // A changed global role ends the person's sessions (issue 30, finding 13).
    if (user.globalRole !== globalRole) await endSessions(tx, userId);
    await recordAudit(tx, actor, "user.globalRoleChanged", "User", userId, { email: user.email, from: user.globalRole, to: globalRole });
    return { id: updated.id, email: updated.email, name: updated.name, globalRole: updated.globalRole, globalRoleSource: updated.globalRoleSource };
  });
}
