import type { Prisma } from "@prisma/client";
import { parseInput } from "../action.ts";
import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { ForbiddenError } from "../errors.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { auditQueryInput } from "../validation.ts";

/**
 * The audit log. Governance and admins read all of it; a domain owner reads
 * the history of one of their products (entity filter required).
 */
export async function listAuditEvents(db: Db, actor: Actor, rawInput: unknown) {
  const input = parseInput(auditQueryInput, rawInput);
  if (!hasGlobal(actor, "audit:read")) {
    const product = input.entityType === "DataProduct" && input.entityId ? await db.dataProduct.findUnique({ where: { id: input.entityId } }) : null;
    if (!product || !canInDomain(actor, "product:update", product.domainId)) {
      throw new ForbiddenError("Only governance reviewers and admins can read the audit log.");
    }
  }
  const where: Prisma.AuditEventWhereInput = {};
  if (input.entityType) where.entityType = input.entityType;
  if (input.entityId) where.entityId = input.entityId;
  if (input.actor) where.actorEmail = { contains: input.actor, mode: "insensitive" };
  const [total, items] = await db.$transaction([
    db.auditEvent.count({ where }),
    db.auditEvent.findMany({ where, orderBy: { id: "desc" }, skip: (input.page - 1) * input.pageSize, take: input.pageSize }),
  ]);
  return { items, total, page: input.page, pageSize: input.pageSize, pageCount: Math.max(1, Math.ceil(total / input.pageSize)) };
}
