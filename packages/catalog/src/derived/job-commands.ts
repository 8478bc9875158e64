/*
 * A derived product's job life cycle (issue 34): owners pause, resume and
 * replay the Flink job; the worker carries each intent out. Here: what each
 * intent needs to be accepted (who, the job's state, the replay point), the
 * rows it writes, and what the job panel reads of them. Flink is never
 * called from the catalog's actions.
 */
import type { DerivedJobCommand, Prisma } from "@prisma/client";
import { z } from "zod";
import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import type { Tx } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { lockProduct } from "../product-access.ts";

export const JOB_COMMAND_KINDS = ["PAUSE", "RESUME", "REPLAY", "STATEMENT"] as const;
export type JobCommandKind = (typeof JOB_COMMAND_KINDS)[number];
/** PENDING: waits for a worker; RUNNING: a worker holds its lease; DONE / FAILED: finished (error says why). */
export const OPEN_COMMAND_STATUSES = ["PENDING", "RUNNING"] as const;

/** Classifications whose replay needs a governance reviewer's approval (four eyes) before the worker runs it. */
export const REPLAY_REVIEWED_CLASSIFICATIONS = ["CONFIDENTIAL", "RESTRICTED"] as const;

/**
 * `{"from": "earliest" | "<ISO-8601 instant>"}`: where the new job starts
 * reading every input. A timestamp must carry its zone (Z or an offset).
 */
const REPLAY_FROM_MESSAGE = 'from must be "earliest" or an ISO-8601 date and time with its zone, e.g. 2026-12-01T00:00:00Z';
const isoInstant = z.iso.datetime({ offset: true, error: REPLAY_FROM_MESSAGE });
export const derivedReplayInput = z
  .object({
    // A union, not a refine: the API document then states the rule ("earliest" or a date-time) that the handler applies.
    from: z.union([z.literal("earliest", { error: REPLAY_FROM_MESSAGE }), isoInstant], { error: REPLAY_FROM_MESSAGE }),
    /** Why: shown to the governance reviewer when the replay needs four eyes. */
    reason: z.string().trim().max(1_000).optional(),
  })
  .strict();
export type DerivedReplayInput = z.infer<typeof derivedReplayInput>;

export interface JobCommandView {
  id: string;
  kind: JobCommandKind;
  /** REPLAY: "earliest" or the ISO instant the inputs are read from. */
  from: string | null;
  status: string;
  /** How far the worker got, in words ("Stopping the job with a savepoint…"). */
  progress: string | null;
  error: string | null;
  savepointPath: string | null;
  /** STATEMENT: the approved statement version the new job runs. */
  statementVersion: number | null;
  requestedAt: string;
  finishedAt: string | null;
}

export function commandView(c: DerivedJobCommand): JobCommandView {
  return {
    id: c.id,
    kind: c.kind as JobCommandKind,
    from: c.replayFrom,
    status: c.status,
    progress: c.progress,
    error: c.error,
    savepointPath: c.savepointPath,
    statementVersion: c.statementVersion,
    requestedAt: c.createdAt.toISOString(),
    finishedAt: c.finishedAt?.toISOString() ?? null,
  };
}

const LIVE = ["ACTIVE", "DEPRECATED"];
const UNPUBLISHED = ["DRAFT", "IN_REVIEW", "REJECTED"];

/**
 * The product, locked, with its derived row, once the actor is an owner of its
 * domain (people, tokens and agents alike: a token's scopes narrow its
 * memberships before this) and no other intent is open on it.
 */
export async function lockDerivedForCommand(tx: Tx, actor: Actor, productId: string, what: string) {
  const product = await lockProduct(tx, productId);
  const derived = await tx.derivedProduct.findUnique({ where: { productId } });
  const inDomain = actor.memberships.some((m) => m.domainId === product.domainId);
  // Someone who may not see the draft learns nothing about it (as GET /products/{id}/job).
  if (!derived || (!inDomain && UNPUBLISHED.includes(product.status) && !hasGlobal(actor, "product:review"))) throw new NotFoundError("Derived product", productId);
  if (!canInDomain(actor, "product:update", product.domainId)) throw new ForbiddenError(`Only owners of the product's domain may ${what} its Flink job.`);
  if (!LIVE.includes(product.status)) throw new ConflictError(`The product is ${product.status}: its job cannot be ${what === "replay" ? "replayed" : `${what}d`}.`, "PRODUCT_NOT_LIVE");
  const open = await tx.derivedJobCommand.findFirst({ where: { productId, status: { in: [...OPEN_COMMAND_STATUSES] } }, orderBy: { createdAt: "asc" } });
  if (open) throw new ConflictError(`A ${open.kind.toLowerCase()} of this job is ${open.status === "PENDING" ? "waiting for the worker" : "under way"}; wait until it is done.`, "JOB_COMMAND_OPEN");
  return { product, derived };
}

/** The job as the intents see it: DEPLOYED (running or starting), PAUSED, STOPPED (for good), or not yet deployed. */
export function jobPhase(derived: { jobId: string | null; jobPausedAt: Date | null; jobStoppedAt: Date | null }): "NOT_DEPLOYED" | "RUNNING" | "PAUSED" | "STOPPED" {
  if (derived.jobStoppedAt) return "STOPPED";
  if (derived.jobPausedAt) return "PAUSED";
  return derived.jobId ? "RUNNING" : "NOT_DEPLOYED";
}

/**
 * Checks a replay point: not in the future, and not before what every input
 * still retains (its retention, when it has one: Kafka deleted what is older,
 * so the replay would silently start later than asked).
 */
export function checkReplayPoint(from: string, inputs: { topicName: string; retentionMs: bigint }[], now = Date.now()): void {
  if (from === "earliest") return;
  const at = Date.parse(from);
  if (at > now) throw new ValidationError(`from ${from} is in the future; a replay starts at an earlier point.`, { from: ["must not be in the future"] });
  for (const input of inputs) {
    if (input.retentionMs <= 0n) continue;
    const earliest = now - Number(input.retentionMs);
    if (at < earliest) {
      const days = Number(input.retentionMs) / 86_400_000;
      throw new ValidationError(
        `from ${from} is before what the input ${input.topicName} retains (${days >= 1 ? `${Math.round(days * 10) / 10} days` : `${Math.round(Number(input.retentionMs) / 60_000)} minutes`}: nothing before ${new Date(earliest).toISOString()}). Choose a later point or "earliest".`,
        { from: [`must not be before ${new Date(earliest).toISOString()}`] },
      );
    }
  }
}

/**
 * Writes a PENDING intent for the worker and, given the acting user, its
 * audit event (an approved change request's replay is audited as the approval).
 */
export async function createJobCommand(
  tx: Tx,
  actor: Actor | null,
  productId: string,
  data: { kind: JobCommandKind; replayFrom?: string; changeRequestId?: string; fromJobId: string | null; requestedById?: string; statementVersion?: number },
): Promise<DerivedJobCommand> {
  const requestedById = data.requestedById ?? actor?.id;
  if (!requestedById) throw new Error("a job command needs its requester");
  const command = await tx.derivedJobCommand.create({
    data: { productId, kind: data.kind, replayFrom: data.replayFrom ?? null, changeRequestId: data.changeRequestId ?? null, requestedById, fromJobId: data.fromJobId, statementVersion: data.statementVersion ?? null, progress: "Waiting for the worker." },
  });
  if (!actor) return command;
  const detail: Prisma.InputJsonObject = { commandId: command.id, jobId: data.fromJobId, ...(data.replayFrom ? { from: data.replayFrom } : {}), ...(data.changeRequestId ? { changeRequestId: data.changeRequestId } : {}) };
  await recordAudit(tx, actor, `derivedProduct.${data.kind.toLowerCase()}Requested`, "DataProduct", productId, detail);
  return command;
}
