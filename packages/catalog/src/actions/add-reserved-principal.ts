import { Prisma } from "@prisma/client";
import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError } from "../errors.ts";
import { reservedMatch } from "../naming.ts";
import { hasGlobal } from "../permissions.ts";
import { text } from "../validation.ts";

export const addReservedPrincipalInput = z.object({
  // The rule as one pattern on the text as sent (spaces around it trimmed), so that the API document states it (issue 30, finding 18).
  name: z
    .string({ message: "The principal name must be text." })
    .max(200, "The principal name must be at most 200 characters.")
    .regex(/^ *(?:User:)?[^\s;,]+ *$/, "Enter a Kafka user name or prefix: no spaces, \";\" or \",\".")
    .trim()
    .transform((n) => (n.startsWith("User:") ? n.slice("User:".length) : n))
    .pipe(z.string().min(1, "Enter a Kafka user name or prefix.")),
  match: z.enum(["EXACT", "PREFIX"], { message: "Match is EXACT or PREFIX." }).default("EXACT"),
  reason: text("The reason", 500, { min: 3, minMessage: "Say why the name is reserved." }),
});

/**
 * A platform admin reserves a Kafka user name (or prefix) so no service
 * account may take it. Existing accounts under it are not renamed: the answer
 * lists them, the catalog refuses new grants and rotations for them, and the
 * worker stops altering their principals.
 */
export async function addReservedPrincipal(db: Db, acting: ActingUser, rawInput: unknown) {
  const input = parseInput(addReservedPrincipalInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "platform:admin")) throw new ForbiddenError("Only platform admins can reserve Kafka principals.");
    try {
      const reserved = await tx.reservedPrincipal.create({ data: { ...input, source: "admin", createdById: actor.id } });
      const accounts = await tx.serviceAccount.findMany({ select: { id: true, name: true } });
      const affected = accounts.filter((a) => reservedMatch(a.name, [reserved]) !== null);
      await recordAudit(tx, actor, "reservedPrincipal.added", "ReservedPrincipal", reserved.id, { name: reserved.name, match: reserved.match, reason: reserved.reason, affectedAccounts: affected.map((a) => a.name) });
      return { ...reserved, affectedAccounts: affected };
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
        throw new ConflictError(`"${input.name}" (${input.match}) is already reserved.`, "DUPLICATE_RESERVED_PRINCIPAL", { name: ["Already reserved."] });
      }
      throw error;
    }
  });
}
