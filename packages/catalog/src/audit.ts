import { Prisma } from "@prisma/client";
import type { Actor } from "./actor.ts";
import type { Tx } from "./db.ts";
import { agentAuditData, type RequestContext } from "./request-context.ts";

export type EntityType =
  | "DataProduct"
  | "Subscription"
  | "ServiceAccount"
  | "Domain"
  | "User"
  | "SchemaVersion"
  | "ApiToken"
  | "Policy"
  | "SsoGroupMapping"
  | "ProductChangeRequest"
  | "ReservedPrincipal"
  | "ClusterTopic"
  | "Cluster"
  | "ProductDeployment"
  | "Alert";

/** Appends one audit event in the caller's transaction, with the request's client address and user agent when the actor carries them. */
export async function recordAudit(
  tx: Tx,
  actor: { id: string | null; email: Actor["email"]; token?: Actor["token"]; request?: RequestContext },
  action: string,
  entityType: EntityType,
  entityId: string,
  data: Prisma.InputJsonObject = {},
): Promise<void> {
  await tx.auditEvent.create({
    data: {
      actorId: actor.id,
      actorEmail: actor.email,
      action,
      entityType,
      entityId,
      // Changes made with an API token name it, so every use is traceable to the token; an agent's (MCP) name the client and tool too.
      // The portal request's id (x-request-id) when there is one, so an event leads back to the portal's log line.
      data: { ...data, ...(actor.token ? { tokenId: actor.token.id } : {}), ...agentAuditData(actor.request), ...(actor.request?.requestId ? { requestId: actor.request.requestId } : {}) },
      clientAddress: actor.request?.clientAddress ?? null,
      userAgent: actor.request?.userAgent ?? null,
    },
  });
}

/**
 * The same audit row as recordAudit, as an INSERT for a data-modifying CTE, so
 * a read and its audit event go to PostgreSQL as one statement (one round
 * trip, one commit: the row is written whenever the read is). `data` is SQL
 * that builds a jsonb object (it may refer to the statement's other CTEs).
 */
export function auditInsertSql(
  actor: { id: string | null; email: Actor["email"]; token?: Actor["token"]; request?: RequestContext },
  action: string,
  entityType: EntityType,
  entityId: string,
  data: Prisma.Sql,
): Prisma.Sql {
  const token: Prisma.InputJsonObject = { ...(actor.token ? { tokenId: actor.token.id } : {}), ...agentAuditData(actor.request), ...(actor.request?.requestId ? { requestId: actor.request.requestId } : {}) };
  return Prisma.sql`INSERT INTO "AuditEvent" ("actorId", "actorEmail", "action", "entityType", "entityId", "data", "clientAddress", "userAgent")
    VALUES (${actor.id}, ${actor.email}, ${action}, ${entityType}, ${entityId}, (${data}) || ${JSON.stringify(token)}::jsonb, ${actor.request?.clientAddress ?? null}, ${actor.request?.userAgent ?? null})`;
}
