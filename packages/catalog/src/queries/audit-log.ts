import type { AuditEvent, Prisma } from "@prisma/client";
import { z } from "zod";
import { parseInput } from "../action.ts";
import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { ForbiddenError } from "../errors.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { auditQueryInput } from "../validation.ts";

type AuditQuery = ReturnType<typeof auditQueryInput.parse>;

/**
 * Who may read which part of the log: governance and admins all of it; a
 * domain owner the history of one of their products (entity filter required).
 */
async function authorise(db: Db, actor: Actor, input: AuditQuery): Promise<void> {
  if (hasGlobal(actor, "audit:read")) return;
  const product = input.entityType === "DataProduct" && input.entityId ? await db.dataProduct.findUnique({ where: { id: input.entityId } }) : null;
  if (!product || !canInDomain(actor, "product:update", product.domainId)) {
    throw new ForbiddenError("Only governance reviewers and admins can read the audit log.");
  }
}

function whereOf(input: AuditQuery): Prisma.AuditEventWhereInput {
  const where: Prisma.AuditEventWhereInput = {};
  if (input.entityType) where.entityType = input.entityType;
  if (input.entityId) where.entityId = input.entityId;
  if (input.actor) where.actorEmail = { contains: input.actor, mode: "insensitive" };
  if (input.action) where.action = { contains: input.action, mode: "insensitive" };
  if (input.via) where.data = { path: ["via"], equals: input.via };
  if (input.from || input.to) where.at = { ...(input.from ? { gte: input.from } : {}), ...(input.to ? { lte: input.to } : {}) };
  return where;
}

/** One page of the audit log, newest first, under the filters. */
export async function listAuditEvents(db: Db, actor: Actor, rawInput: unknown) {
  const input = parseInput(auditQueryInput, rawInput);
  await authorise(db, actor, input);
  const where = whereOf(input);
  const [total, items] = await db.$transaction([
    db.auditEvent.count({ where }),
    db.auditEvent.findMany({ where, orderBy: { id: "desc" }, skip: (input.page - 1) * input.pageSize, take: input.pageSize }),
  ]);
  return { items, total, page: input.page, pageSize: input.pageSize, pageCount: Math.max(1, Math.ceil(total / input.pageSize)) };
}

export const AUDIT_EXPORT_FORMATS = ["csv", "json"] as const;
export type AuditExportFormat = (typeof AUDIT_EXPORT_FORMATS)[number];

/** The export's query: `format` and the list's filters (no paging), as GET /audit-events/export documents and checks it. */
export const auditExportInput = z.object({
  format: z.enum(AUDIT_EXPORT_FORMATS, { message: "Export format is csv or json." }).default("csv"),
  entityType: auditQueryInput.shape.entityType,
  entityId: auditQueryInput.shape.entityId,
  actor: auditQueryInput.shape.actor,
  action: auditQueryInput.shape.action,
  via: auditQueryInput.shape.via,
  from: auditQueryInput.shape.from,
  to: auditQueryInput.shape.to,
});
const EXPORT_BATCH = 1000;
const CSV_COLUMNS = ["id", "at", "actorEmail", "action", "entityType", "entityId", "clientAddress", "userAgent", "data"] as const;

/**
 * A spreadsheet opens a cell starting with = + - @ (or a tab/CR) as a formula
 * (CSV injection, OWASP): such values get a leading apostrophe. Every field is
 * quoted, quotes doubled (RFC 4180).
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

function exportRow(e: AuditEvent) {
  return {
    id: e.id.toString(),
    at: e.at.toISOString(),
    actorEmail: e.actorEmail,
    action: e.action,
    entityType: e.entityType,
    entityId: e.entityId,
    clientAddress: e.clientAddress,
    userAgent: e.userAgent,
    data: e.data,
  };
}

/**
 * The whole filtered log as CSV or JSON, newest first, read in batches by id
 * (keyset, so a long export neither holds a transaction open nor skips or
 * repeats rows while new events arrive — rows newer than the first batch are
 * not included). The permission check runs before the first byte.
 */
export async function exportAuditEvents(db: Db, actor: Actor, rawInput: unknown, format: AuditExportFormat): Promise<AsyncGenerator<string>> {
  const input = parseInput(auditQueryInput, rawInput);
  await authorise(db, actor, input);
  const where = whereOf(input);
  async function* generate(): AsyncGenerator<string> {
    yield format === "csv" ? CSV_COLUMNS.join(",") + "\r\n" : "[";
    let before: bigint | null = null;
    let first = true;
    for (;;) {
      const batch: AuditEvent[] = await db.auditEvent.findMany({
        where: before === null ? where : { AND: [where, { id: { lt: before } }] },
        orderBy: { id: "desc" },
        take: EXPORT_BATCH,
      });
      if (batch.length === 0) break;
      let chunk = "";
      for (const e of batch) {
        const row = exportRow(e);
        if (format === "csv") {
          chunk += CSV_COLUMNS.map((c) => csvField(c === "data" ? JSON.stringify(row.data) : (row[c] ?? ""))).join(",") + "\r\n";
        } else {
          chunk += (first ? "\n" : ",\n") + JSON.stringify(row);
          first = false;
        }
      }
      yield chunk;
      before = batch[batch.length - 1]?.id ?? null;
      if (batch.length < EXPORT_BATCH) break;
    }
    if (format === "json") yield first ? "]\n" : "\n]\n";
  }
  return generate();
}
