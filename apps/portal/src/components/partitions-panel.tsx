"use client";

import { useState, type FormEvent } from "react";
import { Badge, Button, Card, ErrorAlert, Field, inputClass, Notice } from "@/components/ui";
import type { ProductDetail } from "@/lib/api-types";
import { useChangeRequestAction } from "@/lib/mutations";
import { Age } from "./relative-time";

function payloadOf(payload: unknown): { from: number; to: number } | null {
  if (typeof payload !== "object" || payload === null || !("from" in payload) || !("to" in payload)) return null;
  return typeof payload.from === "number" && typeof payload.to === "number" ? { from: payload.from, to: payload.to } : null;
}

/**
 * Partitions of a live product: owners ask for more (reviewed by governance),
 * with the ordering consequence spelled out before they submit; everyone with
 * access to the change history sees past requests and decisions.
 */
export function PartitionsPanel({ product, isOwner }: { product: ProductDetail; isOwner: boolean }) {
  const request = useChangeRequestAction(product.id);
  const [form, setForm] = useState({ partitions: String(product.partitions + 1), reason: "" });
  const pending = product.changeRequests.find((c) => c.kind === "ADD_PARTITIONS" && c.status === "REQUESTED");
  const history = product.changeRequests.filter((c) => c.kind === "ADD_PARTITIONS");
  const canAsk = isOwner && product.status === "ACTIVE" && !pending;
  if (!canAsk && history.length === 0) return null;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const reason = form.reason;
    // Clears the reason sent from the form as it is now, not from the submit-time copy.
    request.mutate({ kind: "request", partitions: Number(form.partitions), reason }, { onSuccess: () => setForm((now) => (now.reason === reason ? { ...now, reason: "" } : now)) });
  }
  const keyed = product.cleanupPolicy === "compact";
  return (
    <Card title="Partitions">
      <p className="text-sm text-slate-700">This product has <strong data-testid="partition-count">{product.partitions}</strong> partitions.</p>
      {canAsk && (
        <form onSubmit={submit} className="mt-3 space-y-3" aria-label="Add partitions">
          <div role="note" className="rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200" data-testid="partition-warning">
            <strong>Keyed ordering changes for new records.</strong> Kafka picks a record&apos;s partition from its key (hash of the key modulo the partition count), so after the
            increase new records of a key can land on a different partition than that key&apos;s older records: consumers see per-key order only within the old and within the new
            records{keyed ? ", and a compacted topic may keep an old and a new latest value for a key on two partitions" : ""}. Partitions can never be removed again.
          </div>
          <div className="grid gap-3 sm:grid-cols-[10rem_1fr]">
            <Field id="new-partitions" label="New partition count" errors={request.error?.fields?.partitions}>
              {(p) => <input {...p} type="number" inputMode="numeric" className={inputClass} value={form.partitions} onChange={(e) => setForm({ ...form, partitions: e.target.value })} required />}
            </Field>
            <Field id="partition-reason" label="Why more partitions?" errors={request.error?.fields?.reason}>
              {(p) => <input {...p} className={inputClass} value={form.reason} onChange={(e) => setForm({ ...form, reason: e.target.value })} placeholder="e.g. more consumer instances for peak load" required />}
            </Field>
          </div>
          <div className="flex flex-wrap items-center gap-3">
            <Button type="submit" disabled={request.isPending}>Request more partitions</Button>
            {request.isError && !request.error.fields?.partitions && !request.error.fields?.reason && <ErrorAlert message={request.error.message} />}
          </div>
        </form>
      )}
      {request.isSuccess && <div className="mt-3"><Notice>Requested: governance reviews the change; the worker adds the partitions once it is approved.</Notice></div>}
      {history.length > 0 && (
        <ul className="mt-4 space-y-2 text-sm" aria-label="Partition changes">
          {history.map((c) => {
            const p = payloadOf(c.payload);
            return (
              <li key={c.id} data-testid="partition-change" className="flex flex-wrap items-center gap-2">
                <Badge value={c.status} />
                <span>{p ? `${p.from} → ${p.to} partitions` : c.kind}</span>
                <span className="text-slate-500">· “{c.reason}” · <Age iso={c.createdAt} /> ago</span>
                {c.decisionReason && <span className="text-slate-600">· {c.decisionReason}</span>}
              </li>
            );
          })}
        </ul>
      )}
    </Card>
  );
}
