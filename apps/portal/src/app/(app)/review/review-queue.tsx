"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ChangeRequestsCard } from "@/components/change-requests";
import { Link } from "@/components/link";
import { PolicyResultList, PolicySummary } from "@/components/policy-results";
import { ReasonAction } from "@/components/reason-form";
import { RedriveReviewCard } from "@/components/redrive";
import { Ago } from "@/components/relative-time";
import { Badge, Button, ButtonLink, Card, EmptyState, ErrorAlert, Loading } from "@/components/ui";
import { api, type ApiError } from "@/lib/api-client";
import type { ReviewQueue } from "@/lib/api-types";
import { humanize } from "@/lib/format";
import { useSubscriptionAction } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";

const PII_RULE = "An owner's approval grants access with PII masked; governance decides the personal data besides.";

/** `reviewsProducts`: governance decides products; owners only see their domains' subscription requests. */
export function ReviewQueueView({ reviewsProducts }: { reviewsProducts: boolean }) {
  const queue = useQuery({
    queryKey: queryKeys.reviewQueue,
    queryFn: ({ signal }) => api<ReviewQueue>("/api/v1/review-queue", { signal }),
    refetchInterval: 30_000,
  });
  if (queue.isPending) return <Loading label="Loading the queue…" />;
  if (queue.isError) return <ErrorAlert message={queue.error.message} />;
  const { products, subscriptions, schemaVersions, changes, piiGrants, promotions, quotaClasses } = queue.data;
  return (
    <div className="space-y-6">
      {reviewsProducts && (
      <Card title={`Data products (${products.length})`}>
        {products.length === 0 ? (
          <EmptyState title="No products waiting for review" />
        ) : (
          <ul className="divide-y divide-slate-200" aria-label="Products waiting for review">
            {products.map((p) => (
              <ProductRow key={p.id} product={p} />
            ))}
          </ul>
        )}
      </Card>
      )}
      {schemaVersions.length > 0 && (
        <Card title={`Schema versions (${schemaVersions.length})`}>
          <ul className="divide-y divide-slate-200" aria-label="Schema versions waiting for review">
            {schemaVersions.map((v) => (
              <SchemaVersionRow key={v.id} version={v} />
            ))}
          </ul>
        </Card>
      )}
      {queue.data.governance && <ChangeRequestsCard changes={changes} />}
      <RedriveReviewCard redrives={queue.data.redrives} />
      {queue.data.governance && (
        <Card title={`Promotions to other environments (${promotions.length})`}>
          {promotions.length === 0 ? (
            <EmptyState title="No promotions waiting" />
          ) : (
            <ul className="divide-y divide-slate-200" aria-label="Promotions waiting for review">
              {promotions.map((d) => (
                <li key={d.id} className="flex flex-col gap-3 py-4 first:pt-0 last:pb-0 md:flex-row md:items-start md:justify-between" data-testid="review-promotion">
                  <div className="min-w-0">
                    <p className="text-sm">
                      <Link href={`/products/${d.product.id}`} className="font-medium text-indigo-700 hover:underline">{d.product.name}</Link> · {d.sourceEnvironment} → {d.environment}
                      {d.update ? " (a newer definition of a live deployment)" : ""}
                    </p>
                    <p className="font-mono text-xs text-slate-500">{d.product.topicName}</p>
                    <p className="mt-1 text-sm text-slate-600">
                      {d.product.domain.name} · requested <Ago iso={d.requestedAt} />{d.requestedBy ? ` by ${d.requestedBy.name}` : ""}
                    </p>
                  </div>
                  <div className="flex flex-wrap items-start gap-2 md:justify-end">
                    {d.mine && <p className="text-sm text-slate-500">Your own promotion (four-eyes rule)</p>}
                    <ButtonLink variant={d.mine ? "secondary" : "primary"} href={`/products/${d.product.id}`} aria-label={`Review the promotion of ${d.product.name} to ${d.environment}`}>Open</ButtonLink>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </Card>
      )}
      {queue.data.governance && (
        <Card title={`Personal data (PII) grants (${piiGrants.length})`}>
          <p className="mb-3 text-sm text-slate-600" data-testid="pii-rule">
            The rule: personal data needs a governance decision besides the owners&apos;. Owners approve access with PII masked; a governance reviewer other than the requester grants the personal data.
          </p>
          {piiGrants.length === 0 ? (
            <EmptyState title="No personal-data grants waiting" />
          ) : (
            <ul className="divide-y divide-slate-200" aria-label="Personal data grants">
              {piiGrants.map((g) => (
                <PiiGrantRow key={g.id} grant={g} />
              ))}
            </ul>
          )}
        </Card>
      )}
      {queue.data.governance && (
        <Card title={`Quota classes (${quotaClasses.length})`}>
          <p className="mb-3 text-sm text-slate-600">
            A Kafka client quota class larger than the policy&apos;s default needs a governance decision; a reviewer other than the person who asked grants it, and the worker applies it to the account.
          </p>
          {quotaClasses.length === 0 ? (
            <EmptyState title="No quota classes waiting" />
          ) : (
            <ul className="divide-y divide-slate-200" aria-label="Quota class requests">
              {quotaClasses.map((q) => (
                <QuotaClassRow key={`${q.entityType}:${q.id}`} request={q} />
              ))}
            </ul>
          )}
        </Card>
      )}
      <Card title={`Subscription requests (${subscriptions.length})`}>
        {subscriptions.length === 0 ? (
          <EmptyState title="No subscription requests waiting" />
        ) : (
          <ul className="divide-y divide-slate-200" aria-label="Subscription requests">
            {subscriptions.map((s) => (
              <SubscriptionRow key={s.id} subscription={s} />
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}

function ProductRow({ product: p }: { product: ReviewQueue["products"][number] }) {
  return (
    <li className="flex flex-col gap-3 py-4 first:pt-0 last:pb-0 md:flex-row md:items-start md:justify-between" data-testid="review-product">
      <div className="min-w-0">
        <div className="flex flex-wrap items-center gap-2">
          <Link href={`/products/${p.id}`} className="font-medium text-indigo-700 hover:underline">{p.name}</Link>
          <Badge value={p.classification} label={humanize(p.classification)} />
          {p.majorVersion > 1 && <Badge value="IN_REVIEW" label={`new major v${p.majorVersion}`} />}
          {p.claim && <Badge value="IN_REVIEW" label="claim of an existing topic" />}
        </div>
        <p className="font-mono text-xs text-slate-500">{p.topicName}</p>
        <p className="mt-1 text-sm text-slate-600">
          {p.domain.name} · submitted {p.submittedAt ? <Ago iso={p.submittedAt} /> : "—"}
          {p.submittedBy ? ` by ${p.submittedBy.name}` : ""}
        </p>
        <PolicyDetails policy={p.policy} />
      </div>
      {/* Decisions are taken on the review page, below the change: nothing is approved unopened. */}
      <div className="flex flex-wrap items-start gap-2 md:justify-end">
        {p.mine && <p className="text-sm text-slate-500">Your own submission (four-eyes rule)</p>}
        <ButtonLink variant={p.mine ? "secondary" : "primary"} href={`/review/products/${p.id}`} aria-label={`Review ${p.name}`}>Open review</ButtonLink>
      </div>
    </li>
  );
}

function SchemaVersionRow({ version: v }: { version: ReviewQueue["schemaVersions"][number] }) {
  const compatibility = v.compatibility as { mode?: string; checkedVersions?: number[] } | null;
  return (
    <li className="flex flex-col gap-3 py-4 first:pt-0 last:pb-0 md:flex-row md:items-start md:justify-between" data-testid="review-schema-version">
      <div className="min-w-0">
        <p className="text-sm">
          <Link href={`/products/${v.product.id}`} className="font-medium text-indigo-700 hover:underline">{v.product.name}</Link> · schema v{v.version}
        </p>
        <p className="font-mono text-xs text-slate-500">{v.product.topicName} · {v.product.compatibilityMode}</p>
        <p className="mt-1 text-sm text-slate-600">
          {v.product.domain.name} · proposed <Ago iso={v.createdAt} />{v.proposedBy ? ` by ${v.proposedBy.name}` : ""}
          {compatibility?.mode ? ` · compatible under ${compatibility.mode} with ${(compatibility.checkedVersions ?? []).map((n) => `v${n}`).join(", ") || "—"}` : ""}
        </p>
      </div>
      <div className="flex flex-wrap items-start gap-2 md:justify-end">
        {v.mine && <p className="text-sm text-slate-500">Your own proposal (four-eyes rule)</p>}
        <ButtonLink variant={v.mine ? "secondary" : "primary"} href={`/review/schema-versions/${v.id}`} aria-label={`Review v${v.version} of ${v.product.name}`}>Open review</ButtonLink>
      </div>
    </li>
  );
}

function SubscriptionRow({ subscription: s }: { subscription: ReviewQueue["subscriptions"][number] }) {
  const action = useSubscriptionAction();
  return (
    <li className="flex flex-col gap-3 py-4 first:pt-0 last:pb-0 md:flex-row md:items-start md:justify-between" data-testid="review-subscription">
      <div className="min-w-0">
        <p className="text-sm">
          <span className="font-medium">{s.consumingDomain.name}</span> wants{" "}
          <Link href={`/products/${s.product.id}`} className="font-medium text-indigo-700 hover:underline">{s.product.name}</Link>{" "}
          <Badge value={s.product.classification} label={humanize(s.product.classification)} />
        </p>
        <p className="font-mono text-xs text-slate-500">User:{s.serviceAccount.name} → {s.product.topicName}</p>
        <p className="mt-1 text-sm text-slate-700">“{s.purpose}”</p>
        {s.piiRequested && (
          <p className="mt-1 text-xs text-amber-800">
            Asks for personal data (PII){s.piiJustification ? `: “${s.piiJustification}”` : ""}. {PII_RULE}
          </p>
        )}
        <p className="mt-1 text-xs text-slate-500">
          requested <Ago iso={s.createdAt} />{s.requestedBy ? ` by ${s.requestedBy.name}` : ""}
        </p>
        <PolicyDetails policy={s.policy} />
        {action.isError && <div className="mt-2"><ErrorAlert message={action.error.message} /></div>}
      </div>
      {s.mine ? (
        <p className="text-sm text-slate-500">Your own request (four-eyes rule)</p>
      ) : (
        <div className="flex flex-wrap items-start gap-2 md:max-w-sm md:justify-end">
          <Button disabled={action.isPending} onClick={() => action.mutate({ kind: "approve", id: s.id, productId: s.product.id })} aria-label={`Approve access of ${s.serviceAccount.name} to ${s.product.name}`}>
            Approve
          </Button>
          <ReasonAction label="Reject" confirmLabel="Reject request" pending={action.isPending} error={action.error} onConfirm={(reason) => action.mutate({ kind: "reject", id: s.id, productId: s.product.id, reason })} />
        </div>
      )}
    </li>
  );
}

/** The policy verdict beside the change; failures are open by default. */
function PolicyDetails({ policy }: { policy: ReviewQueue["products"][number]["policy"] }) {
  const failing = policy.results.some((r) => r.outcome === "fail");
  return (
    <details className="mt-2 rounded-md bg-slate-50 px-3 py-2 ring-1 ring-slate-200" open={failing} data-testid="review-policy">
      <summary className="cursor-pointer text-sm">
        Policy v{policy.version}: <PolicySummary results={policy.results} />
      </summary>
      <div className="mt-2">
        <PolicyResultList results={policy.results} />
      </div>
    </details>
  );
}

/** Governance grants a subscription's stated need for personal data, after the owners approved the access. */
function PiiGrantRow({ grant: g }: { grant: ReviewQueue["piiGrants"][number] }) {
  const client = useQueryClient();
  const grant = useMutation<unknown, ApiError, void>({
    mutationFn: () => api(`/api/v1/subscriptions/${g.id}/approve-pii`, { method: "POST" }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.reviewQueue }),
  });
  return (
    <li className="flex flex-col gap-3 py-4 first:pt-0 last:pb-0 md:flex-row md:items-start md:justify-between" data-testid="review-pii">
      <div className="min-w-0">
        <p className="text-sm">
          <span className="font-medium">{g.consumingDomain.name}</span> reads{" "}
          <Link href={`/subscriptions/${g.id}`} className="font-medium text-indigo-700 hover:underline">{g.product.name}</Link> with PII masked
        </p>
        <p className="font-mono text-xs text-slate-500">User:{g.serviceAccount.name} → {g.product.topicName}</p>
        <p className="mt-1 text-sm text-slate-700">“{g.piiJustification ?? g.purpose}”</p>
        <p className="mt-1 text-xs text-slate-500">access approved{g.approvedBy ? ` by ${g.approvedBy.name}` : ""}{g.decidedAt ? <> <Ago iso={g.decidedAt} /></> : ""}</p>
        {grant.isError && <div className="mt-2"><ErrorAlert message={grant.error.message} /></div>}
      </div>
      {g.mine ? (
        <p className="text-sm text-slate-500">Your own request (four-eyes rule)</p>
      ) : (
        <Button disabled={grant.isPending} onClick={() => grant.mutate()} aria-label={`Grant personal data of ${g.product.name} to ${g.serviceAccount.name}`}>Grant personal data</Button>
      )}
    </li>
  );
}

/** Governance decides a quota class larger than the default, asked for by a product's owners or a subscriber. */
function QuotaClassRow({ request: q }: { request: ReviewQueue["quotaClasses"][number] }) {
  const client = useQueryClient();
  const base = `/api/v1/${q.entityType === "DataProduct" ? "products" : "subscriptions"}/${q.id}/quota-class`;
  const decide = useMutation<unknown, ApiError, { kind: "approve" } | { kind: "reject"; reason: string }>({
    mutationFn: (d) => api(`${base}/${d.kind}`, { method: "POST", ...(d.kind === "reject" ? { body: { reason: d.reason } } : {}) }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.reviewQueue }),
  });
  return (
    <li className="flex flex-col gap-3 py-4 first:pt-0 last:pb-0 md:flex-row md:items-start md:justify-between" data-testid="review-quota-class">
      <div className="min-w-0">
        <p className="text-sm">
          <Link href={q.link} className="font-medium text-indigo-700 hover:underline">{q.title}</Link> asks for <strong>{q.requested}</strong>
          {q.inForce ? <> (now {q.inForce})</> : " (now the default)"}
        </p>
        <p className="text-xs text-slate-500">{q.detail}</p>
        <p className="mt-1 text-sm text-slate-700">“{q.reason ?? "no reason given"}”</p>
        <p className="mt-1 text-xs text-slate-500">asked{q.requestedBy ? ` by ${q.requestedBy.name}` : ""} <Ago iso={q.requestedAt} /></p>
        {decide.isError && <div className="mt-2"><ErrorAlert message={decide.error.message} /></div>}
      </div>
      {q.mine ? (
        <p className="text-sm text-slate-500">Your own request (four-eyes rule)</p>
      ) : (
        <div className="flex flex-wrap gap-2">
          <Button disabled={decide.isPending} onClick={() => decide.mutate({ kind: "approve" })} aria-label={`Grant quota class ${q.requested} to ${q.title}`}>Grant {q.requested}</Button>
          <ReasonAction label="Refuse" confirmLabel="Refuse the class" hint="Required; the requester sees it." pending={decide.isPending} error={decide.error} onConfirm={(reason) => decide.mutate({ kind: "reject", reason })} />
        </div>
      )}
    </li>
  );
}
