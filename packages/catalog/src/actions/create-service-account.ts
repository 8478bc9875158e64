import { Prisma } from "@prisma/client";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError } from "../errors.ts";
import { canInDomain } from "../permissions.ts";
import { assertAccountNameAllowed } from "../principals.ts";
import { createServiceAccountInput } from "../validation.ts";

/**
 * Registers a consumer service account (a Kafka principal `User:<name>`) for a
 * domain. The name is `<domain-slug>-<name>` and may not be reserved (see
 * principals.ts); producer accounts are created by the platform only. Its
 * SCRAM credentials are issued by the worker when a grant first needs them.
 */
export async function createServiceAccount(db: Db, acting: ActingUser, rawInput: unknown) {
  const input = parseInput(createServiceAccountInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!canInDomain(actor, "serviceAccount:create", input.domainId)) {
      throw new ForbiddenError("Only owners of a domain can create its service accounts.");
    }
    const domain = await tx.domain.findUniqueOrThrow({ where: { id: input.domainId }, select: { name: true, archivedAt: true } });
    if (domain.archivedAt) throw new ConflictError(`The ${domain.name} domain is archived and takes no new service accounts.`, "DOMAIN_ARCHIVED");
    await assertAccountNameAllowed(tx, input.name, input.domainId);
    try {
      const account = await tx.serviceAccount.create({ data: { domainId: input.domainId, name: input.name, description: input.description } });
      await recordAudit(tx, actor, "serviceAccount.created", "ServiceAccount", account.id, { name: account.name, principal: `User:${account.name}` });
      return account;
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
        const message = `The name "${input.name}" is taken: Kafka principals are unique across the platform.`;
        throw new ConflictError(message, "DUPLICATE_ACCOUNT", { name: [message] });
      }
      throw error;
    }
  });
}
