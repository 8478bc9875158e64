import { inTransaction, type ActingUser } from "../action.ts";
import type { Db } from "../db.ts";
import { commandView, createJobCommand, jobPhase, lockDerivedForCommand } from "../derived/job-commands.ts";
import { ConflictError } from "../errors.ts";

/**
 * POST /products/:id/job/resume. An owner asks for the paused job to run
 * again from its savepoint: the same statement, its state restored, reading
 * on from the offsets it had — nothing recomputed, nothing skipped. The
 * worker carries it out (and refuses if the domain lost access meanwhile).
 */
export async function resumeDerivedJob(db: Db, acting: ActingUser, productId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    const { derived } = await lockDerivedForCommand(tx, actor, productId, "resume");
    const phase = jobPhase(derived);
    if (phase !== "PAUSED" || !derived.jobSavepointPath) throw new ConflictError(phase === "RUNNING" ? "The job is running: there is nothing to resume." : phase === "STOPPED" ? `The job was stopped: ${derived.jobStopReason ?? "it must no longer run"}` : "The job is not paused.", "JOB_NOT_PAUSED");
    const command = await createJobCommand(tx, actor, productId, { kind: "RESUME", fromJobId: derived.jobId });
    return { command: commandView(command), changeRequest: null };
  });
}
