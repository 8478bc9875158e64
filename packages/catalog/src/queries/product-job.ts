import type { Actor } from "../actor.ts";
import { CHANGE_KINDS, derivedReplayPayload } from "../changes/change-requests.ts";
import type { Db } from "../db.ts";
import type { DerivedJobStatus } from "../derived/deploy.ts";
import { commandView, type JobCommandView } from "../derived/job-commands.ts";
import { derivedStatementPayload } from "../derived/statement-change.ts";
import { NotFoundError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";

const UNPUBLISHED = ["DRAFT", "IN_REVIEW", "REJECTED"];

/** What the worker last read of the job from Flink (no job id before it deployed one), when, and why it stopped the job. */
export interface ProductJob extends Omit<DerivedJobStatus, "jobId"> {
  /** Flink's job state as last observed (RUNNING, RESTARTING, FAILED, …); NOT_DEPLOYED before the worker started it; STOPPED once the worker stopped it (stopReason); PAUSED while paused with a savepoint. */
  state: string;
  jobId: string | null;
  /** When the worker last read the job from Flink (null: never). */
  observedAt: string | null;
  /** When the worker stopped the job for good (state STOPPED), and why: an input's subscription revoked, an input or the product retired. */
  stoppedAt: string | null;
  stopReason: string | null;
  /** When its owners paused it (state PAUSED), and the savepoint a resume restores. */
  pausedAt: string | null;
  savepointPath: string | null;
  /** The latest pause, resume or replay asked for, and how far the worker got with it. */
  command: JobCommandView | null;
  /** The product's approved statement version (1 as declared, one more per approved change) and the one the job runs. */
  statementVersion: number;
  jobStatementVersion: number | null;
  /** After the last statement change: whether the new job restored the old job's savepoint (null: no change yet), and Flink's reason when not (or only partly). */
  restoredFromSavepoint: boolean | null;
  restoreNote: string | null;
  /**
   * A paused job whose statement changed while it was paused (approved): the statement version its resume runs
   * (from the pause's savepoint where Flink can restore the state, else without state from the committed offsets).
   */
  statementVersionOnResume: number | null;
  /** A new statement that waits for a governance reviewer. */
  statementChangeAwaitingReview: { changeRequestId: string; toVersion: number; requestedAt: string } | null;
  /** A replay that waits for a governance reviewer (CONFIDENTIAL or RESTRICTED product). */
  replayAwaitingReview: { changeRequestId: string; from: string; requestedAt: string } | null;
}

const numberOrNull = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);
const stringOrNull = (v: unknown) => (typeof v === "string" ? v : null);

/**
 * `GET /api/v1/products/{id}/job`: a derived product's Flink job as the
 * worker's observer last recorded it in the catalog (the portal never asks
 * Flink). As visible as the product; 404 for a product that is not derived.
 */
export async function productJob(db: Db, actor: Actor, productId: string): Promise<ProductJob> {
  const product = await db.dataProduct.findUnique({ where: { id: productId }, select: { id: true, domainId: true, status: true } });
  if (!product) throw new NotFoundError("Data product", productId);
  const inDomain = actor.memberships.some((m) => m.domainId === product.domainId);
  if (UNPUBLISHED.includes(product.status) && !inDomain && !hasGlobal(actor, "product:review")) throw new NotFoundError("Data product", productId);
  const derived = await db.derivedProduct.findUnique({ where: { productId } });
  if (!derived) throw new NotFoundError("Derived product's job", productId);
  const m = (derived.jobMetrics ?? {}) as Record<string, unknown>;
  const [command, review, statementReview] = await Promise.all([
    db.derivedJobCommand.findFirst({ where: { productId }, orderBy: { createdAt: "desc" } }),
    db.productChangeRequest.findFirst({ where: { productId, kind: CHANGE_KINDS.DERIVED_REPLAY, status: "REQUESTED" }, orderBy: { createdAt: "desc" } }),
    db.productChangeRequest.findFirst({ where: { productId, kind: CHANGE_KINDS.DERIVED_STATEMENT, status: "REQUESTED" }, orderBy: { createdAt: "desc" } }),
  ]);
  const statementPayload = statementReview ? derivedStatementPayload.safeParse(statementReview.payload) : null;
  const reviewPayload = review ? derivedReplayPayload.safeParse(review.payload) : null;
  // Rates and watermark lag are a running job's: none while it is paused or stopped (the last ones read were before it stopped).
  const halted = derived.jobPausedAt !== null || derived.jobStoppedAt !== null;
  const jobStatementVersion = derived.jobId ? (derived.jobStatementVersion ?? 1) : null;
  return {
    state: derived.jobState ?? "NOT_DEPLOYED",
    jobId: derived.jobId,
    startedAt: derived.jobStartedAt?.toISOString() ?? null,
    recordsInPerSecond: halted ? null : numberOrNull(m.recordsInPerSecond),
    recordsOutPerSecond: halted ? null : numberOrNull(m.recordsOutPerSecond),
    watermarkLagMs: halted ? null : numberOrNull(m.watermarkLagMs),
    lastCheckpointAt: stringOrNull(m.lastCheckpointAt),
    restarts: numberOrNull(m.restarts),
    error: derived.jobError,
    observedAt: derived.jobObservedAt?.toISOString() ?? null,
    stoppedAt: derived.jobStoppedAt?.toISOString() ?? null,
    stopReason: derived.jobStopReason,
    pausedAt: derived.jobPausedAt?.toISOString() ?? null,
    savepointPath: derived.jobSavepointPath,
    command: command ? commandView(command) : null,
    statementVersion: derived.statementVersion,
    jobStatementVersion,
    statementVersionOnResume: derived.jobPausedAt && !derived.jobStoppedAt && jobStatementVersion !== null && jobStatementVersion !== derived.statementVersion ? derived.statementVersion : null,
    restoredFromSavepoint: derived.jobRestoredFromSavepoint,
    restoreNote: derived.jobRestoreNote,
    statementChangeAwaitingReview: statementReview && statementPayload?.success ? { changeRequestId: statementReview.id, toVersion: statementPayload.data.toVersion, requestedAt: statementReview.createdAt.toISOString() } : null,
    replayAwaitingReview: review && reviewPayload?.success ? { changeRequestId: review.id, from: reviewPayload.data.from, requestedAt: review.createdAt.toISOString() } : null,
  };
}
