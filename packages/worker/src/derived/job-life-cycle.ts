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
 *   When a new statement was approved while the job was paused, the resume
 *   runs it by the rule of a running job's STATEMENT (startNewStatement: from
 *   the pause's savepoint where Flink can restore it, else without state from
 *   the committed offsets, else rolled back to the old statement resumed from
 *   the savepoint).
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
import { Prisma, type DerivedJobCommand, type DerivedProduct } from "@prisma/client";
import { awaitJobRunning, CatalogError, cancelDerivedJob, consumerGroupPrefix, notify, planDerivedStatement, resolveDerivedInputs, startDerivedJob, stopDerivedJobWithSavepoint, type DerivedJobSpec, type JobStart, type NotificationKind } from "@kappa/catalog";
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
  // A new statement approved while it was paused: it runs now, by the rule of a running job's new statement.
  if (row.statementVersion !== (row.jobStatementVersion ?? 1)) return resumeNewStatement(jobs, command, row, savepoint);
  await progress(jobs, command, `Starting the job from savepoint ${savepoint}…`, { savepointPath: savepoint });
  const { spec } = await jobs.jobSpec(command.productId, { restoreFrom: savepoint });
  const jobId = (await jobs.runningJobNamed(spec.jobName!)) ?? (await startDerivedJob(spec));
  await started(jobs, command, row, jobId, { jobRestoredFromSavepoint: null, jobRestoreNote: null });
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
  // The product's current statement (one approved while the job was paused included), without restored state.
  await started(jobs, command, row, jobId, { jobGroupId: groupId, jobStatementVersion: row.statementVersion, jobRestoredFromSavepoint: null, jobRestoreNote: null });
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
 * STATEMENT (an approved DERIVED_STATEMENT change of a running job): the new
 * statement (on the product's row since the approval) is planned again by
 * Flink against its inputs' approved schemas as they are now — one that no
 * longer plans is refused before anything stops, the old job left running.
 * Then the running job is stopped with a savepoint and the new statement is
 * started from it by startNewStatement's rule — the one a paused job's
 * resume follows too (resumeNewStatement).
 */
async function changeStatement(jobs: DerivedJobs, command: DerivedJobCommand, row: Row): Promise<void> {
  if (row.jobPausedAt) throw new CommandRefused("The job is paused; its new statement runs when it is resumed.");
  if (!row.jobId) throw new CommandRefused("The job is not deployed.");
  // A worker that died while rolling back: the old statement is what must run now (a job of the product's name is adopted).
  if (command.savepointPath && command.progress?.startsWith(ROLLING_BACK)) return rollBack(jobs, command, row, command.error ?? command.progress, command.savepointPath);
  if (command.statementVersion !== null && row.statementVersion !== command.statementVersion) throw new CommandRefused(`The product's statement is version ${row.statementVersion} now, not ${command.statementVersion}.`);
  const reason = (await stopReasons(jobs.ctx.db, [command.productId])).get(command.productId);
  if (reason) throw new CommandRefused(`It must not run: ${reason}`);
  const version = row.statementVersion;
  const oldJob = row.jobId;
  // Anything that fails before the old job stops leaves it running: the change is refused and the catalog keeps the job's version.
  let plain: DerivedJobSpec;
  try {
    plain = await plannedStatement(jobs, command, row, !command.savepointPath);
  } catch (error) {
    if (command.savepointPath) throw error;
    return rollBack(jobs, command, row, notStarted(error, version), null);
  }
  let savepoint = command.savepointPath;
  if (!savepoint) {
    await progress(jobs, command, `Stopping job ${oldJob} (statement version ${row.jobStatementVersion ?? 1}) with a savepoint…`);
    savepoint = (await savepointTaken(jobs, oldJob)) ?? (await stopDerivedJobWithSavepoint(jobs.flink.restUrl, oldJob, jobs.flink.savepointDir ? { targetDirectory: jobs.flink.savepointDir } : {}));
    await progress(jobs, command, `Job ${oldJob} stopped; its savepoint is at ${savepoint}.`, { savepointPath: savepoint });
  }
  const run = await startNewStatement(jobs, command, row, plain, savepoint);
  if (!run) return;
  const { jobId, restored, note } = run;
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

/**
 * RESUME of a job whose statement changed while it was paused: the new
 * statement is planned again against its inputs' schemas as they are now and
 * started from the pause's savepoint by startNewStatement's rule. One that no
 * longer plans, or starts neither way, is rolled back: the old statement
 * resumes from the savepoint (the resume done, the new version not run), the
 * command FAILED with the reason.
 */
async function resumeNewStatement(jobs: DerivedJobs, command: DerivedJobCommand, row: Row, savepoint: string): Promise<void> {
  if (command.progress?.startsWith(ROLLING_BACK)) return rollBack(jobs, command, row, command.error ?? command.progress, savepoint);
  const version = row.statementVersion;
  const oldVersion = row.jobStatementVersion ?? 1;
  let plain: DerivedJobSpec;
  try {
    plain = await plannedStatement(jobs, command, row, true);
  } catch (error) {
    return rollBack(jobs, command, row, notStarted(error, version), savepoint);
  }
  await progress(jobs, command, `Resuming with statement version ${version} (approved while the job was paused; it ran version ${oldVersion}) from savepoint ${savepoint}…`, { savepointPath: savepoint });
  const run = await startNewStatement(jobs, command, row, plain, savepoint);
  if (!run) return;
  const { jobId, restored, note } = run;
  await started(jobs, command, row, jobId, { jobStatementVersion: version, jobRestoredFromSavepoint: restored, jobRestoreNote: note });
  await finish(
    jobs,
    command,
    "DONE",
    {
      progress: restored
        ? `Resumed with statement version ${version} as job ${jobId}, restored from ${savepoint}${note ? " (partly)" : ""}.`
        : `Resumed with statement version ${version} as job ${jobId}, without the paused job's state (from the committed input offsets).`,
      toJobId: jobId,
    },
    "derived.job-resumed",
    `The Flink job was resumed with statement version ${version}`,
    restored ? `Job ${jobId} runs statement version ${version} (approved while paused), continuing from the savepoint ${savepoint} of job ${row.jobId}.${note ? ` ${note}` : ""}` : `Job ${jobId} runs statement version ${version} (approved while paused). ${note ?? ""}`.trim(),
    { fromJobId: row.jobId, jobId, savepointPath: savepoint, statementVersion: version, fromStatementVersion: oldVersion, restoredFromSavepoint: restored, ...(note ? { restoreNote: note } : {}) },
  );
}

/** Why a new statement version was not started, in words (a refusal's own, or Flink's). */
function notStarted(error: unknown, version: number): string {
  const message = redactLogins(errorMessage(error)).replace(/\.$/, "");
  return error instanceof CommandRefused ? message : `Statement version ${version} was not started: ${message}`;
}

/**
 * The product's statement ready to start from the committed offsets: its
 * inputs still readable (jobSpec refuses one the domain lost), planned again
 * by Flink against their approved schemas as they are now (`plan`; a 422
 * becomes a refusal), and its account granted what it reads.
 */
async function plannedStatement(jobs: DerivedJobs, command: DerivedJobCommand, row: Row, plan: boolean): Promise<DerivedJobSpec> {
  const version = row.statementVersion;
  const spec = await jobs.jobSpec(command.productId, { startup: { mode: "group-offsets" } });
  if (plan) {
    await progress(jobs, command, `Planning statement version ${version} against its inputs' current schemas…`);
    try {
      await planDerivedStatement({ gatewayUrl: jobs.flink.gatewayUrl, bootstrap: jobs.flink.bootstrap, registryUrl: jobs.flink.registryUrl }, spec.spec.statement, spec.resolved);
    } catch (error) {
      // 422: Flink's planner refuses it now (an input's schema changed since the approval).
      if (error instanceof CatalogError && error.status === 422) throw new CommandRefused(`Statement version ${version} no longer plans: ${error.message}`);
      throw error;
    }
  }
  if (row.serviceAccountId) await reconcilePrincipalAcls(jobs.ctx, row.serviceAccountId);
  return spec.spec;
}

/**
 * The rule for starting a new statement version from a savepoint of the job
 * that ran the old one — the running job's just taken (STATEMENT) or the
 * paused job's (RESUME after a change approved while paused). It is submitted
 * restoring the savepoint — Flink maps the state to the new job's operators
 * by their ids, so a statement whose operators keep their shape (a changed
 * filter or projection) goes on with its open windows. Where Flink refuses
 * state the new statement has no operator for, it is submitted again letting
 * Flink drop that state (restored partly, said in the note); where Flink
 * cannot restore at all (state the new operators cannot read), the new
 * statement starts without state from the offsets the old job's consumer
 * group committed, and the job panel says so (`restoredFromSavepoint: false`
 * with Flink's reason). Every input reads from those committed offsets
 * whenever its position is not restored, so nothing is skipped; what was read
 * after the group's last commit is read again and its windows may be written a
 * second time.
 *
 * A new statement that starts neither way is rolled back (answers null): the
 * old statement version is started again from the savepoint (nothing lost,
 * nothing recomputed), the catalog keeps that version current (the product's
 * statement, its lineage, and the schema versions approved for the newer ones
 * rejected), and the command fails with Flink's reason, audited and told to
 * the domain.
 */
async function startNewStatement(jobs: DerivedJobs, command: DerivedJobCommand, row: Row, plain: DerivedJobSpec, savepoint: string): Promise<{ jobId: string; restored: boolean; note: string | null } | null> {
  const version = row.statementVersion;
  const restoring: DerivedJobSpec = { ...plain, restoreFrom: savepoint };
  let result = await attemptStart(jobs, command, `Starting statement version ${version} from savepoint ${savepoint}…`, restoring);
  let note: string | null = null;
  if (!result.start.running && UNCLAIMED_STATE.test(refusal(result))) {
    const first = refusal(result);
    if (result.jobId) await cancelDerivedJob(jobs.flink.restUrl, result.jobId);
    result = await attemptStart(jobs, command, `Flink refused state the new statement has no operator for; starting statement version ${version} from ${savepoint} without it…`, { ...restoring, ignoreUnclaimedState: true });
    note = `Restored partly: Flink dropped the savepoint's state of operators the new statement no longer has (${first}); inputs whose position was not restored read from the job's committed offsets.`;
  }
  if (result.start.running) return { jobId: result.jobId!, restored: true, note };
  const why = refusal(result);
  if (result.jobId) await cancelDerivedJob(jobs.flink.restUrl, result.jobId);
  result = await attemptStart(jobs, command, `Flink could not restore the savepoint (${why}); starting statement version ${version} without state from the job's committed input offsets (group ${plain.groupId})…`, plain);
  if (!result.start.running) {
    if (result.jobId) await cancelDerivedJob(jobs.flink.restUrl, result.jobId).catch(() => "");
    const without = refusal(result);
    await rollBack(jobs, command, row, `Statement version ${version} did not start, with or without the savepoint ${savepoint}: ${without === why ? why : `${why}; without state: ${without}`}`, savepoint);
    return null;
  }
  note = `Flink could not restore the savepoint ${savepoint}: ${why}. The new statement started without state from the offsets the old job's consumer group ${plain.groupId} committed: windows open at the change start afresh, and what was read since the group's last commit is read again.`;
  return { jobId: result.jobId!, restored: false, note };
}

const ROLLING_BACK = "Rolling back:";

type Attempt = { jobId: string | null; start: JobStart };
const refusal = (r: Attempt) => (r.start.running ? "" : r.start.reason);

/** Submits a spec (or adopts the job of its name Flink already runs) and waits until it runs or fails; a refusal at submission counts as not started. */
async function attemptStart(jobs: DerivedJobs, command: DerivedJobCommand, label: string, spec: DerivedJobSpec): Promise<Attempt> {
  await progress(jobs, command, label);
  const adopted = await jobs.runningJobNamed(spec.jobName!);
  let jobId: string;
  try {
    jobId = adopted ?? (await startDerivedJob(spec));
  } catch (error) {
    // A refusal at submission (the gateway answers Flink's restore error): the same as a job that failed to start.
    return { jobId: null, start: { running: false, state: "NOT_STARTED", reason: redactLogins(errorMessage(error)).slice(0, 1_000) } };
  }
  // A job that neither runs nor fails in time counts as not started (it is cancelled before the next attempt).
  const start = await awaitJobRunning(jobs.flink.restUrl, jobId).catch((error: unknown): JobStart => ({ running: false, state: "UNKNOWN", reason: redactLogins(errorMessage(error)).slice(0, 1_000) }));
  return { jobId, start };
}

/**
 * The new statement version is not run: the job's statement version stays
 * current. With a savepoint (the old job was stopped) the old statement is
 * started again from it, writing the schema version it was approved with;
 * then the catalog goes back to that version (statement, lineage; the schema
 * versions approved for the newer statements, if any were, rejected), and the
 * command fails with `why`, audited and told to the domain. When the old
 * statement does not start again either, the job is left FAILED with both
 * reasons (the savepoint kept on the command for a later resume by hand).
 */
async function rollBack(jobs: DerivedJobs, command: DerivedJobCommand, row: Row, reason: string, savepoint: string | null): Promise<void> {
  const { db } = jobs.ctx;
  const why = reason.replace(/\.+$/, "");
  const oldVersion = row.jobStatementVersion ?? 1;
  const newVersion = command.statementVersion ?? row.statementVersion;
  const versions = await db.derivedStatementVersion.findMany({ where: { productId: command.productId, version: { in: [oldVersion, newVersion] } } });
  const old = versions.find((v) => v.version === oldVersion);
  const failed = versions.find((v) => v.version === newVersion);
  if (!old) throw new Error(`${why} Statement version ${oldVersion}, which the job ran, is not in the product's history: nothing to roll back to.`);
  const oldSchema = old.schemaVersion ?? (await db.schemaVersion.findFirst({ where: { productId: command.productId, status: "APPROVED", ...(failed?.schemaVersion && failed.schemaVersion !== old.schemaVersion ? { version: { lt: failed.schemaVersion } } : {}) }, orderBy: { version: "desc" }, select: { version: true } }))?.version;
  if (oldSchema === undefined) throw new Error(`${why} The schema version of statement version ${oldVersion} is unknown: nothing to roll back to.`);
  let jobId = row.jobId;
  let restartedFrom: string | null = null;
  if (savepoint) {
    await progress(jobs, command, `${ROLLING_BACK} ${why}. Starting statement version ${oldVersion} again from savepoint ${savepoint}…`, { savepointPath: savepoint });
    await db.derivedJobCommand.update({ where: { id: command.id }, data: { error: why.slice(0, 2_000) } });
    const { spec } = await jobs.jobSpec(command.productId, { restoreFrom: savepoint, statement: { text: old.statement, schemaVersion: oldSchema } });
    const result = await attemptStart(jobs, command, `${ROLLING_BACK} ${why}. Starting statement version ${oldVersion} again from savepoint ${savepoint}…`, spec);
    if (!result.start.running) {
      if (result.jobId) await cancelDerivedJob(jobs.flink.restUrl, result.jobId).catch(() => "");
      // A paused job stays PAUSED (its savepoint kept: resume tries again); a stopped running one is FAILED.
      await db.derivedProduct.updateMany({ where: { productId: command.productId, jobId: row.jobId }, data: { ...(row.jobPausedAt ? {} : { jobState: "FAILED" }), jobError: `Statement version ${oldVersion} did not start again from ${savepoint} either: ${refusal(result)}`.slice(0, 2_000) } });
      throw new Error(`${why} Rolling back, statement version ${oldVersion} did not start again from the savepoint ${savepoint} either: ${refusal(result)}`);
    }
    jobId = result.jobId!;
    restartedFrom = savepoint;
  }
  // The schema versions approved for the versions that did not run: this one, and those approved before it while the job was paused.
  const newer = await db.derivedStatementVersion.findMany({ where: { productId: command.productId, version: { gt: oldVersion, lte: newVersion } }, select: { schemaVersion: true } });
  const rejectSchemas = [...new Set([...newer.map((v) => v.schemaVersion), failed?.schemaVersion ?? null].filter((v): v is number => v !== null && v > oldSchema))].sort((a, b) => a - b);
  const rejectSchema = rejectSchemas.at(-1) ?? null;
  const oldInputs = await resolveDerivedInputs(db, (await db.dataProduct.findUniqueOrThrow({ where: { id: command.productId }, select: { domainId: true } })).domainId, old.statement).catch(() => null);
  await db.$transaction(async (tx) => {
    await tx.derivedProduct.update({
      where: { productId: command.productId },
      data: {
        statement: old.statement,
        statementVersion: oldVersion,
        ...(restartedFrom
          ? {
              jobId,
              jobState: "CREATED",
              jobStartedAt: null,
              jobPausedAt: null,
              jobSavepointPath: null,
              jobError: null,
              jobObservedAt: null,
              jobMetrics: Prisma.DbNull,
              jobStatementVersion: oldVersion,
              jobRestoredFromSavepoint: true,
              jobRestoreNote: `Rolled back to statement version ${oldVersion}, restored from the savepoint ${restartedFrom}: ${why}.`.slice(0, 2_000),
            }
          : {}),
      },
    });
    if (oldInputs) {
      await tx.productInput.deleteMany({ where: { productId: command.productId } });
      await tx.productInput.createMany({ data: oldInputs.map((i) => ({ productId: command.productId, inputProductId: i.productId })) });
    }
    if (rejectSchemas.length > 0) {
      await tx.schemaVersion.updateMany({
        where: { productId: command.productId, version: { in: rejectSchemas }, status: "APPROVED" },
        data: { status: "REJECTED", decidedAt: new Date(), decisionReason: `Statement version ${newVersion}, whose output it is, did not run: ${why}`.slice(0, 2_000) },
      });
    }
  });
  // The job account's grants follow the lineage back (the new statement's inputs were granted before the old job stopped).
  if (row.serviceAccountId) await reconcilePrincipalAcls(jobs.ctx, row.serviceAccountId);
  const kept = restartedFrom ? `Statement version ${oldVersion} runs again as job ${jobId}, restored from the savepoint ${restartedFrom} of job ${row.jobId}.` : `Job ${jobId} was not stopped and runs statement version ${oldVersion} on.`;
  await finish(
    jobs,
    command,
    "FAILED",
    { progress: `Rolled back: ${kept}`, error: why.slice(0, 2_000), ...(restartedFrom ? { toJobId: jobId! } : {}) },
    "derived.job-command-failed",
    `Statement version ${newVersion} did not run; the job runs version ${oldVersion}`,
    `${why}. ${kept}`,
    { fromJobId: row.jobId, jobId, statementVersion: newVersion, rolledBackTo: oldVersion, ...(restartedFrom ? { savepointPath: restartedFrom } : {}), ...(rejectSchema ? { rejectedSchemaVersion: rejectSchema } : {}) },
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
    // The figures read from the job before are not the new job's: none until the observer reads it.
    data: { jobId, jobState: "CREATED", jobStartedAt: null, jobPausedAt: null, jobSavepointPath: null, jobError: null, jobObservedAt: null, jobMetrics: Prisma.DbNull, ...data },
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
