"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { NOTIFICATION_KINDS } from "@kappa/catalog/notification-kinds";
import { Ago, Until } from "@/components/relative-time";
import { Badge, Button, Card, EmptyState, ErrorAlert, Field, inputClass, Loading, Notice, PageHeader } from "@/components/ui";
import { api, type ApiError } from "@/lib/api-client";
import type { DomainWebhook, WebhookLog } from "@/lib/api-types";
import { formText } from "@/lib/form-text";
import { formatDateTime } from "@/lib/format";
import { queryKeys } from "@/lib/query-keys";

const KINDS = Object.entries(NOTIFICATION_KINDS).filter(([k]) => k !== "webhook.test");

export function WebhooksView({ domain }: { domain: { id: string; name: string } }) {
  const client = useQueryClient();
  const list = useQuery({
    queryKey: queryKeys.webhooks.domain(domain.id),
    queryFn: ({ signal }) => api<DomainWebhook[]>(`/api/v1/domains/${domain.id}/webhooks`, { signal }),
    refetchInterval: 5_000,
  });
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const create = useMutation<{ webhook: { url: string }; secret: string }, ApiError, { url: string; description: string; kinds: string[] }>({
    mutationFn: (body) => api(`/api/v1/domains/${domain.id}/webhooks`, { method: "POST", body }),
    onSuccess: (created) => {
      setSecret({ url: created.webhook.url, secret: created.secret });
      return client.invalidateQueries({ queryKey: queryKeys.webhooks.domain(domain.id) });
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    create.mutate({ url: formText(form, "url"), description: formText(form, "description"), kinds: form.getAll("kinds").map(String) });
  }
  const fields = create.error?.fields ?? {};
  return (
    <div className="space-y-6">
      <PageHeader
        title={`Webhooks · ${domain.name}`}
        description="Events about your domain's products and subscriptions, POSTed as JSON and signed: X-Kappa-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of “t.body” with the endpoint's secret>. Failed deliveries are retried with backoff; each attempt is logged below."
      />
      {secret && (
        <div className="rounded-md bg-emerald-50 p-4 text-sm text-emerald-950 ring-1 ring-emerald-200" role="status" data-testid="webhook-secret">
          <p className="font-medium">Signing secret for {secret.url} — shown once, store it now:</p>
          <code className="mt-2 block break-all rounded bg-white px-2 py-1 font-mono text-xs ring-1 ring-emerald-200">{secret.secret}</code>
          <Button className="mt-2" variant="secondary" onClick={() => void navigator.clipboard?.writeText(secret.secret)}>Copy</Button>
        </div>
      )}
      <Card title="Add an endpoint">
        <form onSubmit={submit} className="space-y-3">
          <Field id="webhook-url" label="URL" errors={fields.url} hint="https://… (the worker refuses private and loopback addresses unless the platform allows them)">
            {(a) => <input {...a} name="url" type="url" required placeholder="https://hooks.example.com/kappa" className={inputClass} />}
          </Field>
          <Field id="webhook-description" label="Description" errors={fields.description}>
            {(a) => <input {...a} name="description" maxLength={500} className={inputClass} />}
          </Field>
          <fieldset>
            <legend className="text-sm font-medium text-slate-800">Events (none ticked: all)</legend>
            <div className="mt-1 grid gap-1 sm:grid-cols-2">
              {KINDS.map(([kind, label]) => (
                <label key={kind} className="flex items-center gap-2 text-sm">
                  <input type="checkbox" name="kinds" value={kind} /> {label} <span className="font-mono text-xs text-slate-500">{kind}</span>
                </label>
              ))}
            </div>
          </fieldset>
          <ErrorAlert message={create.error && !create.error.fields?.url ? create.error.message : null} />
          <Button type="submit" disabled={create.isPending}>{create.isPending ? "Adding…" : "Add endpoint"}</Button>
        </form>
      </Card>
      {list.isPending ? <Loading /> : list.isError ? <ErrorAlert message={list.error.message} /> : list.data.length === 0 ? (
        <EmptyState title="No webhooks yet" />
      ) : (
        <ul className="space-y-4" data-testid="webhooks">
          {list.data.map((w) => <WebhookItem key={w.id} webhook={w} domainId={domain.id} />)}
        </ul>
      )}
    </div>
  );
}

function WebhookItem({ webhook, domainId }: { webhook: DomainWebhook; domainId: string }) {
  const client = useQueryClient();
  const [showLog, setShowLog] = useState(false);
  const refresh = () =>
    Promise.all([client.invalidateQueries({ queryKey: queryKeys.webhooks.domain(domainId) }), client.invalidateQueries({ queryKey: queryKeys.webhooks.deliveries(webhook.id) })]);
  const test = useMutation<unknown, ApiError, void>({ mutationFn: () => api(`/api/v1/webhooks/${webhook.id}/test`, { method: "POST" }), onSuccess: () => { setShowLog(true); return refresh(); } });
  const toggle = useMutation<unknown, ApiError, boolean>({ mutationFn: (active) => api(`/api/v1/webhooks/${webhook.id}`, { method: "PATCH", body: { active } }), onSuccess: refresh });
  const remove = useMutation<unknown, ApiError, void>({ mutationFn: () => api(`/api/v1/webhooks/${webhook.id}`, { method: "DELETE" }), onSuccess: refresh });
  const counts = webhook.deliveries as Record<string, number>;
  return (
    <li className="rounded-lg bg-white p-4 ring-1 ring-slate-200">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <p className="break-all font-mono text-sm font-medium">{webhook.url}</p>
          {webhook.description && <p className="text-sm text-slate-600">{webhook.description}</p>}
          <p className="mt-1 text-xs text-slate-500">
            {webhook.kinds.length === 0 ? "all events" : webhook.kinds.join(", ")} · delivered {counts.DELIVERED ?? 0} · pending {counts.PENDING ?? 0} · failed {counts.FAILED ?? 0}
          </p>
        </div>
        <Badge value={webhook.active ? "ACTIVE" : "DRAFT"} label={webhook.active ? "active" : "paused"} />
      </div>
      <div className="mt-3 flex flex-wrap gap-2">
        <Button variant="secondary" disabled={test.isPending} onClick={() => test.mutate()}>{test.isPending ? "Queuing…" : "Send test"}</Button>
        <Button variant="secondary" onClick={() => toggle.mutate(!webhook.active)}>{webhook.active ? "Pause" : "Resume"}</Button>
        <Button variant="secondary" aria-expanded={showLog} onClick={() => setShowLog((v) => !v)}>{showLog ? "Hide delivery log" : "Delivery log"}</Button>
        <Button variant="danger" onClick={() => window.confirm(`Remove ${webhook.url} and its delivery log?`) && remove.mutate()}>Remove</Button>
      </div>
      {test.isSuccess && <div className="mt-2"><Notice>Test delivery queued; the worker sends it within seconds.</Notice></div>}
      <ErrorAlert message={test.error?.message ?? toggle.error?.message ?? remove.error?.message ?? null} />
      {showLog && <DeliveryLog webhookId={webhook.id} />}
    </li>
  );
}

function DeliveryLog({ webhookId }: { webhookId: string }) {
  const log = useQuery({
    queryKey: queryKeys.webhooks.deliveries(webhookId),
    queryFn: ({ signal }) => api<WebhookLog>(`/api/v1/webhooks/${webhookId}/deliveries`, { signal }),
    refetchInterval: 3_000,
  });
  if (log.isPending) return <Loading />;
  if (log.isError) return <ErrorAlert message={log.error.message} />;
  if (log.data.deliveries.length === 0) return <p className="mt-3 text-sm text-slate-600">No deliveries yet.</p>;
  return (
    <div className="mt-3 overflow-x-auto">
      <table className="w-full text-left text-xs" data-testid="delivery-log">
        <caption className="sr-only">Deliveries, newest first</caption>
        <thead className="uppercase text-slate-500">
          <tr>
            <th scope="col" className="py-1 pr-3">Event</th>
            <th scope="col" className="py-1 pr-3">Created</th>
            <th scope="col" className="py-1 pr-3">Status</th>
            <th scope="col" className="py-1">Attempts (delivered, refused by the platform, failed with HTTP n or timed out)</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-200">
          {log.data.deliveries.map((d) => (
            <tr key={d.id}>
              <td className="py-1 pr-3 font-mono">{d.kind}</td>
              <td className="py-1 pr-3"><Ago iso={d.createdAt} title={formatDateTime(d.createdAt)} /></td>
              <td className="py-1 pr-3"><Badge value={d.status === "DELIVERED" ? "DONE" : d.status} label={d.status.toLowerCase()} /></td>
              <td className="py-1 font-mono" data-testid="delivery-attempts">
                {d.log.length === 0 ? "waiting" : d.log.map((a) => `${a.attempt}: ${a.outcome}${a.durationMs === null ? "" : ` (${a.durationMs} ms)`}`).join(" · ")}
                {d.status === "PENDING" && d.log.length > 0 && <span className="text-slate-500"> · next attempt <Until iso={d.nextAttemptAt} /></span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
