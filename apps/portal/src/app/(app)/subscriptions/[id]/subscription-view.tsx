"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePermissions } from "@/components/actor-context";
import { Credentials } from "@/components/credentials";
import { ConsumerLagList, ProvisioningSteps } from "@/components/observations";
import { ReplayCard } from "@/components/replay-card";
import { SubscriptionObjectives } from "@/components/slo";
import { SnippetTabs } from "@/components/snippets";
import { SubscriptionExpiry } from "@/components/subscription-expiry";
import { Badge, Button, Card, DefinitionList, ErrorAlert } from "@/components/ui";
import { api, type ApiError } from "@/lib/api-client";
import type { SubscriptionDetail } from "@/lib/api-types";
import { kafkajsSnippet, kcatCommand } from "@/lib/connection-snippets";
import { formatDateTime, humanize } from "@/lib/format";
import { useRetryTask } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";

const POLL_MS = 3000;

export function SubscriptionView({ initial, registryUrl }: { initial: SubscriptionDetail; registryUrl: string }) {
  const { data: sub } = useQuery({
    queryKey: queryKeys.subscriptions.detail(initial.id),
    queryFn: ({ signal }) => api<SubscriptionDetail>(`/api/v1/subscriptions/${initial.id}`, { signal }),
    initialData: initial,
    refetchInterval: POLL_MS,
  });
  const retry = useRetryTask();
  const perms = usePermissions();
  const granted = sub.status === "APPROVED" || sub.status === "ACTIVE";

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <p className="text-sm text-slate-500">
            Subscription of {sub.consumingDomain.name} to <Link href={`/products/${sub.product.id}`} className="text-indigo-700 underline underline-offset-2 hover:no-underline">{sub.product.name}</Link> ({sub.product.domainName})
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
        <div className="min-w-0 space-y-6 lg:col-span-2">
          <Card title="Connect" actions={<span className="text-xs text-slate-500">SASL/SCRAM-SHA-512</span>}>
            <ConnectionSnippets sub={sub} registryUrl={registryUrl} />
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
          {sub.status !== "REJECTED" && (
            <Card title="Objectives and alerts" actions={<span className="text-xs text-slate-500">Live · every {POLL_MS / 1000} s</span>}>
              <SubscriptionObjectives subscriptionId={sub.id} />
            </Card>
          )}
          {granted && perms.canInDomain("subscription:replay", sub.consumingDomain.id) && (
            <Card title="Replay" actions={<span className="text-xs text-slate-500">reset a consumer group</span>}>
              <ReplayCard subscriptionId={sub.id} groupPrefix={sub.connection.groupPrefix} groups={sub.consumers.map((c) => ({ groupId: c.groupId, state: c.state, members: c.members, totalLag: c.totalLag }))} />
            </Card>
          )}
        </div>
        <div className="space-y-6">
          <Card title="Access">
            <DefinitionList
              items={[
                ["Status", humanize(sub.status)],
                ["Environment", sub.environment],
                ["Requested", formatDateTime(sub.createdAt)],
                ["Decided", formatDateTime(sub.decidedAt)],
                ["Purpose", sub.purpose],
                ["Personal data", sub.pii.requested ? (sub.pii.approvedAt ? `unmasked (granted ${formatDateTime(sub.pii.approvedAt)})` : "asked for; masked until governance grants it") : "masked (not asked for)"],
                ...(sub.reason ? [["Reason", sub.reason] as [string, string]] : []),
              ]}
            />
            {sub.pii.requested && sub.pii.justification && <p className="mt-2 text-xs text-slate-600">PII justification: {sub.pii.justification}</p>}
            {sub.pii.canApprove && <GrantPii subscriptionId={sub.id} />}
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
          <Card title="Expiry">
            <SubscriptionExpiry subscriptionId={sub.id} expiresAt={sub.expiresAt} certifiedAt={sub.certifiedAt} canSet={sub.viewer.canSetExpiry} granted={granted || sub.status === "REQUESTED"} />
          </Card>
          <Card title="Credentials">
            <Credentials account={sub.serviceAccount} domainName={sub.consumingDomain.name} credentials={sub.credentials} shownIn={queryKeys.subscriptions.detail(sub.id)} />
          </Card>
        </div>
      </div>
    </div>
  );
}

function ConnectionSnippets({ sub, registryUrl }: { sub: SubscriptionDetail; registryUrl: string }) {
  return (
    <div className="space-y-3">
      <DefinitionList
        items={[
          ["Bootstrap", <span key="b" className="font-mono" data-testid="bootstrap">{sub.connection.bootstrap}</span>],
          ["SASL mechanism", sub.connection.mechanism],
          ["User", <span key="u" className="font-mono">{sub.connection.username}</span>],
          ["Topic", <span key="t" className="font-mono">{sub.connection.topic}</span>],
          ["Consumer groups", <span key="g" className="font-mono">{sub.connection.groupPrefix}*</span>],
          ["Schema registry", <span key="r" className="font-mono break-all">{registryUrl}</span>],
          ["Password", <span key="p">from <code className="font-mono">KAFKA_PASSWORD</code> (see Credentials)</span>],
        ]}
      />
      <SnippetTabs
        label="Consumer snippet"
        tabs={[
          { id: "kafkajs", label: "kafkajs", code: kafkajsSnippet(sub.connection, { url: registryUrl }) },
          { id: "kcat", label: "kcat", code: kcatCommand(sub.connection) },
        ]}
      />
    </div>
  );
}

/** Governance: grant the subscription's stated need for personal data. */
function GrantPii({ subscriptionId }: { subscriptionId: string }) {
  const client = useQueryClient();
  const grant = useMutation<unknown, ApiError, void>({
    mutationFn: () => api(`/api/v1/subscriptions/${subscriptionId}/approve-pii`, { method: "POST" }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.subscriptions.detail(subscriptionId) }),
  });
  return (
    <div className="mt-3 space-y-2">
      <Button variant="secondary" disabled={grant.isPending} onClick={() => grant.mutate()}>Grant personal data (PII)</Button>
      <ErrorAlert message={grant.error?.message ?? null} />
    </div>
  );
}
