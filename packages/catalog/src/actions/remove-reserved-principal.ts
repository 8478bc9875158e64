import { inTransaction, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";

/**
 * Removes an admin-added reservation. The platform's own entries (ANONYMOUS,
 * the `kappa-` prefix) and those a worker recorded (its admin user, the
 * cluster's super users) cannot be removed here: they protect the platform.
 */
export async function removeReservedPrincipal(db: Db, acting: ActingUser, reservedPrincipalId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "platform:admin")) throw new ForbiddenError("Only platform admins can change reserved Kafka principals.");
    const row = await tx.reservedPrincipal.findUnique({ where: { id: reservedPrincipalId } });
    if (!row) throw new NotFoundError("Reserved principal", reservedPrincipalId);
    if (row.source !== "admin") throw new ConflictError(`"${row.name}" is reserved by the ${row.source} and cannot be removed here.`, "RESERVED_BY_PLATFORM");
    await tx.reservedPrincipal.delete({ where: { id: row.id } });
    await recordAudit(tx, actor, "reservedPrincipal.removed", "ReservedPrincipal", row.id, { name: row.name, match: row.match });
    return row;
  });
}
