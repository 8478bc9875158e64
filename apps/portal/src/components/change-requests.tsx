"use client";

import { ReasonAction } from "@/components/reason-form";
import { Button, Card, ErrorAlert } from "@/components/ui";
import type { ReviewQueue } from "@/lib/api-types";
import { useChangeRequestAction } from "@/lib/mutations";
import { Link } from "./link";
import { Age } from "./relative-time";

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

function ChangeRow({ change: c }: { change: Change }) {
  const action = useChangeRequestAction(c.product.id);
  const modes = modesOf(c.kind, c.payload);
  const replay = replayOf(c.kind, c.payload);
  const partitions = modes || replay ? null : partitionsOf(c.payload);
  return (
    <li className="flex flex-col gap-3 py-4 first:pt-0 last:pb-0 md:flex-row md:items-start md:justify-between" data-testid="review-change">
      <div className="min-w-0">
        <p className="text-sm">
          <Link href={`/products/${c.product.id}`} className="font-medium text-indigo-700 hover:underline">{c.product.name}</Link>{" "}
          {modes ? (
            <>: compatibility mode <strong>{modes.from} → {modes.to}</strong></>
          ) : replay ? (
            <>: replay of its Flink job from <strong>{replay.from === "earliest" ? "the inputs' earliest offsets" : replay.from}</strong></>
          ) : partitions ? (
            <>: partitions <strong>{partitions.from} → {partitions.to}</strong></>
          ) : (
            <>: {c.kind}</>
          )}
        </p>
        <p className="font-mono text-xs text-slate-500">{c.product.topicName}</p>
        <p className="mt-1 text-sm text-slate-700">“{c.reason}”</p>
        {modes?.to === "NONE" && <p className="mt-1 text-xs text-amber-800">NONE switches the compatibility checks off: every later schema version is accepted, breaking ones included.</p>}
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
