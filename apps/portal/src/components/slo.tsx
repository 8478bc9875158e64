"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, type ApiError } from "@/lib/api-client";
import { formText } from "@/lib/form-text";
import { formatDateTime, formatSeconds } from "@/lib/format";
import { formatCount, formatLagTime, type LagSeries } from "@/lib/observations";
import { queryKeys } from "@/lib/query-keys";
import type { AlertItem, ProductSlo, SubscriptionSlo, Verdict } from "@/lib/slo-types";
import { ObjectiveChart } from "./lazy-charts";
import { Ago } from "./relative-time";
import { Badge, Button, ErrorAlert, Field, inputClass, Loading } from "./ui";

/*
 * SLOs on the subscription and product pages: the subscriber's lag objectives
 * with each group's lag in records and seconds against them (live), the
 * product's freshness against its SLA, and the alert history. The worker
 * evaluates the rules; these cards only show what it recorded.
 */

const POLL_MS = 3000;
const KIND_LABELS: Record<string, string> = { LAG_RECORDS: "Lag (records)", LAG_SECONDS: "Lag (seconds)", FRESHNESS: "Freshness", DLQ_GROWTH: "Dead letters" };

function VerdictBadge({ verdict }: { verdict: Verdict }) {
  if (verdict === null) return <span className="text-xs text-slate-500">no objective</span>;
  return <Badge value={verdict} label={verdict === "MET" ? "within objective" : verdict === "BREACHED" ? "above objective" : "not known yet"} />;
}

function series(points: { groupId: string; bucket: string; value: number | null }[]): LagSeries {
  const groups = [...new Set(points.map((p) => p.groupId))].sort();
  const rows = new Map<number, { t: number } & Record<string, number>>();
  for (const p of points) {
    if (p.value === null) continue;
    const t = new Date(p.bucket).getTime();
    const row = rows.get(t) ?? { t };
    row[p.groupId] = p.value;
    rows.set(t, row);
  }
  return { points: [...rows.values()].sort((a, b) => a.t - b.t), groups };
}

export function AlertList({ alerts, empty, queryKey }: { alerts: AlertItem[]; empty: string; queryKey: readonly unknown[] }) {
  if (alerts.length === 0) return <p className="text-sm text-slate-600" data-testid="alert-list-empty">{empty}</p>;
  return (
    <ul className="divide-y divide-slate-200" data-testid="alert-list">
      {alerts.map((a) => (
        <li key={a.id} className="py-2" data-testid="alert" data-status={a.status}>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <span className="text-sm font-medium">{KIND_LABELS[a.kind] ?? a.kind}{a.groupId ? <> · <span className="font-mono">{a.groupId}</span></> : null}</span>
            <span className="flex gap-1">
              {a.silence && <Badge value="DEPRECATED" label="silenced" />}
              {a.status === "FIRING" && a.acknowledgedAt && <Badge value="PENDING" label="acknowledged" />}
              <Badge value={a.status} label={a.status === "FIRING" ? "firing" : "resolved"} />
            </span>
          </div>
          <p className="mt-1 text-sm text-slate-700">{a.message}</p>
          <p className="mt-1 text-xs text-slate-500">
            fired {formatDateTime(a.firedAt)}
            {a.resolvedAt ? ` · resolved ${formatDateTime(a.resolvedAt)}` : <> · <Ago iso={a.firedAt} /></>} · worst {formatCount(Math.round(a.peakValue))}
          </p>
          {a.status === "FIRING" && a.acknowledgedAt && <p className="mt-1 text-xs text-slate-600" data-testid="alert-acknowledged">Acknowledged by {a.acknowledgedBy ?? "a former user"} {formatDateTime(a.acknowledgedAt)}.</p>}
          {a.silence && (
            <p className="mt-1 text-xs text-amber-800" data-testid="alert-silence">
              Silenced by {a.silence.by ?? "a former user"} until {formatDateTime(a.silence.until)}: no notifications until then; if it still fires when the silence ends, it notifies again.
              {a.silence.reason ? ` Reason: ${a.silence.reason}` : ""}
            </p>
          )}
          {a.canSilence && <AlertActions alert={a} queryKey={queryKey} />}
        </li>
      ))}
    </ul>
  );
}

const SILENCE_CHOICES = [
  { value: "1h", label: "1 hour" },
  { value: "24h", label: "24 hours" },
  { value: "7d", label: "7 days" },
  { value: "until", label: "until a date…" },
] as const;

/** An owner acknowledges a firing alert, or silences its rule for a time (1 h, 24 h, 7 days, until a date), or ends the silence. */
function AlertActions({ alert: a, queryKey }: { alert: AlertItem; queryKey: readonly unknown[] }) {
  const client = useQueryClient();
  const [choice, setChoice] = useState<(typeof SILENCE_CHOICES)[number]["value"]>("1h");
  const [until, setUntil] = useState("");
  const [reason, setReason] = useState("");
  const done = () => client.invalidateQueries({ queryKey });
  const acknowledge = useMutation<unknown, ApiError>({ mutationFn: () => api(`/api/v1/alerts/${a.id}/acknowledge`, { method: "POST" }), onSuccess: done });
  const silence = useMutation<unknown, ApiError>({
    mutationFn: () => {
      const when = choice === "until" ? (until ? new Date(until) : null) : null;
      const body = choice === "until" ? { until: when && !Number.isNaN(when.getTime()) ? when.toISOString() : until } : { duration: choice };
      return api(`/api/v1/alerts/${a.id}/silence`, { method: "POST", body: { ...body, ...(reason.trim() ? { reason: reason.trim() } : {}) } });
    },
    onSuccess: done,
  });
  const unsilence = useMutation<unknown, ApiError>({ mutationFn: () => api(`/api/v1/alerts/${a.id}/silence`, { method: "DELETE" }), onSuccess: done });
  const error = acknowledge.error ?? silence.error ?? unsilence.error;
  return (
    <div className="mt-2 flex flex-wrap items-end gap-2" data-testid="alert-actions">
      {!a.acknowledgedAt && <Button variant="secondary" disabled={acknowledge.isPending} onClick={() => acknowledge.mutate()}>Acknowledge</Button>}
      {a.silence ? (
        <Button variant="secondary" disabled={unsilence.isPending} onClick={() => unsilence.mutate()}>End silence</Button>
      ) : (
        <>
          <label className="text-xs">
            <span className="block text-slate-600">Silence for</span>
            <select className={inputClass} value={choice} onChange={(e) => setChoice(e.target.value as typeof choice)}>
              {SILENCE_CHOICES.map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
            </select>
          </label>
          {choice === "until" && (
            <label className="text-xs">
              <span className="block text-slate-600">Silence until</span>
              <input type="datetime-local" className={inputClass} value={until} onChange={(e) => setUntil(e.target.value)} />
            </label>
          )}
          <label className="text-xs">
            <span className="block text-slate-600">Reason (optional)</span>
            <input className={inputClass} value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} />
          </label>
          <Button variant="secondary" disabled={silence.isPending} onClick={() => silence.mutate()}>Silence</Button>
        </>
      )}
      {error && <ErrorAlert message={[error.message, ...Object.values(error.fields ?? {}).flat()].filter((m, i, all) => all.indexOf(m) === i).join(" ")} />}
    </div>
  );
}

function ObjectiveForm({ subscriptionId, objective }: { subscriptionId: string; objective: SubscriptionSlo["objective"] }) {
  const client = useQueryClient();
  const [saved, setSaved] = useState(false);
  const save = useMutation<unknown, ApiError, { maxLagRecords: number | null; maxLagSeconds: number | null }>({
    mutationFn: (body) => api(`/api/v1/subscriptions/${subscriptionId}/objectives`, { method: "PUT", body }),
    onSuccess: () => {
      setSaved(true);
      return client.invalidateQueries({ queryKey: queryKeys.subscriptions.objectives(subscriptionId) });
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(false);
    const f = new FormData(event.currentTarget);
    const num = (name: string) => {
      const raw = formText(f, name).trim().replace(/[,_\s]/g, "");
      return raw === "" ? null : Number(raw);
    };
    save.mutate({ maxLagRecords: num("maxLagRecords"), maxLagSeconds: num("maxLagSeconds") });
  }
  return (
    <form onSubmit={submit} className="grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-end" aria-label="Lag objectives">
      <Field id="slo-records" label="Max lag (records)" hint="Empty: no objective." errors={save.error?.fields.maxLagRecords}>
        {(a) => <input {...a} name="maxLagRecords" inputMode="numeric" defaultValue={objective?.maxLagRecords ?? ""} className={inputClass} />}
      </Field>
      <Field id="slo-seconds" label="Max lag (seconds)" hint="Age of the next record to read." errors={save.error?.fields.maxLagSeconds}>
        {(a) => <input {...a} name="maxLagSeconds" inputMode="numeric" defaultValue={objective?.maxLagSeconds ?? ""} className={inputClass} />}
      </Field>
      <div className="pb-5">
        <Button type="submit" disabled={save.isPending}>Save objectives</Button>
      </div>
      <div className="sm:col-span-3" aria-live="polite">
        {saved && !save.isPending && <p className="text-sm text-emerald-700">Saved. The worker checks them after every observation cycle.</p>}
        <ErrorAlert message={save.error && Object.keys(save.error.fields).length === 0 ? save.error.message : null} />
      </div>
    </form>
  );
}

/** The subscription page's "Objectives and alerts" card. */
export function SubscriptionObjectives({ subscriptionId }: { subscriptionId: string }) {
  const q = useQuery({
    queryKey: queryKeys.subscriptions.objectives(subscriptionId),
    queryFn: ({ signal }) => api<SubscriptionSlo>(`/api/v1/subscriptions/${subscriptionId}/objectives`, { signal }),
    refetchInterval: POLL_MS,
  });
  if (q.isPending) return <Loading />;
  if (q.isError) return <ErrorAlert message={q.error.message} />;
  const d = q.data;
  const o = d.objective;
  const records = series(d.history.map((h) => ({ groupId: h.groupId, bucket: h.bucket, value: h.totalLag })));
  const seconds = series(d.history.map((h) => ({ groupId: h.groupId, bucket: h.bucket, value: h.timeLagMs === null ? null : Math.round(h.timeLagMs / 1000) })));
  return (
    <div className="space-y-4" data-testid="objectives">
      {d.firing > 0 && (
        <p role="status" className="rounded-md bg-rose-50 p-3 text-sm font-medium text-rose-900 ring-1 ring-rose-200" data-testid="alerts-firing">
          {d.firing === 1 ? "1 alert is firing" : `${d.firing} alerts are firing`} on this subscription.
        </p>
      )}
      {d.canEdit ? (
        <ObjectiveForm subscriptionId={subscriptionId} objective={o} />
      ) : (
        <p className="text-sm text-slate-700">
          {o ? `Objectives: at most ${o.maxLagRecords === null ? "—" : `${formatCount(o.maxLagRecords)} records`} and ${o.maxLagSeconds === null ? "—" : formatSeconds(o.maxLagSeconds)} behind.` : "No lag objectives set."} The subscribing domain's owners set them.
        </p>
      )}
      {o && <p className="text-xs text-slate-600" data-testid="inactive-rule">A consumer group with no members for more than {formatSeconds(d.inactiveAfterMs / 1000)} is shown as inactive and its lag does not alert; it is watched again as soon as a consumer joins.</p>}
      {d.groups.length > 0 && (
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm" data-testid="objective-table">
            <caption className="sr-only">Each consumer group's lag against the objectives</caption>
            <thead className="text-xs uppercase text-slate-500">
              <tr>
                <th scope="col" className="py-1 pr-3">Group</th>
                <th scope="col" className="py-1 pr-3">Records behind</th>
                <th scope="col" className="py-1 pr-3">Time behind</th>
                <th scope="col" className="py-1">Observed</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-200">
              {d.groups.map((g) => (
                <tr key={g.groupId} data-testid="objective-row">
                  <td className="py-2 pr-3 font-mono">
                    {g.groupId}
                    {g.inactiveSince && (
                      <span className="mt-1 block font-sans text-xs text-amber-800" data-testid="group-inactive">
                        <Badge value="DEPRECATED" label="inactive" /> no members since {formatDateTime(g.inactiveSince)}: its lag (where it stopped) does not alert until a consumer joins again.
                      </span>
                    )}
                  </td>
                  <td className="py-2 pr-3">
                    <span data-testid="objective-records">{formatCount(g.totalLag)}</span>
                    {o?.maxLagRecords != null && <span className="text-slate-500"> / {formatCount(o.maxLagRecords)}</span>} <VerdictBadge verdict={g.records} />
                  </td>
                  <td className="py-2 pr-3">
                    <span data-testid="objective-seconds">{formatLagTime(g.timeLagMs)}</span>
                    {o?.maxLagSeconds != null && <span className="text-slate-500"> / {formatSeconds(o.maxLagSeconds)}</span>} <VerdictBadge verdict={g.seconds} />
                    {g.partitions.some((p) => p.timeLagMethod === "read") && <span className="block text-xs text-slate-500">read from the next record&apos;s timestamp</span>}
                  </td>
                  <td className="py-2 text-xs text-slate-500"><Ago iso={g.observedAt} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {records.points.length >= 2 && <ObjectiveChart series={records} objective={o?.maxLagRecords ?? null} unit="records" label={`Lag in records per minute against the objective${o?.maxLagRecords != null ? ` of ${formatCount(o.maxLagRecords)}` : ""}.`} testId="objective-chart-records" />}
      {o?.maxLagSeconds != null && seconds.points.length >= 2 && <ObjectiveChart series={seconds} objective={o.maxLagSeconds} unit="s" label={`Lag in seconds per minute against the objective of ${o.maxLagSeconds} s.`} testId="objective-chart-seconds" />}
      <div>
        <h3 className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-500">Alert history</h3>
        <AlertList alerts={d.alerts} empty="No alert so far." queryKey={queryKeys.subscriptions.objectives(subscriptionId)} />
      </div>
    </div>
  );
}

const FRESHNESS_LABELS: Record<string, string> = { MET: "met", AT_RISK: "at risk", BREACHED: "breached", NO_DATA: "no records yet", UNKNOWN: "not measured yet" };

/** The product page's "Freshness and alerts" card. */
/** `live`: poll while true (the product page passes whether its Live section is on screen). */
export function ProductFreshness({ productId, live = true }: { productId: string; live?: boolean }) {
  const q = useQuery({
    queryKey: queryKeys.products.slo(productId),
    queryFn: ({ signal }) => api<ProductSlo>(`/api/v1/products/${productId}/slo`, { signal }),
    refetchInterval: live ? POLL_MS : false,
  });
  if (q.isPending) return <Loading />;
  if (q.isError) return <ErrorAlert message={q.error.message} />;
  const { freshness: f, history, alerts } = q.data;
  const ages = series(history.map((h) => ({ groupId: "age of the newest record", bucket: h.bucket, value: h.ageMs === null ? null : Math.round(h.ageMs / 1000) })));
  return (
    <div className="space-y-4" data-testid="freshness">
      <div className="flex flex-wrap items-center gap-3">
        <span data-testid="freshness-status"><Badge value={f.status} label={FRESHNESS_LABELS[f.status] ?? f.status} /></span>
        <span className="text-sm text-slate-700">
          newest record {f.ageMs === null ? "—" : <strong data-testid="freshness-age">{formatLagTime(f.ageMs)}</strong>} old · target within {formatSeconds(f.targetSeconds)}
        </span>
      </div>
      {ages.points.length >= 2 && <ObjectiveChart series={ages} objective={f.targetSeconds} unit="s" label={`Age of the newest record per minute against the freshness target of ${f.targetSeconds} s.`} testId="freshness-chart" />}
      <div>
        <h3 className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-500">Alert history</h3>
        <AlertList alerts={alerts} empty="No alert so far." queryKey={queryKeys.products.slo(productId)} />
      </div>
    </div>
  );
}
