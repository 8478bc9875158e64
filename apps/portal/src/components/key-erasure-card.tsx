"use client";

import { useState, type FormEvent } from "react";
import { Badge, Button, Card, ErrorAlert, Field, inputClass, Notice } from "@/components/ui";
import type { ProductDetail } from "@/lib/api-types";
import { useRequestKeyErasure } from "@/lib/mutations";
import { Age } from "./relative-time";

function keysOf(payload: unknown): number | null {
  return typeof payload === "object" && payload !== null && "keys" in payload && typeof payload.keys === "number" ? payload.keys : null;
}

const keyWord = (n: number) => (n === 1 ? "encryption key" : `${n} encryption keys`);

/**
 * An owner's erasure request (issue 29): crypto-shredding the product's field-level encryption keys without
 * retiring it. Says before anyone submits that it cannot be undone; governance decides (four eyes).
 */
export function KeyErasureCard({ product, isOwner }: { product: ProductDetail; isOwner: boolean }) {
  const request = useRequestKeyErasure(product.id);
  const [reason, setReason] = useState("");
  const [understood, setUnderstood] = useState(false);
  const history = product.changeRequests.filter((c) => c.kind === "KEY_ERASURE");
  const pending = history.find((c) => c.status === "REQUESTED");
  const keys = product.encryptionKeys ?? 0;
  const canAsk = isOwner && product.status !== "RETIRED" && keys > 0 && !pending;
  if (!canAsk && history.length === 0) return null;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const sent = reason;
    request.mutate({ reason: sent }, { onSuccess: () => { setReason((now) => (now === sent ? "" : now)); setUnderstood(false); } });
  }
  return (
    <Card title="Erase the encrypted personal data">
      <p className="text-sm text-slate-700">
        {keys > 0 ? <>The PII fields of this product&apos;s records are encrypted with <strong data-testid="encryption-key-count">{keyWord(keys)}</strong>.</> : "No encryption keys exist for this product now."}
      </p>
      {canAsk && (
        <form onSubmit={submit} className="mt-3 space-y-3" aria-label="Request erasure of the encryption keys">
          <div role="note" className="rounded-md bg-red-50 p-3 text-sm text-red-900 ring-1 ring-red-200" data-testid="key-erasure-warning">
            <strong>Irreversible.</strong> Once governance approves, the product&apos;s {keyWord(keys)} {keys === 1 ? "is" : "are"} destroyed: nobody — not the producer, not
            PII-approved subscribers, not the platform — can ever decrypt the encrypted fields of the records written so far, in the log or in the remote tier. The records
            themselves stay; their other fields remain readable. The next encrypting write gets a new key. Clients that hold the old key in memory (a running producer or
            consumer) keep it until they restart: restart them after the approval.
          </div>
          <Field id="key-erasure-reason" label="Why must the keys be destroyed?" errors={request.error?.fields?.reason}>
            {(p) => <input {...p} className={inputClass} value={reason} onChange={(e) => setReason(e.target.value)} placeholder="e.g. erasure request of a customer (ticket #1234)" required />}
          </Field>
          <label className="flex items-start gap-2 text-sm">
            <input type="checkbox" className="mt-1" checked={understood} onChange={(e) => setUnderstood(e.target.checked)} required />
            <span>I understand that the encrypted fields written so far can never be decrypted again.</span>
          </label>
          <div className="flex flex-wrap items-center gap-3">
            <Button type="submit" variant="danger" disabled={request.isPending || !understood}>Request erasure of the keys</Button>
            {request.isError && !request.error.fields?.reason && <ErrorAlert message={request.error.message} />}
          </div>
        </form>
      )}
      {request.isSuccess && <div className="mt-3"><Notice>Requested: a governance reviewer other than you decides; the keys are destroyed when it is approved.</Notice></div>}
      {history.length > 0 && (
        <ul className="mt-4 space-y-2 text-sm" aria-label="Erasure requests">
          {history.map((c) => {
            const n = keysOf(c.payload);
            return (
              <li key={c.id} data-testid="key-erasure-request" className="flex flex-wrap items-center gap-2">
                <Badge value={c.status} />
                <span>{n === null ? "erasure of the encryption keys" : `erasure of ${keyWord(n)}`}</span>
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
