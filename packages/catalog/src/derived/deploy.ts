/*
 * Starting and observing a derived product's job on a Flink session cluster:
 * through the SQL Gateway (the statement, with its input and output tables
 * generated from the catalog, as one INSERT INTO the product's topic) and
 * Flink's REST API (the job's state and metrics). The worker calls these; the
 * catalog only generates the text.
 */
import { schemaFields } from "../schema/fields.ts";
import { inputTableDdl, outputTableDdl, quoteIdentifier, type KafkaConnection, type OutputColumn, type StartupPosition } from "./flink-tables.ts";
import { SqlGatewayClient } from "./sql-gateway.ts";

export interface DerivedJobSpec {
  gatewayUrl: string;
  /** The job's Kafka login: a service account of the product's domain (READ on the inputs, WRITE on the output). */
  connection: KafkaConnection;
  statement: string;
  inputs: { topicName: string; format: "AVRO" | "JSON_SCHEMA"; definition: string }[];
  outputTopic: string;
  outputColumns: OutputColumn[];
  /** The consumer group the job's Kafka source uses (under the account's group prefix). */
  groupId: string;
  /** Prefix of the Kafka transactional ids of the exactly-once sink (under the account's prefix). */
  transactionalIdPrefix: string;
  /** Shown as the job's name in Flink (`kappa-derived:<topic>`). */
  jobName?: string;
  /** Resume: the savepoint to restore the job's state from (`execution.state-recovery.path`); the inputs' positions come from it. */
  restoreFrom?: string;
  /**
   * With restoreFrom: let Flink drop the savepoint's state of operators the job no longer has
   * (`execution.state-recovery.ignore-unclaimed-state`, the CLI's --allowNonRestoredState) instead of refusing it.
   */
  ignoreUnclaimedState?: boolean;
  /** Without restored state, where each input is read from (default: its earliest offset). */
  startup?: StartupPosition;
}

/** Submits the statement as a streaming job writing into the product's topic; answers Flink's job id. The job runs on after the session closes. */
export async function startDerivedJob(spec: DerivedJobSpec): Promise<string> {
  const gateway = new SqlGatewayClient({ url: spec.gatewayUrl });
  const session = await gateway.openSession(
    {
      "table.dynamic-table-options.enabled": "false",
      "execution.runtime-mode": "streaming",
      "table.local-time-zone": "UTC",
      // A partition with no traffic must not hold every window open.
      "table.exec.source.idle-timeout": "10 s",
      "pipeline.name": spec.jobName ?? `kappa-derived:${spec.outputTopic}`,
      // Flink 2.x's key (execution.savepoint.path is its deprecated alias): the job submitted in this session restores this savepoint.
      ...(spec.restoreFrom ? { "execution.state-recovery.path": spec.restoreFrom, "execution.state-recovery.ignore-unclaimed-state": spec.ignoreUnclaimedState ? "true" : "false" } : {}),
    },
    `kappa-derived:${spec.outputTopic}`,
  );
  try {
    for (const input of spec.inputs) await gateway.execute(session, inputTableDdl({ topicName: input.topicName, format: input.format, fields: schemaFields(input.format, input.definition) }, spec.connection, spec.groupId, spec.startup));
    await gateway.execute(session, outputTableDdl("kappa_derived_output", spec.outputTopic, spec.outputColumns, spec.connection, spec.transactionalIdPrefix));
    await gateway.execute(session, `CREATE TEMPORARY VIEW ${quoteIdentifier("kappa_derived_statement")} AS\n${spec.statement}`);
    const submitted = await gateway.execute(session, "INSERT INTO `kappa_derived_output` SELECT * FROM `kappa_derived_statement`", { untilJobId: true });
    if (!submitted.jobId) throw new Error("Flink accepted the statement but answered no job id.");
    return submitted.jobId;
  } finally {
    await gateway.closeSession(session);
  }
}

export interface DerivedJobStatus {
  state: string;
  jobId: string;
  startedAt: string | null;
  recordsInPerSecond: number | null;
  recordsOutPerSecond: number | null;
  watermarkLagMs: number | null;
  lastCheckpointAt: string | null;
  /** Where Flink wrote the last completed checkpoint (`external_path`): what a redeploy restores after Flink lost the job. */
  lastCheckpointPath?: string | null;
  restarts: number | null;
  error: string | null;
}

/** Flink's REST API answered, and does not know the job (404): a session cluster restarted without HA keeps no jobs. Not thrown when Flink is unreachable. */
export class FlinkJobNotFoundError extends Error {
  constructor(readonly jobId: string) {
    super(`Flink does not know job ${jobId} (its REST API answered 404): the cluster restarted and lost it.`);
    this.name = "FlinkJobNotFoundError";
  }
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(15_000) });
  if (!response.ok) throw new Error(`Flink's REST API answered ${url} with ${response.status}`);
  return (await response.json()) as T;
}

interface JobDetails {
  jid: string;
  state: string;
  "start-time": number;
  vertices: { id: string; name: string; metrics?: Record<string, number> }[];
}

/**
 * A job as Flink's REST API sees it: state, start, records per second out of
 * its source task (`numRecordsOutPerSecond` of the first vertex) and into its
 * last task, the one that writes the topic (`numRecordsInPerSecond`), how far its watermark is behind the wall clock,
 * its last completed checkpoint, restarts (`numRestarts`) and the root
 * exception when it failed.
 */
export async function derivedJobStatus(restUrl: string, jobId: string, now = Date.now()): Promise<DerivedJobStatus> {
  const base = restUrl.replace(/\/+$/, "");
  const found = await fetch(`${base}/jobs/${encodeURIComponent(jobId)}`, { signal: AbortSignal.timeout(15_000) });
  if (found.status === 404) throw new FlinkJobNotFoundError(jobId);
  if (!found.ok) throw new Error(`Flink's REST API answered ${base}/jobs/${jobId} with ${found.status}`);
  const job = (await found.json()) as JobDetails;
  const metric = async (path: string, names: string[]) => {
    try {
      const values = await getJson<{ id: string; value?: string; max?: number; sum?: number }[]>(`${base}${path}?get=${names.join(",")}`);
      return Object.fromEntries(values.map((v) => [v.id, Number(v.value ?? v.sum ?? v.max)]));
    } catch {
      return {} as Record<string, number>;
    }
  };
  const none: Record<string, number> = {};
  const first = job.vertices[0];
  const last = job.vertices.at(-1);
  const [inRates, outRates, jobMetrics, checkpoints, exceptions] = await Promise.all([
    first ? metric(`/jobs/${jobId}/vertices/${first.id}/subtasks/metrics`, ["numRecordsOutPerSecond"]) : none,
    last ? metric(`/jobs/${jobId}/vertices/${last.id}/subtasks/metrics`, ["numRecordsInPerSecond"]) : none,
    metric(`/jobs/${jobId}/metrics`, ["numRestarts"]),
    getJson<{ latest?: { completed?: { latest_ack_timestamp?: number; external_path?: string } | null } }>(`${base}/jobs/${jobId}/checkpoints`).catch(() => null),
    getJson<{ exceptionHistory?: { entries?: { exceptionName?: string; stacktrace?: string }[] } }>(`${base}/jobs/${jobId}/exceptions`).catch(() => null),
  ]);
  const lowWatermark = await getJson<{ id: string; value: string }[]>(`${base}/jobs/${jobId}/vertices/${last?.id ?? ""}/watermarks`)
    .then((rows) => Math.min(...rows.map((r) => Number(r.value))))
    .catch(() => NaN);
  const ackedAt = checkpoints?.latest?.completed?.latest_ack_timestamp;
  const rootException = exceptions?.exceptionHistory?.entries?.[0];
  const finite = (v: number | undefined) => (typeof v === "number" && Number.isFinite(v) ? v : null);
  const validWatermark = Number.isFinite(lowWatermark) && lowWatermark > 0 && lowWatermark < 8.64e15;
  return {
    state: job.state,
    jobId: job.jid,
    startedAt: job["start-time"] > 0 ? new Date(job["start-time"]).toISOString() : null,
    recordsInPerSecond: finite(inRates.numRecordsOutPerSecond),
    recordsOutPerSecond: finite(outRates.numRecordsInPerSecond),
    watermarkLagMs: validWatermark ? Math.max(0, now - lowWatermark) : null,
    lastCheckpointAt: ackedAt ? new Date(ackedAt).toISOString() : null,
    lastCheckpointPath: checkpoints?.latest?.completed?.external_path ?? null,
    restarts: finite(jobMetrics.numRestarts),
    error: job.state === "FAILED" || job.state === "RESTARTING" || job.state === "FAILING" ? (rootException?.stacktrace?.split("\n")[0] ?? rootException?.exceptionName ?? null) : null,
  };
}

/** Job states from which Flink will not run the job again (nothing left to cancel). */
export const TERMINAL_JOB_STATES = ["CANCELED", "FAILED", "FINISHED"] as const;

/**
 * Cancels a job through Flink's REST API (`PATCH /jobs/:id?mode=cancel`) and
 * waits until Flink reports it in a terminal state; answers that state. A job
 * Flink no longer knows (404: a restarted session cluster keeps no history)
 * counts as gone. Idempotent: cancelling a terminal job changes nothing.
 */
export async function cancelDerivedJob(restUrl: string, jobId: string, timeoutMs = 60_000): Promise<string> {
  const base = `${restUrl.replace(/\/+$/, "")}/jobs/${encodeURIComponent(jobId)}`;
  const state = async (): Promise<string | null> => {
    const response = await fetch(base, { signal: AbortSignal.timeout(15_000) });
    if (response.status === 404) return null;
    if (!response.ok) throw new Error(`Flink's REST API answered GET /jobs/${jobId} with ${response.status}`);
    return ((await response.json()) as { state: string }).state;
  };
  const isTerminal = (s: string | null) => s === null || (TERMINAL_JOB_STATES as readonly string[]).includes(s);
  let current = await state();
  if (isTerminal(current)) return current ?? "GONE";
  const cancelled = await fetch(`${base}?mode=cancel`, { method: "PATCH", signal: AbortSignal.timeout(15_000) });
  if (!cancelled.ok && cancelled.status !== 404) throw new Error(`Flink's REST API refused to cancel job ${jobId}: ${cancelled.status} ${(await cancelled.text()).slice(0, 300)}`);
  const deadline = Date.now() + timeoutMs;
  while (!isTerminal((current = await state()))) {
    if (Date.now() > deadline) throw new Error(`Flink did not cancel job ${jobId} within ${timeoutMs / 1000} s (it is ${current}).`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return current ?? "GONE";
}

/**
 * Stops a job with a savepoint through Flink's REST API (`POST /jobs/:id/stop`,
 * `drain: false` so that open windows stay open in the savepoint instead of
 * being fired early; then polls `GET /jobs/:id/savepoints/:trigger` until the
 * operation completes) and answers the savepoint's location. Without
 * `targetDirectory` Flink writes it under the cluster's
 * `execution.checkpointing.savepoint-dir`. Answers once the job has finished
 * too. Flink's failure cause is thrown.
 */
export async function stopDerivedJobWithSavepoint(restUrl: string, jobId: string, options: { targetDirectory?: string; timeoutMs?: number } = {}): Promise<string> {
  const base = `${restUrl.replace(/\/+$/, "")}/jobs/${encodeURIComponent(jobId)}`;
  const triggered = await fetch(`${base}/stop`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ drain: false, ...(options.targetDirectory ? { targetDirectory: options.targetDirectory } : {}) }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await triggered.text();
  if (!triggered.ok) throw new Error(`Flink's REST API refused to stop job ${jobId} with a savepoint: ${triggered.status} ${flinkRestError(text)}`);
  const trigger = (JSON.parse(text) as { "request-id"?: string })["request-id"];
  if (!trigger) throw new Error(`Flink's REST API answered no request id for stopping job ${jobId}.`);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await getJson<{ status?: { id?: string }; operation?: { location?: string; "failure-cause"?: { "stack-trace"?: string; "serialized-throwable"?: string } } }>(`${base}/savepoints/${encodeURIComponent(trigger)}`);
    if (status.status?.id === "COMPLETED") {
      const failure = status.operation?.["failure-cause"];
      if (failure || !status.operation?.location) throw new Error(`Flink could not stop job ${jobId} with a savepoint: ${failure?.["stack-trace"]?.split("\n")[0] ?? "no savepoint location answered"}`);
      // The savepoint is complete before the job has finished: wait for that, so no second job of this name overlaps it.
      while (!(TERMINAL_JOB_STATES as readonly string[]).includes((await getJson<{ state: string }>(base)).state)) {
        if (Date.now() > deadline) throw new Error(`Job ${jobId} did not finish within ${timeoutMs / 1000} s of its savepoint.`);
        await new Promise((r) => setTimeout(r, 250));
      }
      return status.operation.location;
    }
    if (Date.now() > deadline) throw new Error(`Flink did not finish the savepoint of job ${jobId} within ${timeoutMs / 1000} s.`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function flinkRestError(text: string): string {
  try {
    const errors = (JSON.parse(text) as { errors?: unknown }).errors;
    if (Array.isArray(errors)) return errors.map((e) => String(e).split("\n")[0]).join("; ").slice(0, 500);
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 500);
}

/** The root cause in a Java stack trace, as one line: the deepest `Caused by:` (or the first exception), its class's simple name and message. */
export function rootCause(stacktrace: string): string {
  const headers = stacktrace.split("\n").filter((l) => /^(?:Caused by: )?[a-z][\w$]*(?:\.[\w$]+)+(?:Exception|Error)(?::|$)/.test(l.trim()));
  const root = (headers.at(-1) ?? stacktrace.split("\n")[0] ?? "").trim().replace(/^Caused by: /, "");
  return root.replace(/^[a-z][\w$]*(?:\.[a-z][\w$]*)*\.(?=[A-Z])/, "").slice(0, 1_000);
}

export type JobStart = { running: true; restoredFrom: string | null } | { running: false; state: string; reason: string };

/**
 * Waits until a just-submitted job runs — every task RUNNING, its state
 * restored (Flink restores state while a task initialises) — or fails first:
 * the job FAILED, or an exception in its history (a restart: e.g. state the
 * new operators cannot read). Answers where Flink restored it from (the
 * checkpoint statistics' `latest.restored.external_path`), or Flink's root
 * cause. Throws when neither happens within the time given.
 */
export async function awaitJobRunning(restUrl: string, jobId: string, timeoutMs = 180_000): Promise<JobStart> {
  const base = `${restUrl.replace(/\/+$/, "")}/jobs/${encodeURIComponent(jobId)}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await getJson<{ state: string; vertices: { status?: string }[] }>(base);
    const exceptions = await getJson<{ exceptionHistory?: { entries?: { exceptionName?: string; stacktrace?: string }[] }; "root-exception"?: string | null }>(`${base}/exceptions`).catch(() => null);
    const entry = exceptions?.exceptionHistory?.entries?.[0];
    const trace = entry?.stacktrace ?? exceptions?.["root-exception"] ?? null;
    if (trace || (TERMINAL_JOB_STATES as readonly string[]).includes(job.state) || job.state === "RESTARTING" || job.state === "FAILING") {
      if (trace || job.state !== "RESTARTING") return { running: false, state: job.state, reason: trace ? rootCause(trace) : `the job is ${job.state}` };
    }
    if (job.state === "RUNNING" && job.vertices.length > 0 && job.vertices.every((v) => v.status === "RUNNING")) {
      const checkpoints = await getJson<{ latest?: { restored?: { external_path?: string } | null } }>(`${base}/checkpoints`).catch(() => null);
      return { running: true, restoredFrom: checkpoints?.latest?.restored?.external_path ?? null };
    }
    if (Date.now() > deadline) throw new Error(`Job ${jobId} did not run within ${timeoutMs / 1000} s (it is ${job.state}).`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
