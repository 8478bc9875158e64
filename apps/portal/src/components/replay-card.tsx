"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, type ApiError } from "@/lib/api-client";
import type { ReplayAnswer, ReplayItem } from "@/lib/api-types";
import { formText } from "@/lib/form-text";
import { formatBytes, formatCount, formatLagTime } from "@/lib/observations";
import { queryKeys } from "@/lib/query-keys";
import { Ago } from "./relative-time";
import { Badge, Button, ErrorAlert, Field, inputClass, Notice } from "./ui";

type ToKind = "earliest" | "latest" | "timestamp" | "offsets" | "shiftBy";

interface GroupLag {
  groupId: string;
  state: string;
  members: number;
  totalLag: number;
}

function buildTo(kind: ToKind, f: FormData): unknown {
  if (kind === "earliest" || kind === "latest") return kind;
  if (kind === "timestamp") return { timestamp: Date.parse(`${formText(f, "timestamp")}Z`) };
  if (kind === "shiftBy") return { shiftBy: Number(f.get("shiftBy") ?? 0) };
  const offsets = formText(f, "offsets")
    .split(/[\n,]+/)
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [p, o] = l.split(":").map((x) => Number(x.trim()));
      return { partition: p ?? -1, offset: o ?? -1 };
    });
  return { offsets };
}

/**
 * Governed replay: preview where the group would go and what it will read
 * (from object storage or local disk, how long at its recent pace), then have
 * the worker apply it and watch the lag drain.
 */
export function ReplayCard({ subscriptionId, groupPrefix, groups }: { subscriptionId: string; groupPrefix: string; groups: GroupLag[] }) {
  const client = useQueryClient();
  const [kind, setKind] = useState<ToKind>("earliest");
  const [preview, setPreview] = useState<{ body: { group?: string; to: unknown }; answer: ReplayAnswer } | null>(null);
  const replays = useQuery({
    queryKey: queryKeys.subscriptions.replays(subscriptionId),
    queryFn: ({ signal }) => api<ReplayItem[]>(`/api/v1/subscriptions/${subscriptionId}/replays`, { signal }),
    refetchInterval: (q) => (q.state.data?.some((r) => r.status === "PENDING") ? 2_000 : 15_000),
  });
  const previewMutation = useMutation<ReplayAnswer, ApiError, { group?: string; to: unknown }>({
    mutationFn: (body) => api(`/api/v1/subscriptions/${subscriptionId}/replay`, { method: "POST", body: { ...body, dryRun: true } }),
    onSuccess: (answer, body) => setPreview({ body, answer }),
  });
  const run = useMutation<ReplayAnswer, ApiError, { group?: string; to: unknown }>({
    mutationFn: (body) => api(`/api/v1/subscriptions/${subscriptionId}/replay`, { method: "POST", body }),
    onSuccess: () => {
      setPreview(null);
      return client.invalidateQueries({ queryKey: queryKeys.subscriptions.replays(subscriptionId) });
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const f = new FormData(event.currentTarget);
    const group = formText(f, "group").trim();
    previewMutation.mutate({ ...(group ? { group } : {}), to: buildTo(kind, f) });
  }
  const p = preview?.answer;
  const latest = replays.data?.[0];
  const lagOf = (g: string) => groups.find((x) => x.groupId === g);
  return (
    <div className="space-y-4" data-testid="replay">
      <form onSubmit={submit} className="grid gap-3 sm:grid-cols-2" aria-label="Replay">
        <Field id="r-group" label="Consumer group" hint={`Yours start with ${groupPrefix}; stop its consumers first.`}>
          {(a) => (
            <input {...a} name="group" list="r-groups" defaultValue={groups[0]?.groupId ?? ""} placeholder={`${groupPrefix}my-app`} className={inputClass} />
          )}
        </Field>
        <datalist id="r-groups">{groups.map((g) => <option key={g.groupId} value={g.groupId} />)}</datalist>
        <Field id="r-to" label="Replay to">
          {(a) => (
            <select {...a} value={kind} onChange={(e) => setKind(e.target.value as ToKind)} className={inputClass}>
              <option value="earliest">Earliest (everything retained)</option>
              <option value="latest">Latest (skip to the end)</option>
              <option value="timestamp">A time (UTC)</option>
              <option value="offsets">Offsets per partition</option>
              <option value="shiftBy">Shift by N records</option>
            </select>
          )}
        </Field>
        {kind === "timestamp" && <Field id="r-ts" label="Time (UTC)">{(a) => <input {...a} name="timestamp" type="datetime-local" step={1} required className={inputClass} />}</Field>}
        {kind === "shiftBy" && <Field id="r-shift" label="Shift (negative: back)">{(a) => <input {...a} name="shiftBy" type="number" defaultValue={-100} className={inputClass} />}</Field>}
        {kind === "offsets" && <Field id="r-offsets" label="partition:offset, one per line">{(a) => <textarea {...a} name="offsets" rows={3} placeholder={"0:1200\n1:980"} className={inputClass} />}</Field>}
        <div className="flex items-end">
          <Button type="submit" variant="secondary" disabled={previewMutation.isPending}>{previewMutation.isPending ? "Computing…" : "Preview"}</Button>
        </div>
      </form>
      <ErrorAlert message={previewMutation.error?.message ?? run.error?.message ?? null} />
      {p && (
        <div className="space-y-3 rounded-md bg-slate-50 p-3 ring-1 ring-slate-200" data-testid="replay-preview">
          <p className="text-sm">
            <strong>{p.groupId}</strong> would read <strong data-testid="replay-preview-records">{formatCount(p.records)}</strong> records
            {p.totals.rereadRecords > 0 ? ` (${formatCount(p.totals.rereadRecords)} again)` : ""}
            {p.totals.skippedRecords > 0 ? `, skipping ${formatCount(p.totals.skippedRecords)}` : ""}: {p.totals.remoteRecords === null ? "split between tiers unknown" : `${formatCount(p.totals.remoteRecords)} from object storage (${formatBytes(p.totals.remoteBytes)}), ${formatCount(p.totals.localRecords)} from the brokers' disks (${formatBytes(p.totals.localBytes)})`}
            {" · "}
            {p.etaSeconds === null ? "time unknown (the group has not consumed recently)" : `about ${formatLagTime(p.etaSeconds * 1000)} at its recent ${formatCount(Math.round(p.rate ?? 0))} records/s`}
          </p>
          <div className="overflow-x-auto">
            <table className="w-full text-left text-xs">
              <thead className="uppercase text-slate-500">
                <tr><th scope="col" className="py-1 pr-2">Partition</th><th scope="col" className="py-1 pr-2">Now</th><th scope="col" className="py-1 pr-2">New offset</th><th scope="col" className="py-1 pr-2">Records</th><th scope="col" className="py-1 pr-2">Object storage</th><th scope="col" className="py-1">Local disk</th></tr>
              </thead>
              <tbody className="divide-y divide-slate-200 font-mono">
                {p.partitions.map((x) => (
                  <tr key={x.partition}><td className="py-1 pr-2">{x.partition}</td><td className="py-1 pr-2">{x.from ?? "none"}</td><td className="py-1 pr-2">{x.to}</td><td className="py-1 pr-2">{formatCount(x.records)}</td><td className="py-1 pr-2">{formatCount(x.remoteRecords)}</td><td className="py-1">{formatCount(x.localRecords)}</td></tr>
                ))}
              </tbody>
            </table>
          </div>
          {p.notes.map((n) => <p key={n} className="text-xs text-slate-600">{n}</p>)}
          {p.blocked ? (
            <p className="text-sm text-rose-800" role="alert">{p.blocked}</p>
          ) : (
            <Button variant="danger" disabled={run.isPending} onClick={() => preview && run.mutate(preview.body)}>{run.isPending ? "Requesting…" : "Run replay"}</Button>
          )}
        </div>
      )}
      {latest && (
        <div className="text-sm" data-testid="replay-status">
          <p className="flex flex-wrap items-center gap-2">
            Last replay of <span className="font-mono">{latest.groupId}</span> <Badge value={latest.status === "APPLIED" ? "DONE" : latest.status === "REFUSED" ? "FAILED" : latest.status} label={latest.status.toLowerCase()} /> <Ago iso={latest.createdAt} />
          </p>
          {latest.error && <p className="text-rose-800">{latest.error}</p>}
          {latest.status === "PENDING" && <Notice>The worker applies it within seconds, once it has checked that the group has no members.</Notice>}
          {latest.status === "APPLIED" && (
            <CatchUp lag={lagOf(latest.groupId)} rate={typeof latest.preview === "object" && latest.preview !== null && "rate" in latest.preview && typeof latest.preview.rate === "number" ? latest.preview.rate : null} />
          )}
        </div>
      )}
    </div>
  );
}

function CatchUp({ lag, rate }: { lag: GroupLag | undefined; rate: number | null }) {
  if (!lag) return <p className="text-slate-600">Start the group's consumers: its lag shows here as it catches up.</p>;
  if (lag.totalLag === 0) return <p className="text-emerald-800" data-testid="replay-caught-up">Caught up: lag 0.</p>;
  return (
    <p data-testid="replay-progress">
      Catching up: {formatCount(lag.totalLag)} records behind{rate ? `, about ${formatLagTime((lag.totalLag / rate) * 1000)} left at ${formatCount(Math.round(rate))} records/s` : ""}.
    </p>
  );
}
