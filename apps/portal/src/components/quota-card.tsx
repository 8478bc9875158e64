"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, type ApiError } from "@/lib/api-client";
import { formatBytes } from "@/lib/observations";
import { QuotaUsageChart } from "./lazy-charts";
import { Button, Card, DefinitionList, ErrorAlert, Field, inputClass, Loading, Notice } from "./ui";

interface Quota {
  class: string;
  producerByteRate: number;
  consumerByteRate: number;
  requestPercentage: number;
}

/** GET /api/v1/{products|subscriptions}/{id}/quota (@kappa/catalog quotaUsage). */
export interface QuotaUsageView {
  account: { id: string; name: string } | null;
  direction: "produce" | "consume";
  inForce: Quota | null;
  chosen: Quota;
  requested: { class: string; reason: string | null } | null;
  classes: Array<Quota & { needsApproval: boolean; isDefault: boolean }>;
  limitBytesPerSecond: number | null;
  points: { t: number; bytesPerSecond: number }[];
  latestBytesPerSecond: number | null;
  peakBytesPerSecond: number | null;
  peakPercentOfQuota: number | null;
  windowMs: number;
}

const rate = (n: number | null) => (n === null ? "no data yet" : `${formatBytes(n)}/s`);

/**
 * The client quota in force for a product's producer account or a
 * subscription's account (class and rates), a larger class waiting for
 * governance, and how close the account runs to its byte rate over the last
 * hours (the worker's per-minute observations), with a chart. On a product
 * page its owners choose the class here.
 */
export function QuotaCard({ kind, id, canChoose = false }: { kind: "product" | "subscription"; id: string; canChoose?: boolean }) {
  const path = `/api/v1/${kind === "product" ? "products" : "subscriptions"}/${id}/quota`;
  const quota = useQuery({ queryKey: [kind, id, "quota"], queryFn: ({ signal }) => api<QuotaUsageView>(path, { signal }), refetchInterval: 30_000 });
  const title = kind === "product" ? "Producer quota" : "Client quota";
  if (quota.isPending) return <Card title={title}><Loading /></Card>;
  if (quota.isError) return <Card title={title}><ErrorAlert message={quota.error.message} /></Card>;
  const q = quota.data;
  const limitName = q.direction === "produce" ? "producer_byte_rate" : "consumer_byte_rate";
  const hours = Math.round(q.windowMs / 3_600_000);
  return (
    <Card title={title} actions={<span className="text-xs text-slate-500">{q.account ? `User:${q.account.name}` : "no producer account yet"}</span>}>
      <div className="space-y-3 text-sm" data-testid="quota-card">
        {q.inForce ? (
          <DefinitionList
            items={[
              ["Class in force", <span key="c" data-testid="quota-class">{q.inForce.class}</span>],
              ["producer_byte_rate", <span key="p" data-testid="quota-producer-rate">{formatBytes(q.inForce.producerByteRate)}/s</span>],
              ["consumer_byte_rate", <span key="r" data-testid="quota-consumer-rate">{formatBytes(q.inForce.consumerByteRate)}/s</span>],
              ["request_percentage", `${q.inForce.requestPercentage} %`],
            ]}
          />
        ) : (
          <p data-testid="quota-none">No quota is set: the account has no live use (the class chosen here, {q.chosen.class}, applies once it has).</p>
        )}
        {q.inForce && q.chosen.class !== q.inForce.class ? (
          <p className="text-xs text-slate-600">
            This {kind} chose <strong>{q.chosen.class}</strong>; the account runs under <strong>{q.inForce.class}</strong>, the largest class of its live {q.direction === "produce" ? "products" : "subscriptions"}.
          </p>
        ) : null}
        {q.requested ? (
          <p className="rounded-md bg-amber-50 p-2 text-amber-900 ring-1 ring-amber-200" data-testid="quota-requested">
            <strong>{q.requested.class}</strong> waits for governance{q.requested.reason ? `: “${q.requested.reason}”` : ""}.
          </p>
        ) : null}
        <p data-testid="quota-usage">
          Last {hours} h, {q.direction === "produce" ? "written" : "read"} by the account: now <strong data-testid="quota-latest">{rate(q.latestBytesPerSecond)}</strong>, peak{" "}
          <strong data-testid="quota-peak">{rate(q.peakBytesPerSecond)}</strong>
          {q.peakPercentOfQuota !== null ? (
            <>
              {" "}
              — <strong data-testid="quota-percent">{q.peakPercentOfQuota} %</strong> of its {limitName}
            </>
          ) : null}
          .
        </p>
        {q.points.length > 0 ? (
          <QuotaUsageChart
            points={q.points}
            limit={q.limitBytesPerSecond}
            label={`Bytes per second per minute over the last ${hours} hours, peak ${rate(q.peakBytesPerSecond)}${q.limitBytesPerSecond !== null ? ` against a quota of ${formatBytes(q.limitBytesPerSecond)}/s` : ""}.`}
          />
        ) : null}
        {canChoose ? <ChooseClass kind={kind} id={id} view={q} /> : null}
      </div>
    </Card>
  );
}

function ChooseClass({ kind, id, view }: { kind: "product" | "subscription"; id: string; view: QuotaUsageView }) {
  const client = useQueryClient();
  const [name, setName] = useState(view.requested?.class ?? view.chosen.class);
  const [reason, setReason] = useState("");
  const [saved, setSaved] = useState<string | null>(null);
  const selected = view.classes.find((c) => c.class === name);
  const save = useMutation<unknown, ApiError, void>({
    mutationFn: () => api(`/api/v1/products/${id}/quota-class`, { method: "PUT", body: { quotaClass: name, ...(reason.trim() ? { reason } : {}) } }),
    onSuccess: async () => {
      setSaved(selected?.needsApproval ? `${name} waits for governance.` : `${name} is in force; the worker applies it within seconds.`);
      await client.invalidateQueries({ queryKey: [kind, id, "quota"] });
    },
  });
  const errors = save.error?.fields ?? {};
  return (
    <form
      className="space-y-2 border-t border-slate-200 pt-3"
      onSubmit={(e) => {
        e.preventDefault();
        setSaved(null);
        save.mutate();
      }}
    >
      <Field id="quota-class" label="Quota class" errors={errors.quotaClass} hint="Larger than the default needs governance's approval, with a reason.">
        {(p) => (
          <select {...p} className={inputClass} value={name} onChange={(e) => setName(e.target.value)}>
            {view.classes.map((c) => (
              <option key={c.class} value={c.class}>
                {c.class} — produce {formatBytes(c.producerByteRate)}/s, consume {formatBytes(c.consumerByteRate)}/s{c.isDefault ? " (default)" : c.needsApproval ? " (needs approval)" : ""}
              </option>
            ))}
          </select>
        )}
      </Field>
      {selected?.needsApproval ? (
        <Field id="quota-reason" label="Why this class is needed" errors={errors.reason}>
          {(p) => <textarea {...p} className={inputClass} rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />}
        </Field>
      ) : null}
      {save.isError && Object.keys(errors).length === 0 ? <ErrorAlert message={save.error.message} /> : null}
      {saved ? <Notice>{saved}</Notice> : null}
      <Button type="submit" variant="secondary" disabled={save.isPending}>
        {selected?.needsApproval ? "Ask for this class" : "Set quota class"}
      </Button>
    </form>
  );
}
