import { inTransaction, type ActingUser } from "../action.ts";
import type { Db } from "../db.ts";
import { commandView, createJobCommand, jobPhase, lockDerivedForCommand } from "../derived/job-commands.ts";
import { ConflictError } from "../errors.ts";

/**
 * POST /products/:id/job/pause. An owner of the product's domain asks for the
 * running job to be stopped with a savepoint (Flink keeps its state: open
 * windows, the inputs' offsets, the sink's transactions) so that a resume
 * continues where it stopped. The worker carries it out.
 */
export async function pauseDerivedJob(db: Db, acting: ActingUser, productId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    const { derived } = await lockDerivedForCommand(tx, actor, productId, "pause");
    const phase = jobPhase(derived);
    if (phase !== "RUNNING") throw new ConflictError(phase === "PAUSED" ? "The job is paused already." : phase === "STOPPED" ? `The job was stopped: ${derived.jobStopReason ?? "it must no longer run"}` : "The job is not deployed yet: there is nothing to pause.", "JOB_NOT_RUNNING");
    const command = await createJobCommand(tx, actor, productId, { kind: "PAUSE", fromJobId: derived.jobId });
    return { command: commandView(command), changeRequest: null };
  });
}
