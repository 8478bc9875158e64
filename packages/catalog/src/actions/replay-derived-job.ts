import { Prisma } from "@prisma/client";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import { CHANGE_KINDS, notifyChangeAwaitsReview } from "../changes/change-requests.ts";
import type { Db } from "../db.ts";
import { checkReplayPoint, commandView, createJobCommand, jobPhase, lockDerivedForCommand, derivedReplayInput, REPLAY_REVIEWED_CLASSIFICATIONS } from "../derived/job-commands.ts";
import { ConflictError, ValidationError } from "../errors.ts";

/**
 * POST /products/:id/job/replay with `{"from": "earliest" | "<ISO instant>"}`:
 * the Kappa way to reprocess history. The worker stops the job (no savepoint:
 * its state is what is being recomputed) and starts the statement again,
 * reading every input from its earliest offset or from the first record at or
 * after the instant, under a new consumer group. The output topic is append
 * only: the recomputed results are appended after the earlier ones, and its
 * consumers see each window again.
 *
 * A CONFIDENTIAL or RESTRICTED product's replay re-emits sensitive results to
 * every consumer: like other reviewed changes it becomes a change request
 * (DERIVED_REPLAY) that a governance reviewer other than the requester
 * approves; the worker runs it only then.
 */
export async function replayDerivedJob(db: Db, acting: ActingUser, productId: string, rawInput: unknown) {
  const input = parseInput(derivedReplayInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const { product, derived } = await lockDerivedForCommand(tx, actor, productId, "replay");
    const phase = jobPhase(derived);
    if (phase !== "RUNNING" && phase !== "PAUSED") throw new ConflictError(phase === "STOPPED" ? `The job was stopped: ${derived.jobStopReason ?? "it must no longer run"}` : "The job is not deployed yet: there is nothing to replay.", "JOB_NOT_RUNNING");
    const inputs = await tx.productInput.findMany({ where: { productId }, select: { input: { select: { topicName: true, retentionMs: true } } } });
    checkReplayPoint(input.from, inputs.map((i) => i.input));
    if (!(REPLAY_REVIEWED_CLASSIFICATIONS as readonly string[]).includes(product.classification)) {
      const command = await createJobCommand(tx, actor, productId, { kind: "REPLAY", replayFrom: input.from, fromJobId: derived.jobId });
      return { command: commandView(command), changeRequest: null };
    }
    if (!input.reason) throw new ValidationError(`A replay of a ${product.classification} product is reviewed by governance: say why (reason).`, { reason: ["required for a reviewed replay"] });
    try {
      const request = await tx.productChangeRequest.create({ data: { productId, kind: CHANGE_KINDS.DERIVED_REPLAY, payload: { from: input.from, jobId: derived.jobId }, reason: input.reason, requestedById: actor.id } });
      await recordAudit(tx, actor, "derivedProduct.replayRequested", "DataProduct", productId, { from: input.from, jobId: derived.jobId, reason: input.reason, changeRequestId: request.id });
      await notifyChangeAwaitsReview(tx, actor, product, `replay of its Flink job from ${input.from} waits for review`, input.reason);
      return { command: null, changeRequest: { id: request.id, status: request.status } };
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") throw new ConflictError("A replay of this job is waiting for review already.", "CHANGE_PENDING");
      throw error;
    }
  });
}
