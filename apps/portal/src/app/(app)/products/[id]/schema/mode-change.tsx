"use client";

import { useState, type FormEvent } from "react";
import { COMPATIBILITY_MODES } from "@kappa/catalog/validation";
import { Button, ErrorAlert, Field, inputClass, Notice } from "@/components/ui";
import { useRequestModeChange } from "@/lib/mutations";

/**
 * The product's compatibility mode, and for its owners the request to change
 * it: a reviewed change with a reason (switching to NONE included), applied
 * when governance approves it.
 */
export function ModeChange({
  productId,
  mode,
  pending,
  canRequest,
}: {
  productId: string;
  mode: string;
  pending: { to: string | null; reason: string } | null;
  canRequest: boolean;
}) {
  const request = useRequestModeChange(productId);
  const [to, setTo] = useState(COMPATIBILITY_MODES.find((m) => m !== mode) ?? "BACKWARD");
  const [reason, setReason] = useState("");
  const fields = request.error?.fields ?? {};
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    request.mutate({ mode: to, reason });
  }
  return (
    <div className="space-y-3 text-sm" data-testid="mode-change">
      <p>
        New versions are checked under <strong className="font-mono">{mode}</strong>.
      </p>
      {pending ? (
        <p className="rounded-md bg-amber-50 p-2 text-amber-900 ring-1 ring-amber-200">
          A change to <strong className="font-mono">{pending.to}</strong> waits for governance review: “{pending.reason}”
        </p>
      ) : canRequest ? (
        <form onSubmit={submit} className="grid gap-3 sm:grid-cols-2">
          <Field id="mode-to" label="Change the mode to" errors={fields.mode} hint="A reviewed change: it applies when governance approves it. NONE switches the checks off.">
            {(a) => (
              <select {...a} value={to} onChange={(e) => setTo(e.target.value as typeof to)} className={inputClass}>
                {COMPATIBILITY_MODES.filter((m) => m !== mode).map((m) => (
                  <option key={m} value={m}>{m}</option>
                ))}
              </select>
            )}
          </Field>
          <Field id="mode-reason" label="Reason" errors={fields.reason} hint="Required; the reviewer reads it.">
            {(a) => <input {...a} value={reason} onChange={(e) => setReason(e.target.value)} minLength={5} required className={inputClass} />}
          </Field>
          <div className="sm:col-span-2">
            <ErrorAlert message={request.isError && !fields.mode && !fields.reason ? request.error.message : null} />
            {request.isSuccess && <Notice>Requested; governance decides on it.</Notice>}
            <Button type="submit" disabled={request.isPending}>{request.isPending ? "Requesting…" : "Request the change"}</Button>
          </div>
        </form>
      ) : null}
    </div>
  );
}
