"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { memo } from "react";
import { usePermissions } from "@/components/actor-context";
import { Credentials } from "@/components/credentials";
import { Link } from "@/components/link";
import { ConsumerLagList, ProvisioningSteps } from "@/components/observations";
import { QuotaCard } from "@/components/quota-card";
import { ReasonAction } from "@/components/reason-form";
import { SnippetTabs } from "@/components/snippets";
import { SubscriptionExpiry } from "@/components/subscription-expiry";
import { Badge, Button, Card, DefinitionList, ErrorAlert, Loading } from "@/components/ui";
import { PanelPlaceholder, usePageIdle, WhenNear } from "@/components/when-near";
import { api, type ApiError } from "@/lib/api-client";
import type { SubscriptionDetail } from "@/lib/api-types";
import { javaSnippet, kcatCommand, platformaticSnippet, pythonSnippet } from "@/lib/connection-snippets";
import { formatDateTime, humanize } from "@/lib/format";
import { useRetryTask, useSubscriptionAction } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import { cancelHint, revokeHint } from "@/lib/reason-audience";

const POLL_MS = 3000;

/*
 * The detail is polled every few seconds for the lag, but most of the page
 * (header, Connect, Access, Expiry, Credentials) does not change with it: each
 * card is a memoised component given only its slice of the detail, which
 * TanStack Query's structural sharing keeps the same object while it does not
 * change, so a poll redraws the lag and little else. The first poll waits
 * until the page is idle; the cards with queries of their own (quota,
 * objectives, replay) mount when they come near the viewport
 * (components/when-near.tsx).
 */
const OBJECTIVES_PLACEHOLDER = <PanelPlaceholder title="Objectives and alerts" height="h-64" />;
const REPLAY_PLACEHOLDER = <PanelPlaceholder title="Replay" height="h-64" />;
/** The quota card as it renders while its own query is pending: the same HTML, so nothing moves when it mounts. */
const QUOTA_PLACEHOLDER = (
  <Card title="Client quota">
    <Loading />
  </Card>
);
/** Inside its card while the deferred panel's code loads. */
const PANEL_LOADING = (
  <div className="h-56" aria-busy="true">
    <Loading />
  </div>
);

// The deferred panels' code is not in the page's first load either: it is fetched when WhenNear mounts them.
const SubscriptionObjectives = dynamic(() => import("@/components/slo").then((m) => m.SubscriptionObjectives), { ssr: false, loading: () => PANEL_LOADING });
const ReplayCard = dynamic(() => import("@/components/replay-card").then((m) => m.ReplayCard), { ssr: false, loading: () => PANEL_LOADING });

export function SubscriptionView({ initial, registryUrl }: { initial: SubscriptionDetail; registryUrl: string }) {
  const idle = usePageIdle();
  const { data: sub } = useQuery({
    queryKey: queryKeys.subscriptions.detail(initial.id),
    queryFn: ({ signal }) => api<SubscriptionDetail>(`/api/v1/subscriptions/${initial.id}`, { signal }),
    initialData: initial,
    refetchInterval: idle ? POLL_MS : false,
  });
  const perms = usePermissions();
  const granted = sub.status === "APPROVED" || sub.status === "ACTIVE";

  return (
    <div className="space-y-6">
      <Header consumingDomain={sub.consumingDomain.name} product={sub.product} account={sub.serviceAccount.name} status={sub.status} />

      <div className="grid gap-6 lg:grid-cols-3">
        <div className="min-w-0 space-y-6 lg:col-span-2">
          <ConnectCard connection={sub.connection} registryUrl={registryUrl} />
          <LagCard consumers={sub.consumers} samples={sub.lagSamples} granted={granted} groupPrefix={sub.connection.groupPrefix} />
          {sub.status !== "REJECTED" && (
            <WhenNear placeholder={QUOTA_PLACEHOLDER}>
              <QuotaCard kind="subscription" id={sub.id} />
            </WhenNear>
          )}
          {sub.status !== "REJECTED" && (
            <WhenNear placeholder={OBJECTIVES_PLACEHOLDER}>
              <ObjectivesCard subscriptionId={sub.id} />
            </WhenNear>
          )}
          {granted && perms.canInDomain("subscription:replay", sub.consumingDomain.id) && (
            <WhenNear placeholder={REPLAY_PLACEHOLDER}>
              <Card title="Replay" actions={<span className="text-xs text-slate-500">reset a consumer group</span>}>
                <ReplayCard subscriptionId={sub.id} groupPrefix={sub.connection.groupPrefix} groups={sub.consumers.map((c) => ({ groupId: c.groupId, state: c.state, members: c.members, totalLag: c.totalLag }))} />
              </Card>
            </WhenNear>
          )}
        </div>
        <div className="space-y-6">
          <AccessCard
            id={sub.id}
            status={sub.status}
            environment={sub.environment}
            createdAt={sub.createdAt}
            decidedAt={sub.decidedAt}
            purpose={sub.purpose}
            reason={sub.reason}
            pii={sub.pii}
            provisioning={sub.provisioning}
            environmentWait={sub.environmentWait}
            canRetry={sub.viewer.canRetry}
          />
          {(sub.viewer.canDecide || sub.viewer.canRevoke || sub.viewer.canCancel) && (
            <DecisionCard
              id={sub.id}
              productId={sub.product.id}
              status={sub.status}
              consumingDomain={sub.consumingDomain.name}
              productDomain={sub.product.domainName}
              canDecide={sub.viewer.canDecide}
              canRevoke={sub.viewer.canRevoke}
              canCancel={sub.viewer.canCancel}
            />
          )}
          <ExpiryCard subscriptionId={sub.id} expiresAt={sub.expiresAt} certifiedAt={sub.certifiedAt} canSet={sub.viewer.canSetExpiry} granted={granted || sub.status === "REQUESTED"} />
          <CredentialsCard subscriptionId={sub.id} account={sub.serviceAccount} domainName={sub.consumingDomain.name} credentials={sub.credentials} />
        </div>
      </div>
    </div>
  );
}

const Header = memo(function Header({ consumingDomain, product, account, status }: { consumingDomain: string; product: SubscriptionDetail["product"]; account: string; status: string }) {
  return (
    <>
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <p className="text-sm text-slate-500">
            Subscription of {consumingDomain} to <Link href={`/products/${product.id}`} className="text-indigo-700 underline underline-offset-2 hover:no-underline">{product.name}</Link> ({product.domainName})
          </p>
          <h1 className="mt-1 flex flex-wrap items-center gap-3 text-2xl font-semibold tracking-tight">
            {product.name} <span className="text-slate-400">←</span> <span className="font-mono text-xl">User:{account}</span>
            <span data-testid="subscription-status"><Badge value={status} /></span>
          </h1>
          <p className="mt-1 font-mono text-sm text-slate-600">{product.topicName}</p>
        </div>
      </div>

      {product.sunsetAt && (
        <div className="rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200">
          <strong>{humanize(product.status)}:</strong> the product sunsets {formatDateTime(product.sunsetAt)}; plan to move off it before then.
        </div>
      )}
    </>
  );
});

const ConnectCard = memo(function ConnectCard({ connection, registryUrl }: { connection: SubscriptionDetail["connection"]; registryUrl: string }) {
  return (
    <Card title="Connect" actions={<span className="text-xs text-slate-500">SASL/SCRAM-SHA-512</span>}>
      <div className="space-y-3">
        <DefinitionList
          items={[
            ["Bootstrap", <span key="b" className="font-mono" data-testid="bootstrap">{connection.bootstrap}</span>],
            ["SASL mechanism", connection.mechanism],
            ["User", <span key="u" className="font-mono">{connection.username}</span>],
            ["Topic", <span key="t" className="font-mono">{connection.topic}</span>],
            ["Consumer groups", <span key="g" className="font-mono">{connection.groupPrefix}*</span>],
            ["Schema registry", <span key="r" className="font-mono break-all">{registryUrl}</span>],
            ["Password", <span key="p">from <code className="font-mono">KAFKA_PASSWORD</code> (see Credentials)</span>],
          ]}
        />
        <SnippetTabs
          label="Consumer snippet"
          tabs={[
            { id: "javascript", label: "JavaScript", code: platformaticSnippet(connection, { url: registryUrl }) },
            { id: "java", label: "Java", code: javaSnippet(connection, { url: registryUrl }) },
            { id: "python", label: "Python", code: pythonSnippet(connection, { url: registryUrl }) },
            { id: "kcat", label: "kcat", code: kcatCommand(connection) },
          ]}
        />
      </div>
    </Card>
  );
});

const LagCard = memo(function LagCard({ consumers, samples, granted, groupPrefix }: { consumers: SubscriptionDetail["consumers"]; samples: SubscriptionDetail["lagSamples"]; granted: boolean; groupPrefix: string }) {
  return (
    <Card title="Your lag" actions={<span className="text-xs text-slate-500">Live · every {POLL_MS / 1000} s</span>}>
      <ConsumerLagList
        consumers={consumers}
        samples={samples}
        empty={
          granted ? (
            <>No consumer group under <code className="font-mono">{groupPrefix}</code> has committed offsets on this topic yet. Start a consumer with the snippet above.</>
          ) : (
            "No access at the moment, so there is no lag to show."
          )
        }
      />
    </Card>
  );
});

/** Polls its own query (objectives and alerts); the detail's poll need not redraw it. */
const ObjectivesCard = memo(function ObjectivesCard({ subscriptionId }: { subscriptionId: string }) {
  return (
    <Card title="Objectives and alerts" actions={<span className="text-xs text-slate-500">Live · every {POLL_MS / 1000} s</span>}>
      <SubscriptionObjectives subscriptionId={subscriptionId} />
    </Card>
  );
});

const AccessCard = memo(function AccessCard({
  id,
  status,
  environment,
  createdAt,
  decidedAt,
  purpose,
  reason,
  pii,
  provisioning,
  environmentWait,
  canRetry,
}: Pick<SubscriptionDetail, "id" | "status" | "environment" | "createdAt" | "decidedAt" | "purpose" | "reason" | "pii" | "provisioning" | "environmentWait"> & { canRetry: boolean }) {
  const retry = useRetryTask();
  return (
    <Card title="Access">
      <DefinitionList
        items={[
          ["Status", humanize(status)],
          ["Environment", environment],
          ["Requested", formatDateTime(createdAt)],
          ["Decided", formatDateTime(decidedAt)],
          ["Purpose", purpose],
          ["Personal data", pii.requested ? (pii.approvedAt ? `unmasked (granted ${formatDateTime(pii.approvedAt)})` : "asked for; masked until governance grants it") : "masked (not asked for)"],
          ...(reason ? [["Reason", reason] as [string, string]] : []),
        ]}
      />
      {pii.requested && pii.justification && <p className="mt-2 text-xs text-slate-600">PII justification: {pii.justification}</p>}
      {pii.requested && !pii.approvedAt && (
        <p className="mt-2 text-xs text-slate-600" data-testid="pii-rule">
          The rule: personal data needs a governance decision besides the owners&apos;. The product&apos;s owners approve the access with PII masked; only a governance reviewer (not the requester) unmasks it, and the request waits in governance&apos;s review queue until then.
        </p>
      )}
      {pii.canApprove && <GrantPii subscriptionId={id} />}
      {environmentWait && (
        <p className="mt-3 text-sm text-amber-800" role="status" data-testid="environment-wait">
          {environmentWait.needsRotation
            ? `Not usable in ${environmentWait.environment} yet: the account's credentials were issued before credentials were carried to other environments, so ${environmentWait.environment} cannot get them. Rotate the credentials once (Credentials below); the worker then installs the new ones there, grants access and marks the subscription active.`
            : `Approved: the worker grants access on ${environmentWait.environment}'s cluster and marks the subscription active once the account's credentials are there too.`}
        </p>
      )}
      {provisioning.length > 0 && (
        <div className="mt-4">
          <h3 className="mb-2 text-xs font-medium uppercase tracking-wide text-slate-500">On the cluster</h3>
          <ProvisioningSteps
            steps={provisioning}
            canRetry={canRetry}
            onRetry={(taskId) => retry.mutate({ taskId, subscriptionId: id })}
            retrying={retry.isPending}
            retryError={retry.isError ? retry.error.message : null}
          />
        </div>
      )}
    </Card>
  );
});

const ExpiryCard = memo(function ExpiryCard(props: { subscriptionId: string; expiresAt: string | null; certifiedAt: string | null; canSet: boolean; granted: boolean }) {
  return (
    <Card title="Expiry">
      <SubscriptionExpiry {...props} />
    </Card>
  );
});

const CredentialsCard = memo(function CredentialsCard({ subscriptionId, account, domainName, credentials }: { subscriptionId: string; account: SubscriptionDetail["serviceAccount"]; domainName: string; credentials: SubscriptionDetail["credentials"] }) {
  return (
    <Card title="Credentials">
      <Credentials account={account} domainName={domainName} credentials={credentials} shownIn={queryKeys.subscriptions.detail(subscriptionId)} />
    </Card>
  );
});

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

/**
 * Decisions on the subscription from its own page, as in the review queue and
 * on the product page: the product's owners (or governance) approve or reject
 * a request and revoke access; the subscribing domain's owners cancel their
 * own subscription — the same confirmation with a reason, and the same audit
 * event (subscription.revoked), as a revoke.
 */
const DecisionCard = memo(function DecisionCard(props: {
  id: string;
  productId: string;
  status: string;
  consumingDomain: string;
  productDomain: string;
  canDecide: boolean;
  canRevoke: boolean;
  canCancel: boolean;
}) {
  const action = useSubscriptionAction();
  const { id, productId } = props;
  return (
    <Card title={props.canDecide ? "Decide on this request" : "End access"}>
      <div className="space-y-3 text-sm" data-testid="subscription-decision">
        {props.canDecide && (
          <div className="flex flex-wrap gap-2">
            <Button disabled={action.isPending} onClick={() => action.mutate({ kind: "approve", id, productId })}>Approve</Button>
            <ReasonAction label="Reject" confirmLabel="Reject request" pending={action.isPending} error={action.error} onConfirm={(reason) => action.mutate({ kind: "reject", id, productId, reason })} />
          </div>
        )}
        {props.canRevoke && (
          <ReasonAction
            label="Revoke…"
            confirmLabel="Revoke access"
            hint={revokeHint(props.consumingDomain, props.productDomain)}
            pending={action.isPending}
            error={action.error}
            onConfirm={(reason) => action.mutate({ kind: "revoke", id, productId, reason })}
          />
        )}
        {props.canCancel && (
          <>
            <p className="text-slate-600">Your domain no longer needs this data: cancelling ends the account&apos;s access on the cluster at once.</p>
            <ReasonAction
              label="Cancel subscription…"
              confirmLabel="Cancel subscription"
              hint={cancelHint(props.consumingDomain, props.productDomain)}
              pending={action.isPending}
              error={action.error}
              onConfirm={(reason) => action.mutate({ kind: "revoke", id, productId, reason })}
            />
          </>
        )}
        {action.isError && action.variables.kind === "approve" && <ErrorAlert message={action.error.message} />}
        {action.isSuccess && <p role="status" className="font-medium text-emerald-700">Decision recorded.</p>}
      </div>
    </Card>
  );
});
