"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { Link } from "@/components/link";
import { ReasonAction } from "@/components/reason-form";
import { keyText, RecordValue } from "@/components/record-value";
import { Ago } from "@/components/relative-time";
import { Badge, Button, Card, ErrorAlert, inputClass } from "@/components/ui";
import { api, type ApiError } from "@/lib/api-client";
import type { Redrive, RedriveList, RedrivePreview, RedriveRequested, ReviewQueue } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { queryKeys } from "@/lib/query-keys";

/*
 * Redrive (issue 29): the owners send dead letters back to the product topic
 * once the producer or the rules were fixed. A selection (records ticked in
 * the DLQ panel, every record that failed one rule, or all) is previewed in a
 * dialog — how many would go, how many were redriven already and are left
 * out, the first ones as the panel shows them — then requested. The server
 * checks everything (owners only, four eyes on CONFIDENTIAL and above, each
 * dead letter at most once); this only asks and shows.
 */

export type RedriveSelection = { kind: "records"; records: { partition: number; offset: string }[] } | { kind: "filter"; rule: string } | { kind: "all" };

const POLL_MS = 3_000;
const ACTIVE = new Set(["APPROVED", "RUNNING"]);

function describe(selection: RedriveSelection): string {
  if (selection.kind === "records") return `${selection.records.length} selected dead letter${selection.records.length === 1 ? "" : "s"}`;
  if (selection.kind === "filter") return `every dead letter that failed ${selection.rule}`;
  return "every dead letter";
}

/** The preview dialog: mounted with a selection, it previews, then requests on confirmation. Esc or Cancel closes it. */
export function RedriveDialog({ productId, selection, onClose }: { productId: string; selection: RedriveSelection; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const reasonId = useId();
  const [reason, setReason] = useState("");
  const client = useQueryClient();
  const preview = useMutation<RedrivePreview, ApiError, RedriveSelection>({
    mutationFn: (s) => api<RedrivePreview>(`/api/v1/products/${productId}/dlq/redrive/preview`, { method: "POST", body: { selection: s } }),
  });
  const request = useMutation<RedriveRequested, ApiError, { selection: RedriveSelection; reason: string }>({
    mutationFn: (body) => api<RedriveRequested>(`/api/v1/products/${productId}/dlq/redrive`, { method: "POST", body: { selection: body.selection, ...(body.reason ? { reason: body.reason } : {}) } }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.products.redrives(productId) });
      onClose();
    },
  });
  const { mutate: runPreview } = preview;
  // Mounted per selection (the panel keys it): open as a modal and preview once.
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
    runPreview(selection);
  }, [selection, runPreview]);

  return (
    <dialog ref={dialog} onClose={onClose} aria-labelledby={`${reasonId}-title`} className="w-full max-w-3xl rounded-lg p-0 shadow-xl backdrop:bg-slate-900/40" data-testid="redrive-dialog">
      <div className="space-y-4 p-5">
        <h2 id={`${reasonId}-title`} className="text-lg font-semibold">Redrive {describe(selection)}</h2>
        {preview.isPending && <p className="text-sm text-slate-500">Reading the dead-letter topic…</p>}
        {preview.error && <ErrorAlert message={preview.error.message} />}
        {preview.data && (
          <>
            <p className="text-sm" data-testid="redrive-preview-count">
              <strong>{preview.data.count}</strong> dead letter{preview.data.count === 1 ? "" : "s"} would go back to <span className="font-mono">{preview.data.topic}</span>
              {preview.data.alreadyRedriven > 0 ? `; ${preview.data.alreadyRedriven} were redriven already and are left out (each goes back at most once)` : ""}.
            </p>
            {preview.data.fourEyes && <p className="text-sm text-amber-800">This product is classified confidential or above: another owner of the domain or governance approves the redrive before anything is sent.</p>}
            <p className="text-xs text-slate-600">Values the dead-letter action wrote as JSON text are serialized with the product&apos;s current schema; the failure headers (__rule.*) are dropped and each record carries kappa.redriven-from.</p>
            {preview.data.records.length > 0 && (
              <ol className="max-h-72 space-y-2 overflow-auto" aria-label="First dead letters that would be sent">
                {preview.data.records.map((r) => (
                  <li key={`${r.partition}:${r.offset}`} className="rounded border border-slate-200 p-2" data-testid="redrive-preview-record">
                    <p className="mb-1 text-xs text-slate-600">
                      partition {r.partition} · offset {r.offset} · {r.rule ?? "rule not named"} · key {keyText(r.key)}
                    </p>
                    <RecordValue value={r.value} />
                  </li>
                ))}
              </ol>
            )}
            {preview.data.count > 0 && (
              <div>
                <label htmlFor={reasonId} className="block text-sm font-medium">
                  What was fixed (optional; whoever approves reads it)
                </label>
                <textarea id={reasonId} className={inputClass} rows={2} maxLength={1000} value={reason} onChange={(e) => setReason(e.target.value)} />
              </div>
            )}
          </>
        )}
        {request.error && <ErrorAlert message={request.error.message} />}
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={() => dialog.current?.close()}>
            Cancel
          </Button>
          <Button disabled={!preview.data || preview.data.count === 0 || request.isPending} onClick={() => request.mutate({ selection, reason: reason.trim() })}>
            {request.isPending ? "Requesting…" : preview.data?.fourEyes ? `Request redrive of ${preview.data.count}` : `Redrive ${preview.data?.count ?? ""}`}
          </Button>
        </div>
      </div>
    </dialog>
  );
}

function Progress({ r }: { r: Redrive }) {
  const parts = [`${r.sent} sent`, ...(r.alreadyRedriven > 0 ? [`${r.alreadyRedriven} redriven before`] : []), ...(r.skipped > 0 ? [`${r.skipped} skipped`] : [])];
  return (
    <span data-testid="redrive-progress">
      {r.status === "REQUESTED" || r.status === "REJECTED" ? `${r.previewed} previewed` : `${parts.join(" · ")} of ${r.matched || r.previewed}`}
    </span>
  );
}

/** The product's redrive requests with their state, polled only while one is queued or running (and the tab is visible). */
export function RedriveRequests({ productId }: { productId: string }) {
  const client = useQueryClient();
  const list = useQuery({
    queryKey: queryKeys.products.redrives(productId),
    queryFn: ({ signal }) => api<RedriveList>(`/api/v1/products/${productId}/dlq/redrive`, { signal }),
    refetchInterval: (q) => (q.state.data?.redrives.some((r) => ACTIVE.has(r.status)) ? POLL_MS : false),
  });
  const decide = useMutation<unknown, ApiError, { id: string; decision: "approve" | "reject"; reason?: string }>({
    mutationFn: ({ id, ...body }) => api(`/api/v1/products/${productId}/dlq/redrive/${id}/decision`, { method: "POST", body }),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.products.redrives(productId) }),
  });
  if (list.isError) return <ErrorAlert message={list.error.message} />;
  if (!list.data || list.data.redrives.length === 0) return null;
  return (
    <section aria-label="Redrives" className="space-y-2">
      <h3 className="text-sm font-semibold">Redrives</h3>
      {decide.error && <ErrorAlert message={decide.error.message} />}
      <ul className="divide-y divide-slate-200 text-sm">
        {list.data.redrives.map((r) => (
          <li key={r.id} className="flex flex-wrap items-center gap-x-4 gap-y-1 py-2" data-testid="redrive-request">
            <Badge value={r.status} />
            <Progress r={r} />
            <span className="text-slate-600">
              {r.requestedBy ?? "someone"} · {formatDateTime(r.createdAt)}
              {r.decidedBy && r.status !== "APPROVED" && r.status !== "RUNNING" && r.status !== "DONE" ? ` · ${r.status === "REJECTED" ? "rejected" : "decided"} by ${r.decidedBy}` : ""}
            </span>
            {r.reason && <span className="text-slate-600">“{r.reason}”</span>}
            {r.error && <span className="text-rose-800">{r.error}</span>}
            {r.decisionReason && r.status === "REJECTED" && <span className="text-rose-800">{r.decisionReason}</span>}
            {r.status === "REQUESTED" && r.mine && <span className="text-slate-500">waits for another owner or governance (four eyes)</span>}
            {r.canDecide && (
              <span className="flex gap-2">
                <Button disabled={decide.isPending} onClick={() => decide.mutate({ id: r.id, decision: "approve" })}>
                  Approve redrive
                </Button>
                <ReasonAction label="Reject" confirmLabel="Reject redrive" pending={decide.isPending} error={null} onConfirm={(reason) => decide.mutate({ id: r.id, decision: "reject", reason })} />
              </span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

type QueuedRedrive = ReviewQueue["redrives"][number];

function selectionText(selection: unknown): string {
  const s = selection as { kind?: string; records?: unknown[]; rule?: string } | null;
  if (s?.kind === "records") return `${s.records?.length ?? 0} selected`;
  if (s?.kind === "filter") return s.rule ? `failed ${s.rule}` : "a filter";
  return "all";
}

/** The review queue's card: redrives waiting for a second person, decided in place (the decider sees counts, not records: reading data is a grant). */
export function RedriveReviewCard({ redrives }: { redrives: QueuedRedrive[] }) {
  const client = useQueryClient();
  const decide = useMutation<unknown, ApiError, { productId: string; id: string; decision: "approve" | "reject"; reason?: string }>({
    mutationFn: ({ productId, id, ...body }) => api(`/api/v1/products/${productId}/dlq/redrive/${id}/decision`, { method: "POST", body }),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.reviewQueue }),
  });
  if (redrives.length === 0) return null;
  return (
    <Card title={`Redrives of dead letters (${redrives.length})`}>
      {decide.error && <ErrorAlert message={decide.error.message} />}
      <ul className="divide-y divide-slate-200" aria-label="Redrives waiting for a second person">
        {redrives.map((r) => (
          <li key={r.id} className="flex flex-col gap-3 py-4 first:pt-0 last:pb-0 md:flex-row md:items-start md:justify-between" data-testid="review-redrive">
            <div className="min-w-0 text-sm">
              <p>
                <Link href={`/products/${r.product.id}`} className="font-medium text-indigo-700 hover:underline">{r.product.name}</Link> · {r.previewed} dead letter{r.previewed === 1 ? "" : "s"} ({selectionText(r.selection)}) back to <span className="font-mono">{r.product.topicName}</span>
              </p>
              <p className="mt-1 text-slate-600">
                {r.product.domain.name} · {r.product.classification} · requested <Ago iso={r.createdAt} />
                {r.requestedBy ? ` by ${r.requestedBy.name}` : ""}
              </p>
              {r.reason && <p className="mt-1 text-slate-600">“{r.reason}”</p>}
            </div>
            <div className="flex flex-wrap items-start gap-2 md:justify-end">
              {r.mine ? (
                <p className="text-sm text-slate-500">Your own redrive (four-eyes rule)</p>
              ) : (
                <>
                  <Button disabled={decide.isPending} onClick={() => decide.mutate({ productId: r.product.id, id: r.id, decision: "approve" })} aria-label={`Approve the redrive of ${r.previewed} dead letters of ${r.product.name}`}>
                    Approve redrive
                  </Button>
                  <ReasonAction label="Reject" confirmLabel="Reject redrive" pending={decide.isPending} error={null} onConfirm={(reason) => decide.mutate({ productId: r.product.id, id: r.id, decision: "reject", reason })} />
                </>
              )}
            </div>
          </li>
        ))}
      </ul>
    </Card>
  );
}
