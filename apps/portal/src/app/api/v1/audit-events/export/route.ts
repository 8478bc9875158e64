import { auditExportInput, exportAuditEvents, parseInput, type AuditExportFormat } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, queryObject } from "@/server/http";

const CONTENT_TYPES: Record<AuditExportFormat, string> = { csv: "text/csv; charset=utf-8", json: "application/json; charset=utf-8" };


/**
 * The filtered audit log as a download: `?format=csv|json` plus the list's
 * filters (entityType, entityId, actor, action, from, to). Streamed in batches,
 * so a large log never sits in memory.
 */
export async function GET(request: Request) {
  try {
    // The whole query is checked against the schema the document is made of (issue 30, finding 18).
    const query = queryObject(request);
    const { format } = parseInput(auditExportInput, query);
    const { format: _format, ...filters } = query;
    const chunks = await exportAuditEvents(db(), await currentActor(), filters, format);
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await chunks.return(undefined);
      },
    });
    const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-");
    return new Response(body, {
      headers: {
        "content-type": CONTENT_TYPES[format],
        "content-disposition": `attachment; filename="kappa-audit-${stamp}.${format}"`,
        "cache-control": "no-store",
      },
    });
  } catch (error) {
    return errorResponse(error);
  }
}
