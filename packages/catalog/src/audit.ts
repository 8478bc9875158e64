import type { Prisma } from "@prisma/client";
import type { Actor } from "./actor.ts";
import type { Tx } from "./db.ts";

export type EntityType = "DataProduct" | "Subscription" | "ServiceAccount" | "Domain" | "User" | "SchemaVersion" | "ApiToken" | "Policy" | "ReservedPrincipal";

/** Appends one audit event in the caller's transaction. */
export async function recordAudit(
  tx: Tx,
  actor: { id: string | null; email: Actor["email"]; token?: Actor["token"] },
  action: string,
  entityType: EntityType,
  entityId: string,
  data: Prisma.InputJsonObject = {},
): Promise<void> {
  await tx.auditEvent.create({
    // Changes made with an API token name it, so every use is traceable to the token.
    data: { actorId: actor.id, actorEmail: actor.email, action, entityType, entityId, data: actor.token ? { ...data, tokenId: actor.token.id } : data },
  });
}
