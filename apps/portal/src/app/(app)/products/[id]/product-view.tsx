"use client";

import { useQuery } from "@tanstack/react-query";
import { memo } from "react";
import { exampleValueSource } from "@kappa/catalog/schema-example";
import { useActor, usePermissions } from "@/components/actor-context";
import { ContractCard } from "@/components/contract-card";
import { Credentials } from "@/components/credentials";
import { EnvironmentsPanel } from "@/components/environments-panel";
import { Link } from "@/components/link";
import { ConsumerLagList, ProvisioningSteps, ThroughputPanel, TieredStoragePanel } from "@/components/observations";
import { PartitionsPanel } from "@/components/partitions-panel";
import { ProductCostCard } from "@/components/product-cost-card";
import { ClaimAclsPanel, DriftPanel, InputsPanel } from "@/components/product-operations";
import { QuotaCard } from "@/components/quota-card";
import { ReasonAction } from "@/components/reason-form";
import { RetirementCard } from "@/components/retirement-card";
import { ProductFreshness } from "@/components/slo";
import { SnippetTabs } from "@/components/snippets";
import { Badge, Button, ButtonLink, Card, DefinitionList, ErrorAlert, Field, inputClass, Notice } from "@/components/ui";
import { PanelPlaceholder, usePageIdle, WhenNear } from "@/components/when-near";
import { api, toQueryString } from "@/lib/api-client";
import type { AuditPage, ProductDetail, ProductObservations } from "@/lib/api-types";
import { javaProducerSnippet, kcatProduceCommand, platformaticProducerSnippet, pythonProducerSnippet, type ProducerRegistrySettings } from "@/lib/connection-snippets";
import { formText } from "@/lib/form-text";
import { formatDateTime, formatDurationMs, formatSeconds, humanize } from "@/lib/format";
import { useProductAction, useRetryTask, useSubscriptionAction } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import { deprecateHint, revokeHint } from "@/lib/reason-audience";

const SUBSCRIBABLE = ["APPROVED", "PROVISIONING", "ACTIVE"];
const EDITABLE = ["DRAFT", "REJECTED", "APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"];
const POLL_MS = 3000;
/** Statuses in which the topic exists (or is being created) on the cluster, so there is something to observe. */
const ON_CLUSTER = ["APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"];

function pretty(definition: string): string {
  try {
    return JSON.stringify(JSON.parse(definition), null, 2);
  } catch {
    return definition;
  }
}

/** Statuses that change without the viewer doing anything. */
const WAITING_STATUSES: readonly string[] = ["IN_REVIEW", "APPROVED", "PROVISIONING"];

/*
 * Below the fold, each panel with queries of its own (environments, drift,
 * the cluster's observations, history) mounts only when it comes near the
 * viewport or a few seconds after the page is idle (components/when-near.tsx):
 * until then its card and heading hold its place.
 */
const DRIFT_PLACEHOLDER = <PanelPlaceholder title="Drift" height="h-16" />;
const CLUSTER_PLACEHOLDER = <PanelPlaceholder title="Tiered storage and replay" height="h-96" />;
const HISTORY_PLACEHOLDER = <PanelPlaceholder title="History" height="h-64" />;

export function ProductView({ initial, registryUrl }: { initial: ProductDetail; registryUrl: string }) {
  const me = useActor();
  const perms = usePermissions();
  // The first poll waits until the page is idle: hydration comes first.
  const idle = usePageIdle();
  const { data: product } = useQuery({
    queryKey: queryKeys.products.detail(initial.id),
    queryFn: ({ signal }) => api<ProductDetail>(`/api/v1/products/${initial.id}`, { signal }),
    initialData: initial,
    // Others move the product on (a reviewer's decision, the worker's steps):
    // watch it while a decision or a provisioning step is still outstanding.
    refetchInterval: (q) => {
      const data = q.state.data;
      if (!data || !idle) return false;
      const waiting = WAITING_STATUSES.includes(data.status) || data.provisioning.some((s) => s.status !== "DONE");
      return waiting ? POLL_MS : false;
    },
  });
  const action = useProductAction(product.id);
  const retry = useRetryTask();
  const isOwner = perms.canInDomain("product:update", product.domainId);
  const isReviewer = perms.hasGlobal("product:review");
  const ownSubmission = product.createdById === me.id || product.submittedById === me.id;
  // The product's schema is its newest approved version; a proposal waits on the versions page.
  const schema = product.schemaVersions.find((v) => v.status === "APPROVED") ?? product.schemaVersions[0];
  const canSubscribe = product.viewer.canSubscribe && SUBSCRIBABLE.includes(product.status) && perms.can("subscription:request");

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <p className="text-sm text-slate-500">
            <Link href={`/?domain=${product.domain.slug}`} className="hover:underline">{product.domain.name}</Link> / data product
          </p>
          <h1 className="mt-1 flex flex-wrap items-center gap-3 text-2xl font-semibold tracking-tight">
            {product.name}
            <span data-testid="product-status"><Badge value={product.status} /></span>
          </h1>
          <p className="mt-1 font-mono text-sm text-slate-600">{product.topicName}</p>
        </div>
        <div className="flex flex-wrap gap-2">
          {isOwner && EDITABLE.includes(product.status) && (
            <ButtonLink variant="secondary" href={`/products/${product.id}/edit`}>Edit</ButtonLink>
          )}
          {isOwner && (product.status === "DRAFT" || product.status === "REJECTED") && (
            <Button disabled={action.isPending} onClick={() => action.mutate({ kind: "submit" })}>Submit for review</Button>
          )}
          {product.viewer.canBrowse && ON_CLUSTER.includes(product.status) && (
            <ButtonLink variant="secondary" href={`/products/${product.id}/messages`}>Messages</ButtonLink>
          )}
          {product.viewer.canBrowse && ON_CLUSTER.includes(product.status) && product.cleanupPolicy === "compact" && (
            <ButtonLink variant="secondary" href={`/products/${product.id}/state`}>Latest state</ButtonLink>
          )}
          {canSubscribe && <ButtonLink href={`/products/${product.id}/subscribe`}>Request subscription</ButtonLink>}
        </div>
      </div>

      {action.isError && <ErrorAlert message={action.error.message} />}
      {action.isSuccess && <Notice>Done: the product is now {humanize(product.status)}.</Notice>}

      {product.status === "IN_REVIEW" && isReviewer && (
        <Card title="Review">
          {ownSubmission ? (
            <p className="text-sm text-slate-600">You registered or submitted this product; another reviewer must decide (four-eyes rule).</p>
          ) : (
            <div className="space-y-3">
              {product.predecessor ? (
                // A new major version is decided on the review page: only there is the change from its predecessor and who reads it now.
                <div className="flex flex-wrap items-center gap-3">
                  <p className="text-sm text-slate-600">This is v{product.majorVersion} of {product.predecessor.topicName}: decide on the review page, which shows what changes from v{product.predecessor.majorVersion} and who reads it.</p>
                  <ButtonLink href={`/review/products/${product.id}`}>Open the review</ButtonLink>
                </div>
              ) : (
                // A first version has no change to show: this page shows the product whole (schema, configs, claimed ACLs), so it may decide here too.
                <div className="flex flex-wrap items-start gap-2">
                  <Button disabled={action.isPending} onClick={() => action.mutate({ kind: "approve" })}>Approve</Button>
                  <ReasonAction label="Reject" confirmLabel="Reject product" pending={action.isPending} error={action.error} onConfirm={(reason) => action.mutate({ kind: "reject", reason })} />
                  <ButtonLink variant="secondary" href={`/review/products/${product.id}`}>Open the full review</ButtonLink>
                </div>
              )}
            </div>
          )}
        </Card>
      )}

      {product.decisionReason && (product.status === "REJECTED" || product.status === "DEPRECATED") && (
        <div className="rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200">
          <strong>{product.status === "REJECTED" ? "Rejected" : "Deprecated"}:</strong> {product.decisionReason}
          {product.sunsetAt && <> — sunset {formatDateTime(product.sunsetAt)}</>}
          {product.successor && (
            <> · <Link href={`/products/${product.successor.id}`} className="font-medium underline">Go to v{product.successor.majorVersion} ({product.successor.topicName})</Link></>
          )}
        </div>
      )}
      {product.predecessor && (
        <p className="text-sm text-slate-600" data-testid="predecessor">
          Major version v{product.majorVersion} of this product; it supersedes <Link href={`/products/${product.predecessor.id}`} className="text-indigo-700 underline underline-offset-2 hover:no-underline">{product.predecessor.topicName}</Link>.
        </p>
      )}

      <div className="grid gap-6 lg:grid-cols-3">
        <div className="min-w-0 space-y-6 lg:col-span-2">
          {(product.status === "DEPRECATED" || product.status === "RETIRED") && <RetirementCard productId={product.id} status={product.status} />}
          <Card title="About">
            <p className="mb-4 whitespace-pre-line text-sm text-slate-800">{product.description}</p>
            <DefinitionList
              items={[
                ["Classification", <Badge key="c" value={product.classification} label={humanize(product.classification)} />],
                ["Tags", product.tags.length ? product.tags.map((t) => `#${t}`).join(" ") : "—"],
                ["Freshness target", `within ${formatSeconds(product.freshnessSeconds)}`],
                ["Availability target", `${product.availabilityPct} %`],
                ["Partitions", product.partitions],
                ["Retention", formatDurationMs(product.retentionMs)],
                ["Cleanup policy", product.cleanupPolicy === "compact" ? "compact (latest value per key)" : "delete"],
                ["Tiered storage", product.tieredStorage ? `on · local hot window ${formatDurationMs(product.localRetentionMs)}` : "off"],
                ["Major version", `v${product.majorVersion}`],
                ["Registered", `${formatDateTime(product.createdAt)}${product.createdBy ? ` by ${product.createdBy.name}` : ""}`],
                ["Submitted", product.submittedAt ? `${formatDateTime(product.submittedAt)}${product.submittedBy ? ` by ${product.submittedBy.name}` : ""}` : "—"],
                ["Decided", product.decidedAt ? `${formatDateTime(product.decidedAt)}${product.decidedBy ? ` by ${product.decidedBy.name}` : ""}` : "—"],
              ]}
            />
          </Card>

          <ClaimAclsPanel product={product} canDecide={isReviewer && !ownSubmission} />
          {/* Nothing until it knows there is a second environment: a single-cluster platform shows no card at all. */}
          <WhenNear placeholder={<div className="h-0" />}>
            <EnvironmentsPanel productId={product.id} />
          </WhenNear>
          <PartitionsPanel product={product} isOwner={isOwner} />
          <InputsPanel product={product} isOwner={isOwner} />
          {(isOwner || isReviewer || perms.hasGlobal("platform:admin")) && ON_CLUSTER.includes(product.status) && (
            <WhenNear placeholder={DRIFT_PLACEHOLDER}>
              <DriftPanel productId={product.id} placeholder={DRIFT_PLACEHOLDER} />
            </WhenNear>
          )}

          {(product.provisioning.length > 0 || ["APPROVED", "PROVISIONING"].includes(product.status)) && (
            <Card title="Provisioning" actions={product.provisioning.some((s) => s.status !== "DONE") ? <span className="text-xs text-slate-500">Refreshing every {POLL_MS / 1000} s</span> : undefined}>
              <ProvisioningSteps
                steps={product.provisioning}
                // Mirrors retryTask's own check (owners of the domain, governance, admins); the server decides.
                canRetry={isOwner || isReviewer || perms.hasGlobal("platform:admin")}
                onRetry={(taskId) => retry.mutate({ taskId, productId: product.id })}
                retrying={retry.isPending}
                retryError={retry.isError ? retry.error.message : null}
              />
            </Card>
          )}

          {ON_CLUSTER.includes(product.status) && (
            <WhenNear placeholder={CLUSTER_PLACEHOLDER}>
              <ClusterCards
                productId={product.id}
                domainName={product.domain.name}
                registry={schema ? { url: registryUrl, subject: `${product.topicName}-value`, format: schema.format, example: exampleValueSource(schema.format, schema.definition) } : undefined}
              />
            </WhenNear>
          )}

          <Card
            title={schema ? `Schema v${schema.version} · ${schema.format === "AVRO" ? "Avro" : "JSON Schema"}` : "Schema"}
            actions={
              <span className="flex items-center gap-2">
                {schema && <Badge value={schema.status} />}
                <Link href={`/products/${product.id}/schema`} className="text-sm text-indigo-700 hover:underline">
                  {isOwner && (product.status === "ACTIVE" || product.status === "DEPRECATED") ? "Versions · propose a new one" : "All versions"}
                </Link>
              </span>
            }
          >
            {schema ? (
              <pre className="max-h-[32rem] overflow-auto rounded-md bg-slate-900 p-4 font-mono text-xs leading-relaxed text-slate-100" tabIndex={0} aria-label="Schema definition">
                {pretty(schema.definition)}
              </pre>
            ) : (
              <p className="text-sm text-slate-600">No schema.</p>
            )}
          </Card>

          {isOwner && product.status === "ACTIVE" && <DeprecateCard productId={product.id} domainName={product.domain.name} />}
        </div>

        <div className="space-y-6">
          <ContractCard product={product} />
          <Card title="Contact">
            <p className="text-sm">
              <a className="text-indigo-700 hover:underline" href={`mailto:${product.contactEmail}`}>{product.contactEmail}</a>
            </p>
            <h3 className="mt-3 text-xs font-medium uppercase tracking-wide text-slate-500">Domain owners</h3>
            <ul className="mt-1 space-y-1 text-sm">
              {product.owners.map((o) => (
                <li key={o.email}>{o.name} <span className="text-slate-500">· {o.email}</span></li>
              ))}
            </ul>
          </Card>
          <SubscriptionsCard product={product} />
          {(me.memberships.some((m) => m.domainId === product.domainId) || perms.hasGlobal("platform:admin")) && <ProductCostCard productId={product.id} />}
          {(me.memberships.some((m) => m.domainId === product.domainId) || isReviewer || perms.hasGlobal("platform:admin")) && product.status !== "REJECTED" && <QuotaCard kind="product" id={product.id} canChoose={isOwner && product.status !== "RETIRED"} />}
          {(isOwner || perms.hasGlobal("audit:read")) && (
            <WhenNear placeholder={HISTORY_PLACEHOLDER}>
              <HistoryCard productId={product.id} />
            </WhenNear>
          )}
        </div>
      </div>
    </div>
  );
}

function SubscriptionsCard({ product }: { product: ProductDetail }) {
  const me = useActor();
  const perms = usePermissions();
  const decide = useSubscriptionAction();
  const mayDecide = (requestedById: string) =>
    requestedById !== me.id &&
    (perms.hasGlobal("subscription:decide") || (product.classification !== "RESTRICTED" && perms.canInDomain("subscription:decide", product.domainId)));
  return (
    <Card title="Subscriptions">
      {decide.isError && <ErrorAlert message={decide.error.message} />}
      {product.subscriptions.length === 0 ? (
        <p className="text-sm text-slate-600">{product.viewer.isOwner || product.viewer.canReview ? "Nobody subscribes yet." : "Your domains have no subscription to this product."}</p>
      ) : (
        <ul className="space-y-3" data-testid="subscriptions">
          {product.subscriptions.map((s) => (
            <li key={s.id} className="rounded-md p-2 text-sm ring-1 ring-slate-200">
              <div className="flex items-center justify-between gap-2">
                <Link href={`/subscriptions/${s.id}`} className="font-medium text-indigo-700 hover:underline">{s.consumingDomain.name}</Link>
                <Badge value={s.status} />
              </div>
              <p className="font-mono text-xs text-slate-500">User:{s.serviceAccount.name}</p>
              <p className="mt-1 text-slate-700">{s.purpose}</p>
              {s.reason && <p className="mt-1 text-xs text-slate-500">Reason: {s.reason}</p>}
              {s.status === "REQUESTED" && mayDecide(s.requestedById) && (
                <div className="mt-2 flex flex-wrap gap-2">
                  <Button disabled={decide.isPending} onClick={() => decide.mutate({ kind: "approve", id: s.id, productId: product.id })}>Approve</Button>
                  <ReasonAction label="Reject" confirmLabel="Reject request" pending={decide.isPending} error={decide.error} onConfirm={(reason) => decide.mutate({ kind: "reject", id: s.id, productId: product.id, reason })} />
                </div>
              )}
              {(s.status === "APPROVED" || s.status === "ACTIVE") &&
                (perms.hasGlobal("subscription:revoke") || perms.canInDomain("subscription:revoke", product.domainId) || perms.canInDomain("subscription:revoke", s.consumingDomainId)) && (
                  <div className="mt-2">
                    <ReasonAction
                      label="Revoke"
                      confirmLabel="Revoke access"
                      hint={revokeHint(s.consumingDomain.name, product.domain.name)}
                      pending={decide.isPending}
                      error={decide.error}
                      onConfirm={(reason) => decide.mutate({ kind: "revoke", id: s.id, productId: product.id, reason })}
                    />
                  </div>
                )}
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

function HistoryCard({ productId }: { productId: string }) {
  const filters = { entityType: "DataProduct", entityId: productId };
  const history = useQuery({
    queryKey: queryKeys.audit.list(filters),
    queryFn: ({ signal }) => api<AuditPage>(`/api/v1/audit-events${toQueryString({ ...filters, pageSize: 50 })}`, { signal }),
  });
  if (history.isPending) return HISTORY_PLACEHOLDER;
  return (
    <Card title="History">
      {history.isError && <ErrorAlert message={history.error.message} />}
      {history.data && (
        <ol className="space-y-2 text-sm" data-testid="history">
          {history.data.items.map((e) => (
            <li key={e.id} className="border-l-2 border-indigo-200 pl-3">
              <p className="font-medium">{e.action}</p>
              <p className="text-xs text-slate-500">{e.actorEmail} · {formatDateTime(e.at)}</p>
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}

function DeprecateCard({ productId, domainName }: { productId: string; domainName: string }) {
  const action = useProductAction(productId);
  return (
    <Card title="Deprecate">
      <p className="mb-3 text-sm text-slate-600">Subscribers see the sunset date; the topic is retired after it.</p>
      <ReasonAction
        label="Deprecate…"
        confirmLabel="Deprecate product"
        hint={deprecateHint(domainName)}
        pending={action.isPending}
        error={action.error}
        onConfirm={(reason, form) => {
          const date = formText(form, "sunsetAt");
          action.mutate({ kind: "deprecate", reason, sunsetAt: date ? new Date(`${date}T00:00:00Z`).toISOString() : "" });
        }}
        extra={({ prefix, errors }) => (
          <Field id={`${prefix}-sunset`} label="Sunset date" errors={errors.sunsetAt}>
            {(a) => <input {...a} name="sunsetAt" type="date" required className={inputClass} />}
          </Field>
        )}
      />
    </Card>
  );
}

/** What the worker observes on the cluster for this product, polled every few seconds. */
function ClusterCards({ productId, domainName, registry }: { productId: string; domainName: string; registry?: ProducerRegistrySettings }) {
  const observed = useQuery({
    queryKey: queryKeys.products.observations(productId),
    queryFn: ({ signal }) => api<ProductObservations>(`/api/v1/products/${productId}/observations`, { signal }),
    refetchInterval: POLL_MS,
  });
  if (observed.isPending) return CLUSTER_PLACEHOLDER;
  if (observed.isError) return <Card title="Tiered storage and replay"><ErrorAlert message={observed.error.message} /></Card>;
  const data = observed.data;
  // Each card gets only its slice of the answer (kept the same object by structural sharing while it does not change), so a poll redraws only what moved.
  return (
    <>
      {data.producer && <ProducerAccess producer={data.producer} productId={productId} domainName={domainName} registry={registry} />}
      <Card title="Tiered storage and replay" actions={<span className="text-xs text-slate-500">Live · every {POLL_MS / 1000} s</span>}>
        <TieredStoragePanel tieredStorage={data.tieredStorage} topic={data.topic} replay={data.replay} />
      </Card>
      <Card title="Throughput">
        <ThroughputPanel throughput={data.throughput} topic={data.topic} />
      </Card>
      <FreshnessCard productId={productId} />
      <Card title={data.seesAllLag ? "Subscribers' lag" : "Your lag"}>
        <ConsumerLagList consumers={data.consumers} samples={data.lagSamples} showSubscriber={data.seesAllLag} empty={data.seesAllLag ? SUBSCRIBERS_NO_LAG : OWN_NO_LAG} />
      </Card>
    </>
  );
}

const SUBSCRIBERS_NO_LAG = "No subscriber's consumer group has committed offsets on this topic yet.";
const OWN_NO_LAG = "None of your domains' consumer groups has committed offsets on this topic yet.";

const ProducerAccess = memo(function ProducerAccess({ producer, productId, domainName, registry }: { producer: NonNullable<ProductObservations["producer"]>; productId: string; domainName: string; registry?: ProducerRegistrySettings }) {
  return (
    <Card title="Producer access" actions={<span className="text-xs text-slate-500">owners only</span>}>
      <div className="space-y-4">
        <div>
          <Credentials account={producer.serviceAccount} domainName={domainName} credentials={producer.credentials} shownIn={queryKeys.products.observations(productId)} />
        </div>
        <div className="min-w-0">
          <SnippetTabs
            label="Producer snippet"
            tabs={[
              { id: "javascript", label: "JavaScript", code: platformaticProducerSnippet(producer.connection, registry) },
              { id: "java", label: "Java", code: javaProducerSnippet(producer.connection, registry) },
              { id: "python", label: "Python", code: pythonProducerSnippet(producer.connection, registry) },
              { id: "kcat", label: "kcat", code: kcatProduceCommand(producer.connection, registry) },
            ]}
          />
        </div>
      </div>
    </Card>
  );
});

/** Polls on its own (the product's SLO), so the observation poll need not redraw it. */
const FreshnessCard = memo(function FreshnessCard({ productId }: { productId: string }) {
  return (
    <Card title="Freshness and alerts" actions={<span className="text-xs text-slate-500">Live · every {POLL_MS / 1000} s</span>}>
      <ProductFreshness productId={productId} />
    </Card>
  );
});
