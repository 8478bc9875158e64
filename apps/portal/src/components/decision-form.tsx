"use client";

import { useId, useState, type FormEvent } from "react";
import type { ApiError } from "@/lib/api-client";
import { Button, ErrorAlert, Field, inputClass } from "./ui";

/**
 * Approve or reject, with a comment: optional when approving, required when
 * rejecting (the owner reads it). Shown only on a review page, below the
 * change itself — nothing is approved without being opened.
 */
export function DecisionForm({
  subject,
  pending,
  error,
  onApprove,
  onReject,
}: {
  /** What is decided, for the buttons' accessible names: "v3 of Order Events". */
  subject: string;
  pending: boolean;
  error: ApiError | null;
  onApprove: (comment: string) => void;
  onReject: (reason: string) => void;
}) {
  const id = useId();
  const [comment, setComment] = useState("");
  const [missing, setMissing] = useState(false);
  function approve(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setMissing(false);
    onApprove(comment.trim());
  }
  function reject() {
    if (comment.trim().length < 5) {
      setMissing(true);
      return;
    }
    setMissing(false);
    onReject(comment.trim());
  }
  const serverErrors = error?.fields?.reason ?? error?.fields?.comment;
  return (
    <form onSubmit={approve} className="space-y-3" data-testid="decision-form">
      <Field
        id={`${id}-comment`}
        label="Comment"
        hint="Optional when approving; a rejection needs one (at least 5 characters), and the owner reads it."
        errors={missing ? ["A rejection needs a reason of at least 5 characters."] : serverErrors}
      >
        {(a) => <textarea {...a} rows={3} value={comment} onChange={(e) => setComment(e.target.value)} maxLength={2000} className={inputClass} />}
      </Field>
      <ErrorAlert message={error && !serverErrors ? error.message : null} />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={pending} aria-label={`Approve ${subject}`}>
          Approve
        </Button>
        <Button variant="danger" disabled={pending} onClick={reject} aria-label={`Reject ${subject}`}>
          Reject
        </Button>
      </div>
    </form>
  );
}
