import type { Prisma } from "@prisma/client";
import { z } from "zod";
import { inTransaction, loadActingActor, parseInput, type ActingUser } from "../action.ts";
import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import type { Db, Tx } from "../db.ts";
import { ConflictError, ForbiddenError } from "../errors.ts";
import { notify } from "../notifications/notify.ts";
import { canInDomain } from "../permissions.ts";
import { dlqTopicOf } from "../quality/rules.ts";
import { consumeRateLimit } from "../rate-limit.ts";
import { deadLetterShown, type DeadLetter } from "../records/dead-letters.ts";
import type { RecordSource, SourceRecord } from "../records/source.ts";
import { recordViewer, type RecordViewer } from "../records/viewer.ts";
import { MAX_REDRIVE_RECORDS, REDRIVE_PREVIEW_SHOWN, redriveSelectionInput, resolveSelection, selectionJson, upToJson, type RedriveSelection, type UpTo } from "../redrive/selection.ts";
import { TASK_KINDS } from "../tasks.ts";

/*
 * Redrive (issue 29): an owner of the product's domain sends dead letters of
 * `<topic>.dlq` back to the product topic once the producer or the rules were
 * fixed. The preview reads what the selection names now; the request records
 * it bounded by the DLQ's end offsets at that moment. A product classified
 * CONFIDENTIAL or above waits for a second person (decide-redrive.ts); any
 * other is approved with the request. The worker sends each dead letter at
 * most once (RedrivenRecord). Only owners: reading dead letters is theirs
 * alone (see records/dead-letters.ts), and a redrive writes to their topic.
 */

/** Classifications whose redrives need a second person. */
export const FOUR_EYES_CLASSIFICATIONS: readonly string[] = ["CONFIDENTIAL", "RESTRICTED"];

export const redrivePreviewInput = z.object({ selection: redriveSelectionInput }).strict();
export const requestRedriveInput = z.object({ selection: redriveSelectionInput, reason: z.string().trim().max(1000).optional() }).strict();

export interface RedriveOptions {
  /** Reads of the dead-letter topic per user per minute: shared with the message browser. */
  ratePerMinute: number;
}

/** The owner check every redrive read and request passes (tokens and agents narrowed by their scopes included). */
async function ownerViewer(db: Db | Tx, actor: Actor, productId: string): Promise<RecordViewer> {
  const viewer = await recordViewer(db, actor, productId);
  if (viewer.role !== "owner" || !canInDomain(actor, "product:update", viewer.product.domainId)) throw new ForbiddenError("Only the product's owners redrive its dead letters.");
  return viewer;
}

async function redrivenAlready(db: Db | Tx, productId: string, records: readonly SourceRecord[]): Promise<Set<string>> {
  if (records.length === 0) return new Set();
  const rows = await db.$queryRaw<{ partition: number; offset: bigint }[]>`
    SELECT r."partition", r."offset" FROM "RedrivenRecord" r
      JOIN unnest(${records.map((x) => x.partition)}::int[], ${records.map((x) => x.offset)}::bigint[]) AS s(p, o) ON r."partition" = s.p AND r."offset" = s.o
     WHERE r."productId" = ${productId}`;
  return new Set(rows.map((r) => `${r.partition}/${r.offset}`));
}

export interface RedrivePreview {
  dlqTopic: string;
  topic: string;
  selection: Prisma.InputJsonObject;
  /** Dead letters the selection names. */
  matched: number;
  /** … of which a redrive already sent or claimed (never sent twice). */
  alreadyRedriven: number;
  /** What a request now would send. */
  count: number;
  /** The product needs a second person to approve the redrive. */
  fourEyes: boolean;
  /** The first records that would be sent, masked like the DLQ panel. */
  records: DeadLetter[];
  upTo: { partition: number; end: string }[];
}

async function preview(db: Db, actor: Actor, productId: string, selection: RedriveSelection, source: RecordSource, options: RedriveOptions): Promise<RedrivePreview & { bounds: UpTo }> {
  const viewer = await ownerViewer(db, actor, productId);
  const dlqTopic = dlqTopicOf(viewer.product.topicName);
  // As the DLQ panel: without a DLQ rule the portal's reader holds no grant on the topic (and the worker provisions none).
  if ((await db.dataQualityRule.count({ where: { productId, onFailure: "DLQ" } })) === 0) throw new ConflictError(`"${viewer.product.name}" has no rule with the action DLQ, so it has no dead letters to redrive.`, "NO_DEAD_LETTER_TOPIC");
  await consumeRateLimit(db, `browse:${actor.id}`, options.ratePerMinute, 60_000, "message-browser pages");
  let resolved;
  try {
    resolved = await resolveSelection(source, dlqTopic, selection);
  } catch (error) {
    if (error instanceof Error && /UNKNOWN_TOPIC|unknown topic|does not exist/i.test(error.message)) throw new ConflictError(`${dlqTopic} is not on the cluster: the product has no dead letters to redrive.`, "NO_DEAD_LETTER_TOPIC");
    throw error;
  }
  const done = await redrivenAlready(db, productId, resolved.records);
  const pending = resolved.records.filter((r) => !done.has(`${r.partition}/${r.offset}`));
  const bounds = resolved.bounds.map((b) => ({ partition: b.partition, end: b.end }));
  return {
    dlqTopic,
    topic: viewer.product.topicName,
    selection: selectionJson(selection),
    matched: resolved.records.length,
    alreadyRedriven: resolved.records.length - pending.length,
    count: pending.length,
    fourEyes: FOUR_EYES_CLASSIFICATIONS.includes(viewer.product.classification),
    records: pending.slice(0, REDRIVE_PREVIEW_SHOWN).map((r) => deadLetterShown(r, viewer)),
    upTo: upToJson(bounds),
    bounds,
  };
}

/** POST …/dlq/redrive/preview: what a redrive of the selection would send, nothing recorded but the read (audited). */
export async function previewRedrive(db: Db, acting: ActingUser, productId: string, rawInput: unknown, source: RecordSource, options: RedriveOptions): Promise<RedrivePreview> {
  const input = parseInput(redrivePreviewInput, rawInput);
  const actor = await loadActingActor(db, acting);
  const { bounds: _bounds, ...result } = await preview(db, actor, productId, input.selection, source, options);
  await db.$transaction((tx) => recordAudit(tx, actor, "product.redrive-previewed", "DataProduct", productId, { dlqTopic: result.dlqTopic, selection: result.selection, matched: result.matched, count: result.count, shown: result.records.map((r) => `${r.partition}/${r.offset}`) }));
  return result;
}

/** The REDRIVE_DEAD_LETTERS task for an approved request: the worker leases it like any other step. */
export async function enqueueRedrive(tx: Tx, requestId: string): Promise<void> {
  await tx.provisioningTask.create({ data: { kind: TASK_KINDS.REDRIVE_DEAD_LETTERS, payload: { requestId }, entityType: "RedriveRequest", entityId: requestId, step: 1 } });
}

/**
 * POST …/dlq/redrive: records the request. 201 with the request — APPROVED
 * (queued for the worker) unless the product is CONFIDENTIAL or above, then
 * REQUESTED until another owner of the domain or governance decides.
 */
export async function requestRedrive(db: Db, acting: ActingUser, productId: string, rawInput: unknown, source: RecordSource, options: RedriveOptions) {
  const input = parseInput(requestRedriveInput, rawInput);
  // The read happens before the transaction, as the replay's preview does: the transaction only records the decision.
  const seen = await preview(db, await loadActingActor(db, acting), productId, input.selection, source, options);
  if (seen.count === 0) {
    throw new ConflictError(seen.matched === 0 ? "No dead letter matches the selection." : `All ${seen.matched} dead letters the selection names were redriven already; each is redriven at most once.`, "NOTHING_TO_REDRIVE");
  }
  return inTransaction(db, acting, async (tx, actor) => {
    // Re-checked in the transaction: the owner may have lost the role, the product may have been retired since the read.
    const viewer = await ownerViewer(tx, actor, productId);
    const fourEyes = FOUR_EYES_CLASSIFICATIONS.includes(viewer.product.classification);
    const request = await tx.redriveRequest.create({
      data: {
        productId,
        dlqTopic: seen.dlqTopic,
        topic: seen.topic,
        selection: seen.selection,
        upTo: seen.upTo,
        previewed: seen.count,
        status: fourEyes ? "REQUESTED" : "APPROVED",
        requestedById: actor.id,
        reason: input.reason ?? "",
        ...(fourEyes ? {} : { decidedAt: new Date() }),
      },
    });
    if (!fourEyes) await enqueueRedrive(tx, request.id);
    await recordAudit(tx, actor, "product.redrive-requested", "DataProduct", productId, {
      requestId: request.id,
      dlqTopic: seen.dlqTopic,
      selection: seen.selection,
      count: seen.count,
      alreadyRedriven: seen.alreadyRedriven,
      fourEyes,
      ...(input.reason ? { reason: input.reason } : {}),
    });
    if (fourEyes) {
      await notify(tx, {
        kind: "redrive.requested",
        title: `${viewer.product.name}: a redrive of ${seen.count} dead letter${seen.count === 1 ? "" : "s"} waits for a second person`,
        body: `Requested by ${actor.name}${input.reason ? `: ${input.reason}` : ""}. The product is ${viewer.product.classification}: another owner of the domain or governance approves it.`,
        link: `/products/${productId}#live`,
        entityType: "DataProduct",
        entityId: productId,
        audience: { domainOwners: [viewer.product.domainId], governance: true },
        webhookDomains: [viewer.product.domainId],
        exclude: [actor.id],
      });
    }
    return { request, fourEyes };
  });
}

export { MAX_REDRIVE_RECORDS };
