"use client";

import { useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import type { ReactNode, Ref } from "react";
import { useActor, usePermissions } from "@/components/actor-context";
import { ContractCard } from "@/components/contract-card";
import { DerivedJobPanel } from "@/components/derived-job-panel";
import { Link } from "@/components/link";
import { ProductCostCard } from "@/components/product-cost-card";
import { ClaimAclsPanel } from "@/components/product-operations";
import { ProvisioningSteps } from "@/components/provisioning-steps";
import { QuotaCard } from "@/components/quota-card";
import { ReasonAction } from "@/components/reason-form";
import { SectionNav, type PageSection } from "@/components/section-nav";
import { Badge, Button, ButtonLink, Card, DefinitionList, ErrorAlert, Notice } from "@/components/ui";
import { PanelPlaceholder, useInView, usePageIdle, WhenNear } from "@/components/when-near";
import { api, toQueryString } from "@/lib/api-client";
import type { AuditPage, ProductDetail } from "@/lib/api-types";
import type { ProducerRegistrySettings } from "@/lib/connection-snippets";
import { formatDateTime, formatDurationMs, formatSeconds, humanize } from "@/lib/format";
import { useProductAction, useRetryTask, useSubscriptionAction } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";
import { revokeHint } from "@/lib/reason-audience";

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
 * The page is one header (name, status, owners, classification, freshness
 * target, the viewer's actions) and six sections, each with a deep link
 * (#overview, #schema, #access, #live, #operations, #history) in the sticky
 * section bar. Below the fold, each block with queries of its own mounts only
 * when it comes near the viewport or a few seconds after the page is idle
 * (components/when-near.tsx), and the Live and Operations sections' code is
 * loaded (next/dynamic) only then: until then a card with its heading holds
 * its place. The Live section polls only while it is on screen.
 */
const CLUSTER_PLACEHOLDER = <PanelPlaceholder title="Tiered storage and replay" height="h-96" />;
const HISTORY_PLACEHOLDER = <PanelPlaceholder title="Audit events" height="h-64" />;
const OPERATIONS_PLACEHOLDER = <PanelPlaceholder title="Environments and partitions" height="h-24" />;

const LivePanels = dynamic(() => import("./live-panels").then((m) => m.LivePanels), { ssr: false, loading: () => CLUSTER_PLACEHOLDER });
const ProducerAccessPanel = dynamic(() => import("./producer-access").then((m) => m.ProducerAccessPanel), { ssr: false });
const DeadLetterPanel = dynamic(() => import("@/components/dead-letter-panel").then((m) => m.DeadLetterPanel), { ssr: false });
const RulesEditor = dynamic(() => import("@/components/rules-editor").then((m) => m.RulesEditor), { ssr: false });
const QualityPanel = dynamic(() => import("@/components/quality-panel").then((m) => m.QualityPanel), { ssr: false });
const OperationsPanels = dynamic(() => import("./operations-panels").then((m) => m.OperationsPanels), { ssr: false, loading: () => OPERATIONS_PLACEHOLDER });

const SECTIONS: PageSection[] = [
  { id: "overview", label: "Overview" },
  { id: "schema", label: "Schema & contract" },
  { id: "access", label: "Access" },
  { id: "live", label: "Live" },
  { id: "operations", label: "Operations" },
  { id: "history", label: "History" },
];

/** One section of the page: a region named by its heading, the target of `#id`, clear of the sticky section bar when scrolled to. */
function ProductSection({ id, title, children, sectionRef, className }: { id: string; title: string; children: ReactNode; sectionRef?: Ref<HTMLDivElement>; className?: string }) {
  return (
    <div id={id} ref={sectionRef} role="region" aria-labelledby={`${id}-heading`} className="scroll-mt-14 space-y-4" data-testid={`section-${id}`}>
      <h2 id={`${id}-heading`} className="border-b border-slate-200 pb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">{title}</h2>
      <div className={className ?? "space-y-6"}>{children}</div>
    </div>
  );
}

function HeaderFact({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="mt-0.5 text-sm text-slate-900" data-testid={testId}>{children}</dd>
    </div>
  );
}

export function ProductView({ initial, registry }: { initial: ProductDetail; registry?: ProducerRegistrySettings }) {
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
  const live = useInView<HTMLDivElement>();
  const action = useProductAction(product.id);
  const retry = useRetryTask();
  const isOwner = perms.canInDomain("product:update", product.domainId);
  const isReviewer = perms.hasGlobal("product:review");
  const isAdmin = perms.hasGlobal("platform:admin");
  const ownSubmission = product.createdById === me.id || product.submittedById === me.id;
  // The product's schema is its newest approved version; a proposal waits on the versions page.
  const schema = product.schemaVersions.find((v) => v.status === "APPROVED") ?? product.schemaVersions[0];
  const canSubscribe = product.viewer.canSubscribe && SUBSCRIBABLE.includes(product.status) && perms.can("subscription:request");
  const onCluster = ON_CLUSTER.includes(product.status);
  const seesHistory = isOwner || perms.hasGlobal("audit:read");

  return (
    <div className="space-y-6">
      <header className="space-y-4" data-testid="product-header">
        <div className="flex flex-wrap items-start justify-between gap-4">
          <div className="min-w-0">
            <p className="text-sm text-slate-500">
              <Link href={`/?domain=${product.domain.slug}`} className="hover:underline">{product.domain.name}</Link> / data product
            </p>
            <h1 className="mt-1 flex flex-wrap items-center gap-3 text-2xl font-semibold tracking-tight">
              {product.name}
              <span data-testid="product-status"><Badge value={product.status} /></span>
            </h1>
            <p className="mt-1 break-all font-mono text-sm text-slate-600">{product.topicName}</p>
          </div>
          <div className="flex flex-wrap gap-2" data-testid="product-actions">
            {isOwner && EDITABLE.includes(product.status) && (
              <ButtonLink variant="secondary" href={`/products/${product.id}/edit`}>Edit</ButtonLink>
            )}
            {isOwner && (product.status === "DRAFT" || product.status === "REJECTED") && (
              <Button disabled={action.isPending} onClick={() => action.mutate({ kind: "submit" })}>Submit for review</Button>
            )}
            {product.viewer.canBrowse && onCluster && (
              <ButtonLink variant="secondary" href={`/products/${product.id}/messages`}>Messages</ButtonLink>
            )}
            {product.viewer.canBrowse && onCluster && product.cleanupPolicy === "compact" && (
              <ButtonLink variant="secondary" href={`/products/${product.id}/state`}>Latest state</ButtonLink>
            )}
            {canSubscribe && <ButtonLink href={`/products/${product.id}/subscribe`}>Request subscription</ButtonLink>}
          </div>
        </div>
        <dl className="grid grid-cols-2 gap-x-6 gap-y-3 rounded-lg bg-white p-4 shadow-sm ring-1 ring-slate-200 sm:grid-cols-4">
          <HeaderFact label="Status" testId="header-status">{humanize(product.status)}{product.sunsetAt && <span className="text-slate-600"> · sunset {formatDateTime(product.sunsetAt)}</span>}</HeaderFact>
          <HeaderFact label="Classification" testId="header-classification"><Badge value={product.classification} label={humanize(product.classification)} /></HeaderFact>
          <HeaderFact label="Owners" testId="header-owners">{product.owners.length > 0 ? product.owners.map((o) => o.name).join(", ") : "—"}</HeaderFact>
          <HeaderFact label="Freshness" testId="header-freshness">
            within {formatSeconds(product.freshnessSeconds)} {onCluster && <>· <a href="#live" className="text-indigo-700 underline underline-offset-2 hover:no-underline">live</a></>}
          </HeaderFact>
        </dl>
      </header>

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

      <SectionNav sections={SECTIONS} label="Product sections" />

      <ProductSection id="overview" title="Overview" className="grid gap-6 lg:grid-cols-3">
        <Card title="About" className="min-w-0 lg:col-span-2">
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
        <div className="min-w-0 space-y-6">
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
          {(me.memberships.some((m) => m.domainId === product.domainId) || isAdmin) && <ProductCostCard productId={product.id} />}
          {(me.memberships.some((m) => m.domainId === product.domainId) || isReviewer || perms.hasGlobal("platform:admin")) && product.status !== "REJECTED" && <QuotaCard kind="product" id={product.id} canChoose={isOwner && product.status !== "RETIRED"} />}
        </div>
      </ProductSection>

      <ProductSection id="schema" title="Schema & contract" className="grid gap-6 lg:grid-cols-3">
        <Card
          className="min-w-0 lg:col-span-2"
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
        <div className="min-w-0 space-y-6">
          <ContractCard product={product} />
          {/* Observed quality (issue 29): for everyone who sees the product, consumers before they subscribe. */}
          {onCluster && product.qualityRules.length > 0 && (
            <WhenNear placeholder={<PanelPlaceholder title="Observed quality" height="h-24" />}>
              <QualityPanel productId={product.id} />
            </WhenNear>
          )}
        </div>
        {/* The rules editor and its test (issue 29): the domain's owners; the server checks who may, again. */}
        {isOwner && product.status !== "RETIRED" && (
          <div className="min-w-0 lg:col-span-3">
            <WhenNear placeholder={<PanelPlaceholder title="Data-quality rules" height="h-24" />}>
              <RulesEditor product={product} />
            </WhenNear>
          </div>
        )}
      </ProductSection>

      <ProductSection id="access" title="Access">
        {isOwner && onCluster && (
          <WhenNear placeholder={<div className="h-0" />}>
            <ProducerAccessPanel productId={product.id} domainName={product.domain.name} registry={registry} />
          </WhenNear>
        )}
        <ClaimAclsPanel product={product} canDecide={isReviewer && !ownSubmission} />
        <SubscriptionsCard product={product} />
      </ProductSection>

      <ProductSection id="live" title="Live" sectionRef={live.ref}>
        {product.derived && (
          <DerivedJobPanel
            productId={product.id}
            domainId={product.domainId}
            statement={product.derived.statement}
            live={live.inView}
            operable={isOwner && (product.status === "ACTIVE" || product.status === "DEPRECATED")}
            reviewedReplay={product.classification === "CONFIDENTIAL" || product.classification === "RESTRICTED"}
          />
        )}
        {onCluster ? (
          <WhenNear placeholder={CLUSTER_PLACEHOLDER}>
            <LivePanels productId={product.id} live={live.inView} />
          </WhenNear>
        ) : (
          <p className="text-sm text-slate-600">Nothing to observe yet: the topic is created on the cluster once the product is approved.</p>
        )}
        {/* Dead letters are the owners' alone (the server refuses everyone else). */}
        {isOwner && onCluster && product.dlqTopic && (
          <WhenNear placeholder={<PanelPlaceholder title="Dead-letter topic" height="h-24" />}>
            <DeadLetterPanel productId={product.id} live={live.inView} />
          </WhenNear>
        )}
      </ProductSection>

      <ProductSection id="operations" title="Operations">
        {(product.provisioning.length > 0 || ["APPROVED", "PROVISIONING"].includes(product.status)) && (
          <Card title="Provisioning" actions={product.provisioning.some((s) => s.status !== "DONE") ? <span className="text-xs text-slate-500">Refreshing every {POLL_MS / 1000} s</span> : undefined}>
            <ProvisioningSteps
              steps={product.provisioning}
              // Mirrors retryTask's own check (owners of the domain, governance, admins); the server decides.
              canRetry={isOwner || isReviewer || isAdmin}
              onRetry={(taskId) => retry.mutate({ taskId, productId: product.id })}
              retrying={retry.isPending}
              retryError={retry.isError ? retry.error.message : null}
            />
          </Card>
        )}
        <WhenNear placeholder={OPERATIONS_PLACEHOLDER}>
          <OperationsPanels product={product} isOwner={isOwner} seesDrift={isOwner || isReviewer || isAdmin} />
        </WhenNear>
      </ProductSection>

      <ProductSection id="history" title="History">
        {seesHistory ? (
          <WhenNear placeholder={HISTORY_PLACEHOLDER}>
            <HistoryCard productId={product.id} />
          </WhenNear>
        ) : (
          <p className="text-sm text-slate-600">The product&apos;s history (the audit log) is for its domain&apos;s owners and auditors.</p>
        )}
      </ProductSection>
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
    <Card title="Audit events">
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

