"use client";

import { ReasonAction } from "@/components/reason-form";
import { Button, Card, ErrorAlert } from "@/components/ui";
import type { ReviewQueue } from "@/lib/api-types";
import { useChangeRequestAction } from "@/lib/mutations";
import { Link } from "./link";
import { Age } from "./relative-time";
import { RulesChangeReview, rulesChangeOf } from "./rules-change-review";

type Change = ReviewQueue["changes"][number];

function partitionsOf(payload: unknown): { from: number; to: number } | null {
  if (typeof payload !== "object" || payload === null || !("from" in payload) || !("to" in payload)) return null;
  return typeof payload.from === "number" && typeof payload.to === "number" ? { from: payload.from, to: payload.to } : null;
}

/** Changes to live products that wait for governance (e.g. more partitions), in the review queue. */
export function ChangeRequestsCard({ changes }: { changes: Change[] }) {
  return (
    <Card title={`Product changes (${changes.length})`}>
      {changes.length === 0 ? (
        <p className="text-sm text-slate-600">No changes to live products waiting.</p>
      ) : (
        <ul className="divide-y divide-slate-200" aria-label="Product changes">
          {changes.map((c) => <ChangeRow key={c.id} change={c} />)}
        </ul>
      )}
    </Card>
  );
}

/** A compatibility-mode change's payload: `{ from, to }` as mode names. */
function modesOf(kind: string, payload: unknown): { from: string; to: string } | null {
  if (kind !== "COMPATIBILITY_MODE" || typeof payload !== "object" || payload === null || !("from" in payload) || !("to" in payload)) return null;
  return typeof payload.from === "string" && typeof payload.to === "string" ? { from: payload.from, to: payload.to } : null;
}

/** A derived product's replay (CONFIDENTIAL or RESTRICTED): `{ from: "earliest" | ISO instant }`. */
function replayOf(kind: string, payload: unknown): { from: string } | null {
  if (kind !== "DERIVED_REPLAY" || typeof payload !== "object" || payload === null || !("from" in payload)) return null;
  return typeof payload.from === "string" ? { from: payload.from } : null;
}

/** A derived product's new statement: before and after, the output's schema version, the inputs it reads. */
function statementOf(kind: string, payload: unknown): { statement: string; fromStatement: string; fromVersion: number; toVersion: number; schemaVersion: number; schemaChanged: boolean; inputs: string[]; plan: string; jobPaused: boolean } | null {
  if (kind !== "DERIVED_STATEMENT" || typeof payload !== "object" || payload === null) return null;
  const p = payload as Record<string, unknown>;
  const schema = (typeof p.schema === "object" && p.schema !== null ? p.schema : {}) as Record<string, unknown>;
  if (typeof p.statement !== "string" || typeof p.fromStatement !== "string" || typeof p.toVersion !== "number") return null;
  return {
    statement: p.statement,
    fromStatement: p.fromStatement,
    fromVersion: typeof p.fromVersion === "number" ? p.fromVersion : p.toVersion - 1,
    toVersion: p.toVersion,
    schemaVersion: typeof schema.version === "number" ? schema.version : 0,
    schemaChanged: schema.changed === true,
    inputs: Array.isArray(p.inputs) ? p.inputs.map((i: unknown) => (typeof i === "object" && i !== null && "topicName" in i && typeof i.topicName === "string" ? i.topicName : "")).filter(Boolean) : [],
    plan: typeof p.plan === "string" ? p.plan : "",
    jobPaused: p.jobPaused === true,
  };
}

/** A data-quality rules change that also turns field-level encryption of the PII fields on or off (issue 29). */
function encryptionOf(kind: string, payload: unknown): { to: boolean } | null {
  if (kind !== "QUALITY_RULES" || typeof payload !== "object" || payload === null || !("encryptPii" in payload)) return null;
  const e = payload.encryptPii;
  return typeof e === "object" && e !== null && "to" in e && typeof e.to === "boolean" ? { to: e.to } : null;
}

/** An owner's erasure request (issue 29): `{ keys, subjects }` — the DEKs the approval destroys. */
function erasureOf(kind: string, payload: unknown): { keys: number } | null {
  if (kind !== "KEY_ERASURE" || typeof payload !== "object" || payload === null || !("keys" in payload)) return null;
  return typeof payload.keys === "number" ? { keys: payload.keys } : null;
}

function ChangeRow({ change: c }: { change: Change }) {
  const action = useChangeRequestAction(c.product.id);
  const modes = modesOf(c.kind, c.payload);
  const replay = replayOf(c.kind, c.payload);
  const statement = statementOf(c.kind, c.payload);
  const rules = rulesChangeOf(c.kind, c.payload);
  const erasure = erasureOf(c.kind, c.payload);
  const partitions = modes || replay || statement || rules || erasure ? null : partitionsOf(c.payload);
  return (
    <li className="flex flex-col gap-3 py-4 first:pt-0 last:pb-0 md:flex-row md:items-start md:justify-between" data-testid="review-change">
      <div className="min-w-0">
        <p className="text-sm">
          <Link href={`/products/${c.product.id}`} className="font-medium text-indigo-700 hover:underline">{c.product.name}</Link>{" "}
          {modes ? (
            <>: compatibility mode <strong>{modes.from} → {modes.to}</strong></>
          ) : replay ? (
            <>: replay of its Flink job from <strong>{replay.from === "earliest" ? "the inputs' earliest offsets" : replay.from}</strong></>
          ) : statement ? (
            <>: statement version <strong>{statement.fromVersion} → {statement.toVersion}</strong> of its Flink job</>
          ) : rules ? (
            <>: data-quality rules <strong>{rules.from.length} → {rules.to.length}</strong></>
          ) : erasure ? (
            <>: destroy <strong>{erasure.keys === 1 ? "its encryption key" : `its ${erasure.keys} encryption keys`}</strong> (erasure request)</>
          ) : partitions ? (
            <>: partitions <strong>{partitions.from} → {partitions.to}</strong></>
          ) : (
            <>: {c.kind}</>
          )}
        </p>
        <p className="font-mono text-xs text-slate-500">{c.product.topicName}</p>
        <p className="mt-1 text-sm text-slate-700">“{c.reason}”</p>
        {encryptionOf(c.kind, c.payload) && (
          <p className="mt-1 text-xs text-amber-800" data-testid="review-encryption">
            {encryptionOf(c.kind, c.payload)?.to
              ? "Turns on field-level encryption of the fields classified as PII: producers encrypt them, only the producer account and subscriptions approved for PII get the keys."
              : "Turns off field-level encryption: producers write the PII fields in clear from then on (records written before stay encrypted)."}
          </p>
        )}
        {modes?.to === "NONE" && <p className="mt-1 text-xs text-amber-800">NONE switches the compatibility checks off: every later schema version is accepted, breaking ones included.</p>}
        {statement && (
          <div className="mt-2 space-y-2 text-xs" data-testid="review-statement">
            <p className="text-slate-700">
              Output: {statement.schemaChanged ? <>schema version <strong>{statement.schemaVersion}</strong> (compatible under the product&apos;s mode)</> : <>unchanged (schema version {statement.schemaVersion})</>}. Reads {statement.inputs.join(", ")}. {statement.jobPaused
                ? "The job was paused when this was asked: once approved it stays paused, and its owners' resume runs the new statement from the pause's savepoint (without state from the committed offsets where Flink cannot restore it)."
                : "Once approved the worker stops the job with a savepoint and starts the new statement from it."}
            </p>
            <details>
              <summary className="cursor-pointer font-medium">The statement before and after</summary>
              <pre className="mt-1 max-h-60 overflow-auto rounded bg-slate-100 p-2 font-mono" aria-label="Current statement">{statement.fromStatement}</pre>
              <pre className="mt-1 max-h-60 overflow-auto rounded bg-slate-900 p-2 font-mono text-slate-100" aria-label="Proposed statement">{statement.statement}</pre>
            </details>
            <details>
              <summary className="cursor-pointer font-medium">Flink&apos;s plan</summary>
              <pre className="mt-1 max-h-60 overflow-auto rounded bg-slate-900 p-2 font-mono text-slate-100" aria-label="Flink's plan of the proposed statement">{statement.plan}</pre>
            </details>
          </div>
        )}
        {rules && <RulesChangeReview changeId={c.id} change={rules} />}
        {erasure && (
          <p className="mt-1 text-xs text-red-800" data-testid="review-erasure">
            Irreversible: approving deletes the product&apos;s encryption keys at once, so nobody can decrypt the encrypted PII fields of the records written so far — in the log or
            the remote tier. The product stays live; the next encrypting write gets a new key.
          </p>
        )}
        {replay && <p className="mt-1 text-xs text-amber-800">The job is recomputed from that point and its results are appended to the topic again: every consumer of this product receives them a second time.</p>}
        {partitions && (
          <p className="mt-1 text-xs text-amber-800">Keyed records: after the change a key may map to another partition, so per-key order holds only within old and within new records. Partitions cannot be removed.</p>
        )}
        <p className="mt-1 text-xs text-slate-500">requested <Age iso={c.createdAt} /> ago{c.requestedBy ? ` by ${c.requestedBy.name}` : ""}</p>
        {action.isError && <div className="mt-2"><ErrorAlert message={action.error.message} /></div>}
      </div>
      {c.mine ? (
        <p className="text-sm text-slate-500">Your own request (four-eyes rule)</p>
      ) : (
        <div className="flex flex-wrap items-start gap-2 md:max-w-sm md:justify-end">
          <Button disabled={action.isPending} onClick={() => action.mutate({ kind: "approve", id: c.id })} aria-label={`Approve change to ${c.product.name}`}>Approve</Button>
          <ReasonAction label="Reject" confirmLabel="Reject change" pending={action.isPending} error={action.error} onConfirm={(reason) => action.mutate({ kind: "reject", id: c.id, reason })} />
        </div>
      )}
    </li>
  );
}
