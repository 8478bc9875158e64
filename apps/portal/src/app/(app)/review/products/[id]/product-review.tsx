"use client";

import { useQuery } from "@tanstack/react-query";
import { useActor, usePermissions } from "@/components/actor-context";
import { DecisionForm } from "@/components/decision-form";
import { Link } from "@/components/link";
import { ClaimAclsPanel } from "@/components/product-operations";
import { ruleActionLabel, ruleModeLabel } from "@/components/rules-editor";
import { DefinitionsSideBySide, FieldDiff } from "@/components/schema-diff";
import { Badge, ButtonLink, Card, DefinitionList, Notice } from "@/components/ui";
import { api } from "@/lib/api-client";
import type { ProductDetail, ProductReviewData } from "@/lib/api-types";
import { formatDateTime, formatSeconds, humanize } from "@/lib/format";
import { useProductAction } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";

function pretty(definition: string): string {
  try {
    return JSON.stringify(JSON.parse(definition), null, 2);
  } catch {
    return definition;
  }
}

/**
 * A product waiting for review, whole: its schema and the personal data it
 * declares, a derived product's Flink SQL statement and the inputs it reads, the rules on its data and field encryption, the topic configs the worker will create, classification and SLA.
 * A new major version also shows what changes from its predecessor and who
 * reads the predecessor now (they will be asked to move).
 */
export function ProductReviewView({ initial }: { initial: ProductReviewData }) {
  const me = useActor();
  const perms = usePermissions();
  const { data: review } = useQuery({
    queryKey: queryKeys.products.review(initial.id),
    queryFn: ({ signal }) => api<ProductReviewData>(`/api/v1/products/${initial.id}/review`, { signal }),
    initialData: initial,
  });
  const action = useProductAction(review.id);
  const mine = review.createdBy?.id === me.id || review.submittedBy?.id === me.id;
  const schema = review.schema;

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <p className="text-sm text-slate-500">
            <Link href="/review" className="hover:underline">Review queue</Link> / data product
          </p>
          <h1 className="mt-1 flex flex-wrap items-center gap-3 text-2xl font-semibold tracking-tight">
            {review.name}
            <Badge value={review.status} />
          </h1>
          <p className="mt-1 font-mono text-sm text-slate-600">{review.topicName}</p>
          <p className="mt-1 text-sm text-slate-600">
            {review.domain.name} · submitted {review.submittedAt ? formatDateTime(review.submittedAt) : "—"}
            {review.submittedBy ? ` by ${review.submittedBy.name}` : ""}
          </p>
        </div>
        <ButtonLink variant="secondary" href={`/products/${review.id}`}>Product page</ButtonLink>
      </div>

      <Card title="What is published">
        <p className="mb-4 whitespace-pre-line text-sm text-slate-800">{review.description}</p>
        <DefinitionList
          items={[
            ["Classification", <Badge key="c" value={review.classification} label={humanize(review.classification)} />],
            ["Personal data (PII)", schema && schema.pii.length > 0 ? schema.pii.join(", ") : "none tagged"],
            ["Tags", review.tags.length ? review.tags.map((t) => `#${t}`).join(" ") : "—"],
            ["Freshness target", `within ${formatSeconds(review.freshnessSeconds)}`],
            ["Availability target", `${review.availabilityPct} %`],
            ["Partitions", review.partitions],
            ["Compatibility mode", review.compatibilityMode],
            ["Contact", review.contactEmail],
          ]}
        />
        <h3 className="mb-1 mt-4 text-xs font-medium uppercase tracking-wide text-slate-500">Topic configs</h3>
        <ul className="font-mono text-xs text-slate-700" data-testid="review-configs">
          {Object.entries(review.configs).map(([k, v]) => (
            <li key={k}>{k}={v}</li>
          ))}
        </ul>
      </Card>

      {review.predecessor && (
        <Card title={`New major version of ${review.predecessor.topicName}`}>
          <div className="space-y-4">
            <p className="text-sm text-slate-700">
              <Link className="text-indigo-700 hover:underline" href={`/products/${review.predecessor.id}`}>{review.predecessor.topicName}</Link> is{" "}
              {humanize(review.predecessor.status).toLowerCase()}
              {review.predecessor.sunsetAt ? `, sunset ${formatDateTime(review.predecessor.sunsetAt)}` : ""}.
            </p>
            {schema && review.predecessor.currentDefinition && (
              <FieldDiff
                format={schema.format}
                older={{ label: `${review.predecessor.topicName} v${review.predecessor.currentVersion}`, definition: review.predecessor.currentDefinition }}
                newer={{ label: review.topicName, definition: schema.definition }}
                changes={review.predecessor.fieldChanges}
              />
            )}
            <div>
              <h3 className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-500">Who reads the predecessor ({review.predecessor.readers.length})</h3>
              {review.predecessor.readers.length === 0 ? (
                <p className="text-sm text-slate-600">Nobody.</p>
              ) : (
                <ul className="text-sm" data-testid="predecessor-readers">
                  {review.predecessor.readers.map((r) => (
                    <li key={r.id}>
                      {r.consumingDomain.name} · <span className="font-mono text-xs">User:{r.serviceAccount.name}</span> <Badge value={r.status} />
                    </li>
                  ))}
                </ul>
              )}
            </div>
          </div>
        </Card>
      )}

      {review.derived && (
        <Card title="Derived product · Flink SQL">
          <div className="space-y-3 text-sm">
            <p className="text-slate-700">Computed in the stream by Apache Flink from the inputs below; its schema is the one Flink&apos;s planner derived from this statement.</p>
            <pre className="max-h-80 overflow-auto rounded-md bg-slate-900 p-4 font-mono text-xs leading-relaxed text-slate-100" tabIndex={0} aria-label="Flink SQL statement" data-testid="review-statement">
              {review.derived.statement}
            </pre>
            <h3 className="font-semibold text-slate-900">Inputs it reads</h3>
            <ul className="list-inside list-disc" data-testid="review-inputs">
              {review.derived.inputs.map((i) => (
                <li key={i.id}>
                  <Link href={`/products/${i.id}`} className="font-mono text-indigo-800 underline underline-offset-2 hover:no-underline">{i.topicName}</Link> ({i.name}), owned by {i.domain.name}
                </li>
              ))}
            </ul>
          </div>
        </Card>
      )}

      <Card title="Rules on the data">
        <div className="space-y-3 text-sm" data-testid="review-quality">
          {review.quality.rules.length === 0 ? (
            <p className="text-slate-600">No data-quality rules: producers&apos; serializers check nothing beyond the schema.</p>
          ) : (
            <ul className="space-y-2" data-testid="review-quality-rules">
              {review.quality.rules.map((r) => (
                <li key={r.name}>
                  <span className="font-semibold">{r.name}</span> · <code className="font-mono text-xs">{r.expression}</code>
                  <span className="text-slate-600"> · {r.kind === "CEL_FIELD" ? `fields tagged ${r.tags.join(", ")} · ` : ""}{ruleModeLabel(r.mode)} · on failure {ruleActionLabel(r.onFailure)}</span>
                  {r.description && <p className="text-slate-600">{r.description}</p>}
                </li>
              ))}
            </ul>
          )}
          <p data-testid="review-quality-encryption">
            {review.quality.encryptPii ? "Field-level encryption: on — producers encrypt the fields classified as PII; only PII-approved subscribers get the key." : "Field-level encryption: off."}
          </p>
        </div>
      </Card>

      {review.migrationRules && (
        <Card title="Migration rules">
          <div className="space-y-3 text-sm" data-testid="review-migration-rules">
            <p className="text-slate-600">
              JSONata run by consumers&apos; deserializers: a consumer of {review.predecessor?.topicName ?? "the previous version"} reads this topic&apos;s records in its shape.
            </p>
            <div>
              <h3 className="font-semibold text-slate-900">DOWNGRADE (this version → the previous one)</h3>
              <pre className="overflow-auto rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100" data-testid="review-migration-downgrade">{review.migrationRules.downgrade}</pre>
            </div>
            {review.migrationRules.upgrade ? (
              <div>
                <h3 className="font-semibold text-slate-900">UPGRADE (the previous version → this one)</h3>
                <pre className="overflow-auto rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100" data-testid="review-migration-upgrade">{review.migrationRules.upgrade}</pre>
              </div>
            ) : (
              <p className="text-slate-600">No UPGRADE rule.</p>
            )}
          </div>
        </Card>
      )}

      <Card title={schema ? `Schema v${schema.version} · ${schema.format === "AVRO" ? "Avro" : "JSON Schema"}` : "Schema"}>
        {schema ? (
          review.predecessor?.currentDefinition ? (
            <DefinitionsSideBySide older={{ label: review.predecessor.topicName, definition: review.predecessor.currentDefinition }} newer={{ label: review.topicName, definition: schema.definition }} />
          ) : (
            <pre className="max-h-[32rem] overflow-auto rounded-md bg-slate-900 p-4 font-mono text-xs leading-relaxed text-slate-100" tabIndex={0} aria-label="Schema definition" data-testid="review-schema">
              {pretty(schema.definition)}
            </pre>
          )
        ) : (
          <p className="text-sm text-slate-600">No schema.</p>
        )}
      </Card>

      <ClaimReview productId={review.id} canDecide={perms.hasGlobal("product:review") && !mine} />

      <Card title="Decision">
        {action.isSuccess && <div className="mb-3"><Notice>Decision recorded.</Notice></div>}
        {review.status !== "IN_REVIEW" ? (
          <p className="text-sm text-slate-700">This product is {humanize(review.status).toLowerCase()}.</p>
        ) : mine ? (
          <p className="text-sm text-slate-600">You registered or submitted this product; another reviewer must decide (four-eyes rule).</p>
        ) : !perms.hasGlobal("product:review") ? (
          <p className="text-sm text-slate-600">Waiting for a governance reviewer.</p>
        ) : (
          <>
            <DecisionForm
              subject={review.name}
              pending={action.isPending}
              error={action.error}
              onApprove={(comment) => action.mutate({ kind: "approve", ...(comment ? { comment } : {}) })}
              onReject={(reason) => action.mutate({ kind: "reject", reason })}
            />
          </>
        )}
      </Card>
    </div>
  );
}

/** A claimed topic's found ACLs, decided here as on the product page (issue 31, point 2): the claim is approved only once each is decided. */
function ClaimReview({ productId, canDecide }: { productId: string; canDecide: boolean }) {
  const { data: product } = useQuery({
    queryKey: queryKeys.products.detail(productId),
    queryFn: ({ signal }) => api<ProductDetail>(`/api/v1/products/${productId}`, { signal }),
  });
  if (!product?.claim) return null;
  return <ClaimAclsPanel key={product.claim.topic} product={product} canDecide={canDecide} />;
}
