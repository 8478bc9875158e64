/*
 * Pause, resume and replay of derived products' Flink jobs (issue 34, life
 * cycle): the worker's part of the owners' intents (DerivedJobCommand rows the
 * catalog's actions write). Each observation cycle, before deploying and
 * observing, the derived-jobs step leases the PENDING intents (and those whose
 * lease ran out: a worker died mid-way) and carries each out, saying how far
 * it got in `progress`:
 *
 * - PAUSE: stop the job with a savepoint (Flink REST `POST /jobs/:id/stop`,
 *   no drain), record where it is; the job reads PAUSED.
 * - RESUME: the same statement, submitted with `execution.state-recovery.path`
 *   set to that savepoint: the windows it had open, the inputs' offsets and
 *   the sink's transactions are restored, so nothing is recomputed or skipped.
 * - REPLAY: cancel the job (its state is what is recomputed: no savepoint),
 *   submit the statement again reading every input from its earliest offset
 *   or from an instant, under a new consumer group of the job's account
 *   (`<account>.replay-<id>`). The output topic is append-only: the recomputed
 *   results follow the earlier ones.
 *
 * Each step is safe to run again after a lease ran out: a savepoint already
 * taken is read back from Flink, a job of the product's name already running
 * is adopted rather than started twice.
 */
import type { DerivedJobCommand, DerivedProduct } from "@prisma/client";
import { awaitJobRunning, cancelDerivedJob, consumerGroupPrefix, notify, startDerivedJob, stopDerivedJobWithSavepoint, type DerivedJobSpec, type NotificationKind } from "@kappa/catalog";
import { errorMessage } from "../log.ts";
import { auditAsWorker, reconcilePrincipalAcls } from "../reconcile/entities.ts";
import type { DerivedJobs } from "./derived-jobs.ts";
import { redactLogins, stopReasons } from "./derived-jobs.ts";

/** How long a worker holds an intent before another may take it over (a resume waits for Flink's planner and the job's start). */
const LEASE_MS = 10 * 60_000;

class CommandRefused extends Error {
  override name = "CommandRefused";
}

/** The intents to carry out now: PENDING ones, and RUNNING ones whose lease ran out; leased to this worker. */
async function leaseCommands(jobs: DerivedJobs, now: number): Promise<DerivedJobCommand[]> {
  const { db } = jobs.ctx;
  const until = new Date(now + LEASE_MS);
  const leased = await db.$queryRaw<{ id: string }[]>`
    UPDATE "DerivedJobCommand" SET status = 'RUNNING', "leasedUntil" = ${until}, attempts = attempts + 1, "updatedAt" = now()
    WHERE id IN (
      SELECT id FROM "DerivedJobCommand"
      WHERE status = 'PENDING' OR (status = 'RUNNING' AND "leasedUntil" < ${new Date(now)})
      ORDER BY "createdAt" LIMIT 5 FOR UPDATE SKIP LOCKED
    ) RETURNING id`;
  if (leased.length === 0) return [];
  return db.derivedJobCommand.findMany({ where: { id: { in: leased.map((l) => l.id) } }, orderBy: { createdAt: "asc" } });
}

export async function runJobCommands(jobs: DerivedJobs, now: number): Promise<void> {
  for (const command of await leaseCommands(jobs, now)) {
    try {
      await carryOut(jobs, command);
    } catch (error) {
      const message = redactLogins(errorMessage(error)).slice(0, 2_000);
      jobs.ctx.log.warn("derived product's job command failed", { productId: command.productId, commandId: command.id, kind: command.kind, error: message });
      await finish(jobs, command, "FAILED", { error: message, progress: `Not done: ${message}`.slice(0, 2_000) }, "derived.job-command-failed", `The ${command.kind.toLowerCase()} of the Flink job failed`, message);
    }
  }
}

async function progress(jobs: DerivedJobs, command: DerivedJobCommand, text: string, data: { savepointPath?: string; toJobId?: string } = {}): Promise<void> {
  await jobs.ctx.db.derivedJobCommand.update({ where: { id: command.id }, data: { progress: text, ...data } });
}

async function carryOut(jobs: DerivedJobs, command: DerivedJobCommand): Promise<void> {
  const { db } = jobs.ctx;
  const row = await db.derivedProduct.findUnique({ where: { productId: command.productId } });
  if (!row) throw new CommandRefused("The product is no longer derived.");
  if (row.jobStoppedAt) throw new CommandRefused(`The job was stopped: ${row.jobStopReason ?? "it must no longer run"}`);
  switch (command.kind) {
    case "PAUSE":
      return pause(jobs, command, row);
    case "RESUME":
      return resume(jobs, command, row);
    case "REPLAY":
      return replay(jobs, command, row);
    case "STATEMENT":
      return changeStatement(jobs, command, row);
    default:
      throw new CommandRefused(`Unknown job command ${command.kind}.`);
  }
}

type Row = DerivedProduct;

async function pause(jobs: DerivedJobs, command: DerivedJobCommand, row: Row): Promise<void> {
  if (row.jobPausedAt) throw new CommandRefused("The job is paused already.");
  if (!row.jobId) throw new CommandRefused("The job is not deployed.");
  const jobId = row.jobId;
  let location = command.savepointPath;
  if (!location) {
    await progress(jobs, command, `Stopping job ${jobId} with a savepoint…`);
    location = (await savepointTaken(jobs, jobId)) ?? (await stopDerivedJobWithSavepoint(jobs.flink.restUrl, jobId, jobs.flink.savepointDir ? { targetDirectory: jobs.flink.savepointDir } : {}));
    await progress(jobs, command, `Job ${jobId} stopped; its savepoint is at ${location}.`, { savepointPath: location });
  }
  const paused = await jobs.ctx.db.derivedProduct.updateMany({
    where: { productId: command.productId, jobId, jobPausedAt: null, jobStoppedAt: null },
    data: { jobState: "PAUSED", jobPausedAt: new Date(), jobSavepointPath: location, jobError: null },
  });
  if (paused.count !== 1) throw new CommandRefused("The job changed while it was being paused.");
  await finish(jobs, { ...command, savepointPath: location }, "DONE", { progress: `Paused; savepoint at ${location}.`, savepointPath: location }, "derived.job-paused", "The Flink job was paused", `Stopped with a savepoint (${location}); resume continues from it.`, { jobId, savepointPath: location });
}

/**
 * A job that was already stopped with a savepoint (a worker died before
 * recording it): Flink's checkpoint statistics keep the savepoint's path.
 */
async function savepointTaken(jobs: DerivedJobs, jobId: string): Promise<string | null> {
  const base = `${jobs.flink.restUrl.replace(/\/+$/, "")}/jobs/${encodeURIComponent(jobId)}`;
  const job = await fetch(base, { signal: AbortSignal.timeout(15_000) });
  if (job.status === 404) throw new CommandRefused(`Flink no longer knows job ${jobId}; nothing to pause.`);
  if (!job.ok) return null;
  const state = ((await job.json()) as { state: string }).state;
  if (state !== "FINISHED") {
    if (state === "CANCELED" || state === "FAILED") throw new CommandRefused(`The job is ${state} in Flink: there is nothing to pause (replay starts it again).`);
    return null;
  }
  const stats = await fetch(`${base}/checkpoints`, { signal: AbortSignal.timeout(15_000) });
  const latest = stats.ok ? ((await stats.json()) as { latest?: { savepoint?: { external_path?: string } | null } }).latest?.savepoint?.external_path : undefined;
  if (!latest) throw new CommandRefused(`Job ${jobId} finished without a savepoint Flink reports.`);
  return latest;
}

async function resume(jobs: DerivedJobs, command: DerivedJobCommand, row: Row): Promise<void> {
  const savepoint = row.jobSavepointPath;
  if (!row.jobPausedAt || !savepoint) throw new CommandRefused("The job is not paused.");
  const reason = (await stopReasons(jobs.ctx.db, [command.productId])).get(command.productId);
  if (reason) throw new CommandRefused(`It must not run: ${reason}`);
  await progress(jobs, command, `Starting the job from savepoint ${savepoint}…`, { savepointPath: savepoint });
  const { spec } = await jobs.jobSpec(command.productId, { restoreFrom: savepoint });
  const jobId = (await jobs.runningJobNamed(spec.jobName!)) ?? (await startDerivedJob(spec));
  await started(jobs, command, row, jobId, {});
  await finish(jobs, command, "DONE", { progress: `Resumed from ${savepoint} as job ${jobId}.`, toJobId: jobId }, "derived.job-resumed", "The Flink job was resumed", `Job ${jobId} continues from the savepoint ${savepoint}.`, { fromJobId: row.jobId, jobId, savepointPath: savepoint });
}

async function replay(jobs: DerivedJobs, command: DerivedJobCommand, row: Row): Promise<void> {
  const from = command.replayFrom ?? "earliest";
  const startup = from === "earliest" ? ({ mode: "earliest-offset" } as const) : ({ mode: "timestamp", millis: Date.parse(from) } as const);
  if (startup.mode === "timestamp" && !Number.isFinite(startup.millis)) throw new CommandRefused(`The replay point ${from} is not a date and time.`);
  const reason = (await stopReasons(jobs.ctx.db, [command.productId])).get(command.productId);
  if (reason) throw new CommandRefused(`It must not run: ${reason}`);
  const { db } = jobs.ctx;
  const account = row.serviceAccountId ? await db.serviceAccount.findUnique({ where: { id: row.serviceAccountId }, select: { name: true } }) : null;
  if (!account) throw new CommandRefused("The job has no account yet.");
  // A new group under the account's prefix (its READ grant covers it): the replayed job's offsets are its own.
  const groupId = `${consumerGroupPrefix(account.name)}replay-${command.id.slice(-10)}`;
  // The running job's state is what is being recomputed: cancelled, no savepoint. A paused job has nothing running.
  if (row.jobId && !row.jobPausedAt && command.toJobId === null) {
    await progress(jobs, command, `Cancelling job ${row.jobId} (its results are recomputed, no savepoint)…`);
    await cancelDerivedJob(jobs.flink.restUrl, row.jobId);
  }
  await progress(jobs, command, `Starting the job from ${from === "earliest" ? "the inputs' earliest offsets" : from} under the consumer group ${groupId}…`);
  const { spec } = await jobs.jobSpec(command.productId, { startup, groupId });
  const jobId = (await jobs.runningJobNamed(spec.jobName!)) ?? (await startDerivedJob(spec));
  await progress(jobs, command, `Job ${jobId} started; recording it…`, { toJobId: jobId });
  await started(jobs, command, row, jobId, { jobGroupId: groupId });
  await finish(
    jobs,
    command,
    "DONE",
    { progress: `Replaying from ${from} as job ${jobId} (group ${groupId}).`, toJobId: jobId },
    "derived.job-replayed",
    "The Flink job is replaying",
    `Job ${jobId} recomputes from ${from === "earliest" ? "the inputs' earliest offsets" : from}; its results are appended to the topic again, after the earlier ones.`,
    { fromJobId: row.jobId, jobId, from, groupId },
  );
}

/** Flink's words for a savepoint whose state the new job has no operator for (refused unless told to drop it). */
const UNCLAIMED_STATE = /allowNonRestoredState|ignore-unclaimed-state|Cannot map checkpoint\/savepoint state/i;

/**
 * STATEMENT (an approved DERIVED_STATEMENT change): the running job is
 * stopped with a savepoint, and the product's new statement (on its row since
 * the approval) is submitted restoring it — Flink maps the savepoint's state
 * to the new job's operators by their ids, so a statement whose operators
 * keep their shape (a changed filter or projection) goes on with its open
 * windows. Where Flink refuses state the new statement has no operator for,
 * it is submitted again letting Flink drop that state (restored partly, said
 * in the note); where Flink cannot restore at all (state the new operators
 * cannot read), the new statement starts without state from the offsets the
 * old job's consumer group committed with its savepoint, and the job panel
 * says so (`restoredFromSavepoint: false` with Flink's reason). Every input
 * reads from those committed offsets whenever its position is not restored,
 * so nothing is skipped; Flink commits them with completed checkpoints, best
 * effort (a job restored from a savepoint was seen not to advance them), so
 * what was read after the last commit is read again and its windows may be
 * written a second time.
 */
async function changeStatement(jobs: DerivedJobs, command: DerivedJobCommand, row: Row): Promise<void> {
  if (row.jobPausedAt) throw new CommandRefused("The job is paused; a new statement changes a running job.");
  if (!row.jobId) throw new CommandRefused("The job is not deployed.");
  if (command.statementVersion !== null && row.statementVersion !== command.statementVersion) throw new CommandRefused(`The product's statement is version ${row.statementVersion} now, not ${command.statementVersion}.`);
  const reason = (await stopReasons(jobs.ctx.db, [command.productId])).get(command.productId);
  if (reason) throw new CommandRefused(`It must not run: ${reason}`);
  const version = row.statementVersion;
  const oldJob = row.jobId;
  // Before the old job stops: the new statement's inputs must still be readable (jobSpec refuses one the domain lost), and its account may read them.
  const startup = { mode: "group-offsets" } as const;
  const { spec: plain } = await jobs.jobSpec(command.productId, { startup });
  if (row.serviceAccountId) await reconcilePrincipalAcls(jobs.ctx, row.serviceAccountId);
  let savepoint = command.savepointPath;
  if (!savepoint) {
    await progress(jobs, command, `Stopping job ${oldJob} (statement version ${row.jobStatementVersion ?? 1}) with a savepoint…`);
    savepoint = (await savepointTaken(jobs, oldJob)) ?? (await stopDerivedJobWithSavepoint(jobs.flink.restUrl, oldJob, jobs.flink.savepointDir ? { targetDirectory: jobs.flink.savepointDir } : {}));
    await progress(jobs, command, `Job ${oldJob} stopped; its savepoint is at ${savepoint}.`, { savepointPath: savepoint });
  }
  const attempt = async (label: string, spec: DerivedJobSpec) => {
    await progress(jobs, command, label);
    const adopted = await jobs.runningJobNamed(spec.jobName!);
    let jobId: string;
    try {
      jobId = adopted ?? (await startDerivedJob(spec));
    } catch (error) {
      // A refusal at submission (the gateway answers Flink's restore error): the same as a job that failed to start.
      return { jobId: null, start: { running: false as const, state: "NOT_STARTED", reason: redactLogins(errorMessage(error)).slice(0, 1_000) } };
    }
    // A job that neither runs nor fails in time counts as not started (it is cancelled before the next attempt).
    const start = await awaitJobRunning(jobs.flink.restUrl, jobId).catch((error: unknown) => ({ running: false as const, state: "UNKNOWN", reason: redactLogins(errorMessage(error)).slice(0, 1_000) }));
    return { jobId, start };
  };
  const restoring: DerivedJobSpec = { ...plain, restoreFrom: savepoint };
  let result = await attempt(`Starting statement version ${version} from savepoint ${savepoint}…`, restoring);
  let restored: boolean;
  let note: string | null = null;
  const refusal = (r: typeof result) => (r.start.running ? "" : r.start.reason);
  if (!result.start.running && UNCLAIMED_STATE.test(refusal(result))) {
    const first = refusal(result);
    if (result.jobId) await cancelDerivedJob(jobs.flink.restUrl, result.jobId);
    result = await attempt(`Flink refused state the new statement has no operator for; starting statement version ${version} from ${savepoint} without it…`, { ...restoring, ignoreUnclaimedState: true });
    note = `Restored partly: Flink dropped the savepoint's state of operators the new statement no longer has (${first}); inputs whose position was not restored read from the job's committed offsets.`;
  }
  if (result.start.running) {
    restored = true;
  } else {
    const why = refusal(result);
    if (result.jobId) await cancelDerivedJob(jobs.flink.restUrl, result.jobId);
    result = await attempt(`Flink could not restore the savepoint (${why}); starting statement version ${version} without state from the job's committed input offsets (group ${plain.groupId})…`, plain);
    if (!result.start.running) {
      if (result.jobId) await cancelDerivedJob(jobs.flink.restUrl, result.jobId).catch(() => "");
      throw new Error(`Statement version ${version} did not start, with or without the savepoint ${savepoint}: ${refusal(result)}`);
    }
    restored = false;
    note = `Flink could not restore the savepoint ${savepoint}: ${why}. The new statement started without state from the offsets the old job's consumer group ${plain.groupId} committed: windows open at the change start afresh, and what was read since the group's last commit is read again.`;
  }
  const jobId = result.jobId!;
  await progress(jobs, command, `Job ${jobId} runs statement version ${version}; recording it…`, { toJobId: jobId });
  await started(jobs, command, row, jobId, { jobStatementVersion: version, jobRestoredFromSavepoint: restored, jobRestoreNote: note });
  await finish(
    jobs,
    command,
    "DONE",
    { progress: restored ? `Statement version ${version} runs as job ${jobId}, restored from ${savepoint}${note ? " (partly)" : ""}.` : `Statement version ${version} runs as job ${jobId}, without the old job's state (from the committed input offsets).`, toJobId: jobId },
    "derived.job-statement-changed",
    `The Flink job runs statement version ${version}`,
    restored ? `Job ${jobId} continues from the savepoint ${savepoint} of job ${oldJob}.${note ? ` ${note}` : ""}` : (note ?? ""),
    { fromJobId: oldJob, jobId, savepointPath: savepoint, statementVersion: version, restoredFromSavepoint: restored, ...(note ? { restoreNote: note } : {}) },
  );
}

/** The new job on the product's row: it runs (the observer reads it from the next cycle on), nothing paused any more. */
async function started(
  jobs: DerivedJobs,
  command: DerivedJobCommand,
  row: Pick<Row, "jobId">,
  jobId: string,
  data: { jobGroupId?: string; jobStatementVersion?: number; jobRestoredFromSavepoint?: boolean | null; jobRestoreNote?: string | null },
): Promise<void> {
  const updated = await jobs.ctx.db.derivedProduct.updateMany({
    where: { productId: command.productId, jobId: row.jobId, jobStoppedAt: null },
    data: { jobId, jobState: "CREATED", jobStartedAt: null, jobPausedAt: null, jobSavepointPath: null, jobError: null, jobObservedAt: null, ...data },
  });
  if (updated.count !== 1) throw new CommandRefused(`The job changed while job ${jobId} was started; it is left running for the next cycle to adopt.`);
}

async function finish(
  jobs: DerivedJobs,
  command: DerivedJobCommand,
  status: "DONE" | "FAILED",
  data: { progress: string; error?: string; savepointPath?: string; toJobId?: string },
  kind: NotificationKind,
  title: string,
  body: string,
  audit: Record<string, unknown> = {},
): Promise<void> {
  await jobs.ctx.db.$transaction(async (tx) => {
    await tx.derivedJobCommand.update({ where: { id: command.id }, data: { status, leasedUntil: null, finishedAt: new Date(), ...data } });
    const product = await tx.dataProduct.findUniqueOrThrow({ where: { id: command.productId }, select: { name: true, domainId: true, topicName: true } });
    const action =
      status === "FAILED"
        ? "derivedProduct.jobCommandFailed"
        : ({ PAUSE: "derivedProduct.jobPaused", RESUME: "derivedProduct.jobResumed", REPLAY: "derivedProduct.jobReplayed", STATEMENT: "derivedProduct.jobStatementChanged" } as Record<string, string>)[command.kind] ?? "derivedProduct.jobCommandDone";
    await auditAsWorker(tx, action, "DataProduct", command.productId, { commandId: command.id, kind: command.kind, ...audit, ...(data.error ? { error: data.error } : {}) });
    await notify(tx, {
      kind,
      title: `${title}: ${product.name}`,
      body,
      link: `/products/${command.productId}`,
      entityType: "DataProduct",
      entityId: command.productId,
      audience: { domainMembers: [product.domainId] },
      webhookDomains: [product.domainId],
      data: { topic: product.topicName, commandId: command.id, kind: command.kind, ...audit },
    });
  });
}
