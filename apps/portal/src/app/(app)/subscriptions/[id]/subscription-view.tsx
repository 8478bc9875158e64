"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ConsumerLagList, ProvisioningSteps } from "@/components/observations";
import { Badge, Button, Card, DefinitionList, ErrorAlert, Notice } from "@/components/ui";
import { api } from "@/lib/api-client";
import type { SubscriptionDetail } from "@/lib/api-types";
import { kafkajsSnippet, kcatCommand } from "@/lib/connection-snippets";
import { formatDateTime, humanize } from "@/lib/format";
import { useRetryTask, useRevealCredentials, useRotateCredentials } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";

const POLL_MS = 3000;

export function SubscriptionView({ initial }: { initial: SubscriptionDetail }) {
  const { data: sub } = useQuery({
    queryKey: queryKeys.subscriptions.detail(initial.id),
    queryFn: ({ signal }) => api<SubscriptionDetail>(`/api/v1/subscriptions/${initial.id}`, { signal }),
    initialData: initial,
    refetchInterval: POLL_MS,
  });
  const retry = useRetryTask();
  const granted = sub.status === "APPROVED" || sub.status === "ACTIVE";

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <p className="text-sm text-slate-500">
            Subscription of {sub.consumingDomain.name} to <Link href={`/products/${sub.product.id}`} className="text-indigo-700 hover:underline">{sub.product.name}</Link> ({sub.product.domainName})
          </p>
          <h1 className="mt-1 flex flex-wrap items-center gap-3 text-2xl font-semibold tracking-tight">
            {sub.product.name} <span className="text-slate-400">←</span> <span className="font-mono text-xl">User:{sub.serviceAccount.name}</span>
            <span data-testid="subscription-status"><Badge value={sub.status} /></span>
          </h1>
          <p className="mt-1 font-mono text-sm text-slate-600">{sub.product.topicName}</p>
        </div>
      </div>

      {sub.product.sunsetAt && (
        <div className="rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200">
          <strong>{humanize(sub.product.status)}:</strong> the product sunsets {formatDateTime(sub.product.sunsetAt)}; plan to move off it before then.
        </div>
      )}

      <div className="grid gap-6 lg:grid-cols-3">
        <div className="space-y-6 lg:col-span-2">
          <Card title="Connect" actions={<span className="text-xs text-slate-500">SASL/SCRAM-SHA-512</span>}>
            <ConnectionSnippets sub={sub} />
          </Card>
          <Card title="Your lag" actions={<span className="text-xs text-slate-500">Live · every {POLL_MS / 1000} s</span>}>
            <ConsumerLagList
              consumers={sub.consumers}
              samples={sub.lagSamples}
              empty={
                granted ? (
                  <>No consumer group under <code className="font-mono">{sub.connection.groupPrefix}</code> has committed offsets on this topic yet. Start a consumer with the snippet above.</>
                ) : (
                  "No access at the moment, so there is no lag to show."
                )
              }
            />
          </Card>
        </div>
        <div className="space-y-6">
          <Card title="Access">
            <DefinitionList
              items={[
                ["Status", humanize(sub.status)],
                ["Requested", formatDateTime(sub.createdAt)],
                ["Decided", formatDateTime(sub.decidedAt)],
                ["Purpose", sub.purpose],
                ...(sub.reason ? [["Reason", sub.reason] as [string, string]] : []),
              ]}
            />
            {sub.provisioning.length > 0 && (
              <div className="mt-4">
                <h3 className="mb-2 text-xs font-medium uppercase tracking-wide text-slate-500">On the cluster</h3>
                <ProvisioningSteps
                  steps={sub.provisioning}
                  canRetry={sub.viewer.canRetry}
                  onRetry={(taskId) => retry.mutate({ taskId, subscriptionId: sub.id })}
                  retrying={retry.isPending}
                  retryError={retry.isError ? retry.error.message : null}
                />
              </div>
            )}
          </Card>
          <Card title="Credentials">
            <Credentials sub={sub} />
          </Card>
        </div>
      </div>
    </div>
  );
}

function Credentials({ sub }: { sub: SubscriptionDetail }) {
  const reveal = useRevealCredentials(sub.id);
  const rotate = useRotateCredentials(sub.id);
  const { credentials: c, serviceAccount: account } = sub;
  const domain = sub.consumingDomain.name;

  if (reveal.data) {
    return (
      <div className="space-y-3" data-testid="revealed-credentials">
        <Notice>Shown once: store the password in your secret manager now. This page will not show it again.</Notice>
        <CopyField label="User name" value={reveal.data.username} />
        <CopyField label="Password" value={reveal.data.password} secret />
      </div>
    );
  }
  return (
    <div className="space-y-3 text-sm" data-testid="credentials">
      <p>
        Service account <span className="font-mono">User:{account.name}</span> of {domain}.
      </p>
      {c.state === "not-issued" && <p className="text-slate-600">The worker has not issued credentials for this account yet; this updates by itself.</p>}
      {c.state === "waiting" &&
        (c.canManage ? (
          <>
            <p className="text-slate-600">A password was issued {formatDateTime(c.issuedAt)}. It can be shown exactly once.</p>
            <Button disabled={reveal.isPending} onClick={() => reveal.mutate({ serviceAccountId: account.id })}>
              {reveal.isPending ? "Revealing…" : "Reveal password"}
            </Button>
          </>
        ) : (
          <p className="text-slate-600">A password is waiting; only an owner of {domain} can pick it up, once.</p>
        ))}
      {c.state === "shown" && (
        <p className="text-slate-600" data-testid="credentials-shown">
          The password issued {formatDateTime(c.issuedAt)} was already shown once and is not stored anywhere readable.
        </p>
      )}
      <ErrorAlert message={reveal.isError ? reveal.error.message : rotate.isError ? rotate.error.message : null} />
      {c.rotation && c.rotation.status !== "FAILED" && <Notice>New credentials requested {formatDateTime(c.rotation.requestedAt)}; the worker is issuing them. Reveal them here once they are ready.</Notice>}
      {c.rotation?.status === "FAILED" && <ErrorAlert message={`Credential rotation failed: ${c.rotation.lastError ?? "no message"}`} />}
      {c.canManage && c.state === "shown" && !(c.rotation && c.rotation.status !== "FAILED") && (
        <Button variant="secondary" disabled={rotate.isPending} onClick={() => rotate.mutate({ serviceAccountId: account.id })}>
          {rotate.isPending ? "Requesting…" : "Rotate credentials"}
        </Button>
      )}
      {c.canManage && c.state === "shown" && <p className="text-xs text-slate-500">Rotation replaces the password on the cluster; clients using the old one stop authenticating.</p>}
    </div>
  );
}

function CopyField({ label, value, secret }: { label: string; value: string; secret?: boolean }) {
  const [copied, setCopied] = useState(false);
  const id = `copy-${label.toLowerCase().replace(/\W+/g, "-")}`;
  return (
    <div>
      <label htmlFor={id} className="block text-xs font-medium text-slate-600">{label}</label>
      <div className="mt-1 flex gap-2">
        <input id={id} readOnly value={value} className="block w-full rounded-md border-0 bg-slate-50 px-3 py-2 font-mono text-xs ring-1 ring-inset ring-slate-300" autoComplete="off" spellCheck={false} data-secret={secret ? "true" : undefined} onFocus={(e) => e.currentTarget.select()} />
        <Button
          variant="secondary"
          onClick={() => {
            void navigator.clipboard?.writeText(value).then(() => setCopied(true));
          }}
          aria-label={`Copy ${label.toLowerCase()}`}
        >
          Copy
        </Button>
      </div>
      <span role="status" aria-live="polite" className="text-xs text-emerald-700">{copied ? `${label} copied.` : ""}</span>
    </div>
  );
}

function ConnectionSnippets({ sub }: { sub: SubscriptionDetail }) {
  const [tab, setTab] = useState<"kafkajs" | "kcat">("kafkajs");
  const code = tab === "kafkajs" ? kafkajsSnippet(sub.connection) : kcatCommand(sub.connection);
  return (
    <div className="space-y-3">
      <DefinitionList
        items={[
          ["Bootstrap", <span key="b" className="font-mono" data-testid="bootstrap">{sub.connection.bootstrap}</span>],
          ["SASL mechanism", sub.connection.mechanism],
          ["User", <span key="u" className="font-mono">{sub.connection.username}</span>],
          ["Topic", <span key="t" className="font-mono">{sub.connection.topic}</span>],
          ["Consumer groups", <span key="g" className="font-mono">{sub.connection.groupPrefix}*</span>],
          ["Password", <span key="p">from <code className="font-mono">KAFKA_PASSWORD</code> (see Credentials)</span>],
        ]}
      />
      <div role="tablist" aria-label="Snippet" className="flex gap-1">
        {(["kafkajs", "kcat"] as const).map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            id={`tab-${t}`}
            aria-selected={tab === t}
            aria-controls="snippet-panel"
            onClick={() => setTab(t)}
            className={tab === t ? "rounded-md bg-indigo-50 px-3 py-1.5 text-sm font-medium text-indigo-700" : "rounded-md px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-100"}
          >
            {t === "kafkajs" ? "kafkajs" : "kcat"}
          </button>
        ))}
      </div>
      <pre id="snippet-panel" role="tabpanel" aria-labelledby={`tab-${tab}`} tabIndex={0} className="overflow-auto rounded-md bg-slate-900 p-4 font-mono text-xs leading-relaxed text-slate-100" data-testid="snippet">
        {code}
      </pre>
      <SnippetCopy code={code} />
    </div>
  );
}

function SnippetCopy({ code }: { code: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="flex items-center gap-3">
      <Button variant="secondary" onClick={() => void navigator.clipboard?.writeText(code).then(() => setCopied(true))}>Copy snippet</Button>
      <span role="status" aria-live="polite" className="text-xs text-emerald-700">{copied ? "Copied." : ""}</span>
    </div>
  );
}
