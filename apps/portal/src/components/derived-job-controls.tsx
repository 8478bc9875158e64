"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from "react";
import { api, type ApiError } from "@/lib/api-client";
import type { ProductJob } from "@/lib/api-types";
import { formText } from "@/lib/form-text";
import { queryKeys } from "@/lib/query-keys";
import { DerivedStatementEditor } from "./derived-statement";
import { Ago } from "./relative-time";
import { Button, ErrorAlert, Field, inputClass, Notice } from "./ui";

/*
 * Pause, resume and replay of a derived product's Flink job (issue 34, life
 * cycle), for the owners of its domain: each asks the catalog
 * (POST /api/v1/products/{id}/job/pause|resume|replay) after a confirmation,
 * and the worker carries it out; the panel's polling shows its progress. The
 * server checks who may; the buttons only save a refusal.
 */

type Action = "pause" | "resume" | "replay" | "statement";
interface CommandAnswer {
  command: ProductJob["command"];
  changeRequest: { id: string; status: string } | null;
}

const OPEN = ["PENDING", "RUNNING"];
const KIND_WORD: Record<string, string> = { PAUSE: "Pause", RESUME: "Resume", REPLAY: "Replay", STATEMENT: "New statement" };

/** What the latest intent is doing (or why it failed): shown to everyone who sees the job. */
export function JobCommandStatus({ job }: { job: ProductJob }) {
  const c = job.command;
  return (
    <>
      {job.replayAwaitingReview && (
        <p className="rounded-md bg-sky-50 p-3 text-sm text-sky-900 ring-1 ring-sky-200" data-testid="job-replay-review">
          A replay from {job.replayAwaitingReview.from === "earliest" ? "the inputs' earliest offsets" : job.replayAwaitingReview.from} waits for a governance reviewer (asked <Ago iso={job.replayAwaitingReview.requestedAt} />).
        </p>
      )}
      {job.statementChangeAwaitingReview && (
        <p className="rounded-md bg-sky-50 p-3 text-sm text-sky-900 ring-1 ring-sky-200" data-testid="job-statement-review">
          Statement version {job.statementChangeAwaitingReview.toVersion} waits for a governance reviewer (asked <Ago iso={job.statementChangeAwaitingReview.requestedAt} />); {job.state === "PAUSED" ? `the job stays paused at version ${job.jobStatementVersion ?? job.statementVersion}, and once approved its resume runs the new one.` : `the job runs version ${job.jobStatementVersion ?? job.statementVersion} meanwhile.`}
        </p>
      )}
      {job.restoredFromSavepoint === false && (
        <p className="rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200" data-testid="job-not-restored">
          <span className="font-medium">Not restored from the savepoint:</span> {job.restoreNote ?? "Flink could not restore the old job's state."}
        </p>
      )}
      {job.restoredFromSavepoint === true && job.restoreNote && (
        <p className="rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200" data-testid="job-restored-partly">
          {job.restoreNote}
        </p>
      )}
      {c && OPEN.includes(c.status) && (
        <p role="status" aria-live="polite" className="rounded-md bg-indigo-50 p-3 text-sm text-indigo-900 ring-1 ring-indigo-200" data-testid="job-command">
          <span className="font-medium">{KIND_WORD[c.kind] ?? c.kind}:</span> {c.progress ?? "Waiting for the worker."}
        </p>
      )}
      {c && c.status === "FAILED" && (
        <div data-testid="job-command-failed">
          <ErrorAlert
            message={`The last ${c.kind === "STATEMENT" ? "statement change" : c.kind.toLowerCase()} failed${c.finishedAt ? ` (${new Date(c.finishedAt).toLocaleString()})` : ""}: ${c.error ?? "no reason given"}${c.progress?.startsWith("Rolled back:") ? `. ${c.progress}` : ""}`}
          />
        </div>
      )}
      {job.state === "PAUSED" && (
        <p className="rounded-md bg-slate-50 p-3 text-sm text-slate-800 ring-1 ring-slate-200" data-testid="job-paused">
          Paused{job.pausedAt && <> <Ago iso={job.pausedAt} /></>}: Flink stopped the job with a savepoint{job.savepointPath && <> at <code className="break-all font-mono text-xs">{job.savepointPath}</code></>}.{" "}
          {job.statementVersionOnResume !== null ? (
            <span data-testid="job-statement-on-resume">
              Statement version {job.statementVersionOnResume} was approved while it was paused: resume runs it (not version {job.jobStatementVersion}), restoring the savepoint where Flink can map its state to the new statement, otherwise without state from where the job had read.
            </span>
          ) : (
            "Resume continues from it; nothing is recomputed."
          )}
        </p>
      )}
    </>
  );
}

export function DerivedJobControls({ productId, domainId, statement, job, reviewedReplay }: { productId: string; domainId: string; statement: string; job: ProductJob; reviewedReplay: boolean }) {
  const client = useQueryClient();
  const [open, setOpen] = useState<Action | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const ask = useMutation<CommandAnswer, ApiError, { action: Action; body?: unknown }>({
    mutationFn: ({ action, body }) => api(`/api/v1/products/${productId}/job/${action}`, { method: "POST", ...(body ? { body } : {}) }),
    onSuccess: (answer, { action }) => {
      setOpen(null);
      setDone(answer.changeRequest ? "The replay waits for a governance reviewer (four eyes); the worker runs it once approved." : `Asked: the worker will ${action} the job in its next cycle — its progress shows here.`);
      return client.invalidateQueries({ queryKey: queryKeys.products.job(productId) });
    },
  });
  const propose = useMutation<{ changeRequest: { id: string }; statementVersion: number; schemaVersion: number; schemaChanged: boolean; onApproval: string }, ApiError, { statement: string; reason: string }>({
    mutationFn: (body) => api(`/api/v1/products/${productId}/derived`, { method: "PUT", body }),
    onSuccess: (answer) => {
      setOpen(null);
      setDone(`Statement version ${answer.statementVersion} waits for a governance reviewer (four eyes)${answer.schemaChanged ? `; its output becomes schema version ${answer.schemaVersion}` : "; its output schema is unchanged"}. ${answer.onApproval}`);
      return client.invalidateQueries({ queryKey: queryKeys.products.job(productId) });
    },
  });
  const busy = (job.command && OPEN.includes(job.command.status)) || ask.isPending || propose.isPending;
  const deployed = job.state !== "NOT_DEPLOYED" && job.state !== "STOPPED";
  const canPause = deployed && job.state !== "PAUSED";
  const canResume = job.state === "PAUSED";
  const canChangeStatement = (job.state === "RUNNING" || job.state === "PAUSED") && !job.statementChangeAwaitingReview;
  const start = (action: Action) => {
    ask.reset();
    propose.reset();
    setDone(null);
    setOpen(action);
  };
  return (
    <div className="space-y-3" data-testid="job-controls">
      <div className="flex flex-wrap gap-2">
        {canPause && (
          <Button variant="secondary" disabled={!!busy} onClick={() => start("pause")} aria-expanded={open === "pause"}>
            Pause
          </Button>
        )}
        {canResume && (
          <Button variant="secondary" disabled={!!busy} onClick={() => start("resume")} aria-expanded={open === "resume"}>
            Resume
          </Button>
        )}
        {deployed && (
          <Button variant="secondary" disabled={!!busy || !!job.replayAwaitingReview} onClick={() => start("replay")} aria-expanded={open === "replay"}>
            Replay…
          </Button>
        )}
        {canChangeStatement && (
          <Button variant="secondary" disabled={!!busy} onClick={() => start("statement")} aria-expanded={open === "statement"}>
            Change statement…
          </Button>
        )}
      </div>
      {open === "pause" && (
        <Confirm
          title="Pause the Flink job?"
          confirm="Pause with a savepoint"
          pending={ask.isPending}
          onConfirm={() => ask.mutate({ action: "pause" })}
          onCancel={() => setOpen(null)}
        >
          Flink stops the job with a savepoint: its open windows and its place in each input are kept, and nothing new reaches the topic until you resume.
        </Confirm>
      )}
      {open === "resume" && (
        <Confirm title="Resume the Flink job?" confirm="Resume from the savepoint" pending={ask.isPending} onConfirm={() => ask.mutate({ action: "resume" })} onCancel={() => setOpen(null)}>
          {job.statementVersionOnResume !== null
            ? `Statement version ${job.statementVersionOnResume}, approved while the job was paused, starts from the savepoint: where Flink can map the saved state to it, open windows carry over and it reads on from where the job stopped; otherwise it starts without state from the offsets the job's consumer group committed (the job panel says which). If it does not start at all, version ${job.jobStatementVersion} resumes instead.`
            : "The same statement runs again from the savepoint: it reads on from where it stopped, so the records that arrived meanwhile are processed and nothing is recomputed."}
        </Confirm>
      )}
      {open === "replay" && <ReplayForm reviewed={reviewedReplay} pending={ask.isPending} error={ask.error} onSubmit={(body) => ask.mutate({ action: "replay", body })} onCancel={() => setOpen(null)} />}
      {open === "statement" && <StatementChangeForm domainId={domainId} current={statement} paused={job.state === "PAUSED"} pending={propose.isPending} error={propose.error} onSubmit={(body) => propose.mutate(body)} onCancel={() => setOpen(null)} />}
      {ask.error && open !== "replay" && <ErrorAlert message={ask.error.message} />}
      {done && <Notice>{done}</Notice>}
    </div>
  );
}

function Confirm({ title, confirm, pending, onConfirm, onCancel, children }: { title: string; confirm: string; pending: boolean; onConfirm: () => void; onCancel: () => void; children: ReactNode }) {
  const headingId = useId();
  const cancel = useRef<HTMLButtonElement>(null);
  // Keyboard users land in the confirmation, on the safe choice.
  useEffect(() => cancel.current?.focus(), []);
  return (
    <section role="alertdialog" aria-labelledby={headingId} className="space-y-2 rounded-md bg-amber-50 p-3 text-sm ring-1 ring-amber-200" onKeyDown={(e) => e.key === "Escape" && onCancel()}>
      <h3 id={headingId} className="font-medium text-amber-900">
        {title}
      </h3>
      <p className="text-amber-900">{children}</p>
      <div className="flex flex-wrap gap-2">
        <Button disabled={pending} onClick={onConfirm}>
          {pending ? "Asking…" : confirm}
        </Button>
        <Button ref={cancel} variant="secondary" disabled={pending} onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </section>
  );
}

function ReplayForm({ reviewed, pending, error, onSubmit, onCancel }: { reviewed: boolean; pending: boolean; error: ApiError | null; onSubmit: (body: { from: string; reason?: string }) => void; onCancel: () => void }) {
  const headingId = useId();
  const [from, setFrom] = useState<"earliest" | "time">("earliest");
  const [local, setLocal] = useState<string | null>(null);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const f = new FormData(event.currentTarget);
    const reason = formText(f, "reason").trim();
    let point = "earliest";
    if (from === "time") {
      const at = Date.parse(`${formText(f, "at")}Z`);
      if (Number.isNaN(at)) return setLocal("Enter a date and time (UTC).");
      point = new Date(at).toISOString();
    }
    setLocal(null);
    onSubmit({ from: point, ...(reason ? { reason } : {}) });
  }
  const fromErrors = [...(local ? [local] : []), ...(error?.fields.from ?? [])];
  return (
    <form role="dialog" aria-labelledby={headingId} onSubmit={submit} onKeyDown={(e) => e.key === "Escape" && onCancel()} className="space-y-3 rounded-md bg-amber-50 p-3 text-sm ring-1 ring-amber-200" data-testid="job-replay-form">
      <h3 id={headingId} className="font-medium text-amber-900">
        Replay the derived product from an earlier point
      </h3>
      <p className="text-amber-900">
        The running job is cancelled and the statement starts again, reading every input from the point you choose (from the log and its tiered storage) under a new consumer group. The topic is append-only: the recomputed results are <strong>appended again</strong> after the earlier ones, so its consumers see each window a second time and should keep the latest result per key and window.
        {reviewed && " This product is confidential or restricted: a governance reviewer approves the replay before it runs."}
      </p>
      <fieldset className="space-y-1">
        <legend className="font-medium text-slate-800">Read the inputs from</legend>
        <label className="flex items-center gap-2">
          <input ref={first} type="radio" name="from" value="earliest" checked={from === "earliest"} onChange={() => setFrom("earliest")} /> their earliest offsets
        </label>
        <label className="flex items-center gap-2">
          <input type="radio" name="from" value="time" checked={from === "time"} onChange={() => setFrom("time")} /> a date and time
        </label>
      </fieldset>
      {from === "time" && <Field id="replay-at" label="From (UTC)" errors={fromErrors.length ? fromErrors : undefined}>{(a) => <input {...a} name="at" type="datetime-local" step={1} required className={inputClass} />}</Field>}
      {from === "earliest" && fromErrors.length > 0 && <ErrorAlert message={fromErrors.join(" ")} />}
      <Field id="replay-reason" label={reviewed ? "Reason (for the reviewer)" : "Reason (optional)"} errors={error?.fields.reason}>
        {(a) => <textarea {...a} name="reason" rows={2} required={reviewed} maxLength={1000} className={inputClass} />}
      </Field>
      {error && !error.fields.from && !error.fields.reason && <ErrorAlert message={error.message} />}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" variant="danger" disabled={pending}>
          {pending ? "Asking…" : reviewed ? "Ask for the replay" : "Replay"}
        </Button>
        <Button type="button" variant="secondary" disabled={pending} onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

/**
 * A new statement for the running or paused job (PUT /api/v1/products/{id}/derived): the statement editor with Flink's
 * Validate, a reason for the reviewer, and Propose. The server plans it again, compares its output schema with
 * the approved one under the product's compatibility mode and refuses an incompatible one naming the fields.
 */
function StatementChangeForm({ domainId, current, paused, pending, error, onSubmit, onCancel }: { domainId: string; current: string; paused: boolean; pending: boolean; error: ApiError | null; onSubmit: (body: { statement: string; reason: string }) => void; onCancel: () => void }) {
  const headingId = useId();
  const [statement, setStatement] = useState(current);
  const [reason, setReason] = useState("");
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onSubmit({ statement, reason });
  }
  const incompatible = error?.code === "INCOMPATIBLE_OUTPUT_SCHEMA";
  const fields = Array.isArray(error?.details.fields) ? (error.details.fields as unknown[]).map(String) : [];
  return (
    <form aria-labelledby={headingId} onSubmit={submit} onKeyDown={(e) => e.key === "Escape" && onCancel()} className="space-y-3 rounded-md bg-slate-50 p-3 text-sm ring-1 ring-slate-200" data-testid="job-statement-form">
      <h3 id={headingId} className="font-medium text-slate-900">
        Change the statement
      </h3>
      <p className="text-slate-700">
        A new statement is a new version of this product on the same topic when its output schema stays compatible under the product&apos;s compatibility mode; a governance reviewer approves it first.{" "}
        {paused
          ? "The job is paused: once approved it stays paused, and when you resume it the new statement starts from the pause's savepoint, so open windows carry over where Flink can map them — otherwise it starts without state from where the job had read, and the job panel says so."
          : "The worker then stops the job with a savepoint and starts the new statement from it, so open windows carry over where Flink can map them — otherwise it starts without state from where the job had read, and the job panel says so."}
      </p>
      <DerivedStatementEditor domainId={domainId} statement={statement} onChange={setStatement} gatewayConfigured errors={error?.fields.statement && !incompatible ? error.fields.statement : undefined} onValidated={() => {}} />
      <Field id="statement-reason" label="Reason (for the reviewer)" errors={error?.fields.reason}>
        {(a) => <textarea {...a} name="reason" rows={2} required maxLength={1000} value={reason} onChange={(e) => setReason(e.target.value)} className={inputClass} />}
      </Field>
      {incompatible && (
        <div className="space-y-1 rounded-md bg-rose-50 p-3 text-rose-900 ring-1 ring-rose-200" data-testid="statement-incompatible">
          <p className="font-medium">The output schema changed incompatibly{fields.length > 0 && <> ({fields.join(", ")})</>}</p>
          <p className="whitespace-pre-wrap break-words">{error.message}</p>
        </div>
      )}
      {error && !incompatible && !error.fields.reason && !error.fields.statement && <ErrorAlert message={error.message} />}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={pending || statement.trim() === "" || statement.trim() === current.trim()}>
          {pending ? "Proposing…" : "Propose for review"}
        </Button>
        <Button type="button" variant="secondary" disabled={pending} onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
