"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { keyText, RecordValue } from "@/components/record-value";
import { RedriveDialog, RedriveRequests, type RedriveSelection } from "@/components/redrive";
import { Button, Card, ErrorAlert } from "@/components/ui";
import { api } from "@/lib/api-client";
import type { DeadLetterPage } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { queryKeys } from "@/lib/query-keys";

/*
 * The DLQ panel (issue 29), for the product's owners: how many records the
 * dead-letter topic holds and how fast it grows (the worker's samples), a
 * chart of what it held per minute, and the newest records with the rule each
 * failed. The server decides who sees it (owners only) and decodes the values
 * like the message browser; this only shows them.
 */

const POLL_MS = 10_000;

/** What the topic held per minute, as a bar per sample; the exact figures are in the text beside it. */
function HeldChart({ history }: { history: DeadLetterPage["history"] }) {
  if (history.length < 2) return null;
  const max = Math.max(1, ...history.map((h) => h.records));
  const w = 300;
  const h = 48;
  const step = w / history.length;
  return (
    <svg viewBox={`0 0 ${w} ${h}`} className="h-12 w-full max-w-md" role="img" aria-label={`Records held over the last ${history.length} minutes sampled, from ${history[0]?.records ?? 0} to ${history.at(-1)?.records ?? 0}.`} data-testid="dlq-chart">
      {history.map((p, i) => {
        const bar = Math.max(1, (p.records / max) * h);
        return <rect key={p.bucket} x={i * step} y={h - bar} width={Math.max(1, step - 1)} height={bar} fill="var(--chart-bar)" />;
      })}
    </svg>
  );
}

export function DeadLetterPanel({ productId, live }: { productId: string; live: boolean }) {
  const page = useQuery({
    queryKey: queryKeys.products.deadLetters(productId),
    queryFn: ({ signal }) => api<DeadLetterPage>(`/api/v1/products/${productId}/dlq`, { signal }),
    refetchInterval: live ? POLL_MS : false,
  });
  const title = page.data ? `Dead-letter topic · ${page.data.topic}` : "Dead-letter topic";
  // Redrive (issue 29): ticked records, keyed partition:offset; the dialog opens with a selection.
  const [ticked, setTicked] = useState<Set<string>>(new Set());
  const [redrive, setRedrive] = useState<RedriveSelection | null>(null);
  const [rule, setRule] = useState("");
  const rules = [...new Set((page.data?.records ?? []).flatMap((r) => (r.rule ? [r.rule] : [])))].sort();
  const shownRule = rules.includes(rule) ? rule : (rules[0] ?? "");
  const toggle = (key: string) =>
    setTicked((prev) => {
      const next = new Set(prev);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const selected = [...ticked].map((k) => {
    const [partition, offset] = k.split(":");
    return { partition: Number(partition), offset: offset ?? "" };
  });
  return (
    <Card title={title} actions={<span className="text-xs text-slate-500">Owners only{live ? ` · every ${POLL_MS / 1000} s` : ""}</span>}>
      {page.isPending && <p className="text-sm text-slate-500">Reading the dead-letter topic…</p>}
      {page.isError && <ErrorAlert message={page.error.message} />}
      {page.data && (
        <div className="space-y-4" data-testid="dlq-panel">
          <dl className="flex flex-wrap gap-6 text-sm">
            <div>
              <dt className="text-slate-500">Records held</dt>
              <dd className="text-lg font-semibold" data-testid="dlq-count">{page.data.count ?? "not observed yet"}</dd>
            </div>
            <div>
              <dt className="text-slate-500">Added in the last hour</dt>
              <dd className="text-lg font-semibold" data-testid="dlq-rate">{page.data.addedLastHour ?? "not observed yet"}</dd>
            </div>
            {page.data.observedAt && (
              <div>
                <dt className="text-slate-500">Observed by the worker</dt>
                <dd>{formatDateTime(page.data.observedAt)}</dd>
              </div>
            )}
          </dl>
          <HeldChart history={page.data.history} />
          {page.data.note && <p className="text-sm text-slate-600">{page.data.note}</p>}
          {page.data.records.length === 0 && !page.data.note && <p className="text-sm text-slate-600">No dead letters: every record passed the rules (or nobody writes through a serializer that runs them).</p>}
          {page.data.records.length > 0 && (
            <div className="flex flex-wrap items-center gap-2" role="group" aria-label="Redrive dead letters back to the product topic">
              <Button disabled={ticked.size === 0} onClick={() => setRedrive({ kind: "records", records: selected })}>
                Redrive selected ({ticked.size})
              </Button>
              {rules.length > 0 && (
                <>
                  {rules.length > 1 && (
                    <select aria-label="Rule to redrive" className="rounded border border-slate-300 px-2 py-1 text-sm" value={shownRule} onChange={(e) => setRule(e.target.value)}>
                      {rules.map((x) => (
                        <option key={x}>{x}</option>
                      ))}
                    </select>
                  )}
                  <Button variant="secondary" onClick={() => setRedrive({ kind: "filter", rule: shownRule })}>
                    Redrive all matching {shownRule}
                  </Button>
                </>
              )}
              <Button variant="secondary" onClick={() => setRedrive({ kind: "all" })}>
                Redrive all
              </Button>
            </div>
          )}
          {page.data.records.length > 0 && (
            <ol className="space-y-3" aria-label="Newest dead letters">
              {page.data.records.map((r) => (
                <li key={`${r.partition}:${r.offset}`} className="rounded border border-slate-200 p-3" data-testid="dlq-record">
                  <p className="mb-2 flex flex-wrap gap-x-4 text-xs text-slate-600">
                    <label className="flex items-center gap-1">
                      <input type="checkbox" checked={ticked.has(`${r.partition}:${r.offset}`)} onChange={() => toggle(`${r.partition}:${r.offset}`)} aria-label={`Select the dead letter at partition ${r.partition}, offset ${r.offset}`} data-testid="dlq-select" />
                      <span className="sr-only">Select</span>
                    </label>
                    <span>
                      Failed rule: <strong className="text-slate-900" data-testid="dlq-rule">{r.rule ?? "not named by the writer"}</strong>
                      {r.mode ? ` (${r.mode})` : ""}
                    </span>
                    <span>partition {r.partition} · offset {r.offset}</span>
                    <span>{formatDateTime(r.timestamp)}</span>
                    <span>key {keyText(r.key)}</span>
                  </p>
                  {r.error && <p className="mb-2 text-xs text-rose-800">{r.error}</p>}
                  <RecordValue value={r.value} />
                </li>
              ))}
            </ol>
          )}
          <RedriveRequests productId={productId} />
          {redrive && (
            <RedriveDialog
              productId={productId}
              selection={redrive}
              onClose={() => {
                setRedrive(null);
                setTicked(new Set());
              }}
            />
          )}
        </div>
      )}
    </Card>
  );
}
