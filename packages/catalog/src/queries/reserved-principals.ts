import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { ForbiddenError } from "../errors.ts";
import { reservedMatch } from "../naming.ts";
import { hasGlobal } from "../permissions.ts";

/** Every reserved principal with the accounts that fall under it (for the admin page). */
export async function listReservedPrincipals(db: Db, actor: Actor) {
  if (!hasGlobal(actor, "platform:admin")) throw new ForbiddenError("Only platform admins can see reserved Kafka principals.");
  const [rows, accounts] = await Promise.all([
    db.reservedPrincipal.findMany({ orderBy: [{ source: "asc" }, { name: "asc" }] }),
    db.serviceAccount.findMany({ select: { id: true, name: true, domainId: true, previousName: true } }),
  ]);
  return {
    items: rows.map((r) => ({ ...r, removable: r.source === "admin", affectedAccounts: accounts.filter((a) => reservedMatch(a.name, [r]) !== null) })),
    /** Accounts the naming migration renamed: their old principals still need an operator's clean-up on a live cluster. */
    renamedAccounts: accounts.filter((a) => a.previousName !== null),
  };
}
