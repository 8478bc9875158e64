"use client";

import { useId, useState, type FormEvent, type ReactNode } from "react";
import type { ApiError } from "@/lib/api-client";
import { formText } from "@/lib/form-text";
import { Button, ErrorAlert, Field, inputClass } from "./ui";

/**
 * "Reject" / "Revoke": a button that opens an inline form asking for the
 * reason the catalog requires, and shows the server's refusal next to it.
 */
export function ReasonAction({
  label,
  confirmLabel,
  onConfirm,
  error,
  pending,
  extra,
  hint = "Required; the requester sees it.",
}: {
  /** Who will read the reason, said under the field. */
  hint?: string;
  label: string;
  confirmLabel: string;
  onConfirm: (reason: string, form: FormData) => void;
  error: ApiError | null;
  pending: boolean;
  extra?: (ids: { prefix: string; errors: Record<string, string[]> }) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const prefix = useId();
  if (!open) {
    return (
      <Button variant="secondary" onClick={() => setOpen(true)}>
        {label}
      </Button>
    );
  }
  const fields = error?.fields ?? {};
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    onConfirm(formText(form, "reason"), form);
  }
  return (
    <form onSubmit={submit} className="w-full space-y-3 rounded-md bg-slate-50 p-3 ring-1 ring-slate-200">
      <Field id={`${prefix}-reason`} label="Reason" errors={fields.reason} hint={hint}>
        {(a) => <textarea {...a} name="reason" rows={2} required minLength={5} autoFocus className={inputClass} />}
      </Field>
      {extra?.({ prefix, errors: fields })}
      <ErrorAlert message={error && !error.fields?.reason ? error.message : null} />
      <div className="flex gap-2">
        <Button type="submit" variant="danger" disabled={pending}>
          {pending ? "Working…" : confirmLabel}
        </Button>
        <Button variant="ghost" onClick={() => setOpen(false)}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
