"use client";

import { provisioningProgress } from "@/lib/observations";
import { Ago } from "./relative-time";
import { Badge, Button, ErrorAlert } from "./ui";

/* A product's or subscription's provisioning steps: on the page itself (not deferred like the live panels), so in a module of its own. */

export interface StepView {
  id: string;
  step: number;
  label: string;
  kind: string;
  status: string;
  attempts: number;
  lastError: string | null;
  updatedAt: string;
}

/**
 * Steps with a progress bar; a failed step's error is announced and offers
 * Retry to those allowed (the server checks again).
 */
export function ProvisioningSteps({
  steps,
  canRetry,
  onRetry,
  retrying,
  retryError,
}: {
  steps: StepView[];
  canRetry: boolean;
  onRetry: (taskId: string) => void;
  retrying: boolean;
  retryError: string | null;
}) {
  const progress = provisioningProgress(steps);
  return (
    <div className="space-y-3">
      <div>
        <div className="mb-1 flex justify-between text-xs text-slate-600">
          <span id="provisioning-progress-label">
            {progress.complete ? "All steps done" : progress.failed ? `Step ${progress.failed.step} failed` : `${progress.done} of ${progress.total} steps done`}
          </span>
          <span>{progress.pct} %</span>
        </div>
        <div
          role="progressbar"
          aria-labelledby="provisioning-progress-label"
          aria-valuemin={0}
          aria-valuemax={progress.total}
          aria-valuenow={progress.done}
          aria-valuetext={`${progress.done} of ${progress.total} steps done`}
          className="h-2 w-full overflow-hidden rounded-full bg-slate-100"
          data-testid="provisioning-progress"
        >
          <div className={progress.failed ? "h-full bg-rose-500" : "h-full bg-emerald-500"} style={{ width: `${progress.pct}%` }} />
        </div>
      </div>
      <ErrorAlert message={retryError} />
      <ol className="space-y-2" aria-label="Provisioning steps" data-testid="provisioning-steps">
        {steps.map((s) => (
          <li key={s.id} className={s.status === "FAILED" ? "rounded-md bg-rose-50/50 p-2 ring-1 ring-rose-200" : "rounded-md p-2 ring-1 ring-slate-200"}>
            <div className="flex flex-wrap items-start justify-between gap-2">
              <div className="min-w-0">
                <p className="text-sm font-medium">{s.step}. {s.label}</p>
                <p className="text-xs text-slate-500">
                  {s.kind} · attempts {s.attempts} · updated <Ago iso={s.updatedAt} />
                </p>
              </div>
              <Badge value={s.status} />
            </div>
            {s.lastError && (
              // A failed step is news: announce it; an old error on a re-queued step is history.
              <p className={s.status === "FAILED" ? "mt-1 text-sm text-rose-800" : "mt-1 text-xs text-slate-500"} role={s.status === "FAILED" ? "alert" : undefined} data-testid="step-error">
                {s.status === "FAILED" ? "Failed: " : s.attempts > 0 ? "Last attempt failed, retrying: " : "Previous error: "}
                {s.lastError}
              </p>
            )}
            {s.status === "FAILED" && canRetry && (
              <Button className="mt-2" variant="secondary" disabled={retrying} onClick={() => onRetry(s.id)} aria-label={`Retry step ${s.step}: ${s.label}`}>
                {retrying ? "Retrying…" : "Retry"}
              </Button>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}

