"use client";

import { useQuery } from "@tanstack/react-query";
import { useActor, usePermissions } from "@/components/actor-context";
import { IssueList, StricterModes, Verdict } from "@/components/compatibility-verdict";
import { DecisionForm } from "@/components/decision-form";
import { Link } from "@/components/link";
import { DefinitionsSideBySide, FieldDiff } from "@/components/schema-diff";
import { Badge, ButtonLink, Card, Notice } from "@/components/ui";
import { api } from "@/lib/api-client";
import type { SchemaVersionReviewData } from "@/lib/api-types";
import { formatDateTime, humanize } from "@/lib/format";
import { useSchemaVersionDecision } from "@/lib/mutations";
import { queryKeys } from "@/lib/query-keys";

/**
 * One proposed schema version, as a reviewer decides on it: the field-level
 * change against the current version side by side, the verdict under the
 * product's mode and every stricter one, and the subscriptions that read the
 * product — flagged when the change is not FORWARD compatible, because their
 * consumers, still on the current schema, could not read the new records.
 */
export function SchemaVersionReviewView({ initial }: { initial: SchemaVersionReviewData }) {
  const me = useActor();
  const perms = usePermissions();
  const { data: review } = useQuery({
    queryKey: queryKeys.schemaVersions.review(initial.id),
    queryFn: ({ signal }) => api<SchemaVersionReviewData>(`/api/v1/schema-versions/${initial.id}`, { signal }),
    initialData: initial,
  });
  const decide = useSchemaVersionDecision(review.id, review.product.id);
  const subject = `v${review.version} of ${review.product.name}`;
  const canDecide = perms.hasGlobal("product:review") && review.status === "PENDING";
  const breaking = review.readers.filter((r) => r.breaks);

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <p className="text-sm text-slate-500">
            <Link href="/review" className="hover:underline">Review queue</Link> / schema version
          </p>
          <h1 className="mt-1 flex flex-wrap items-center gap-3 text-2xl font-semibold tracking-tight">
            {review.product.name} · v{review.version}
            <Badge value={review.status} />
          </h1>
          <p className="mt-1 font-mono text-sm text-slate-600">
            {review.product.topicName} · {review.product.compatibilityMode} · {review.format === "AVRO" ? "Avro" : "JSON Schema"}
          </p>
          <p className="mt-1 text-sm text-slate-600">
            Proposed {formatDateTime(review.createdAt)}
            {review.proposedBy ? ` by ${review.proposedBy.name}` : ""} · {review.product.domain.name} ·{" "}
            <Badge value={review.product.classification} label={humanize(review.product.classification)} />
          </p>
        </div>
        <ButtonLink variant="secondary" href={`/products/${review.product.id}/schema`}>All versions</ButtonLink>
      </div>

      <Card title="Compatibility">
        <div className="space-y-4">
          <Verdict mode={review.verdict.mode} compatible={review.verdict.compatible} checkedVersions={review.verdict.checkedVersions} issues={review.verdict.issues} />
          <div>
            <h3 className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-500">Under stricter modes</h3>
            <StricterModes modes={review.stricter} />
          </div>
        </div>
      </Card>

      <Card title={review.current ? `What changes from v${review.current.version}` : "Schema"}>
        {review.current ? (
          <div className="space-y-4">
            <FieldDiff
              format={review.format}
              older={{ label: `v${review.current.version} (current)`, definition: review.current.definition }}
              newer={{ label: `v${review.version} (proposed)`, definition: review.definition }}
              changes={review.fieldChanges}
            />
            <details>
              <summary className="cursor-pointer text-sm text-slate-700">Both definitions in full</summary>
              <div className="mt-3">
                <DefinitionsSideBySide older={{ label: `v${review.current.version}`, definition: review.current.definition }} newer={{ label: `v${review.version}`, definition: review.definition }} />
              </div>
            </details>
          </div>
        ) : (
          <DefinitionsSideBySide older={{ label: "before", definition: "{}" }} newer={{ label: `v${review.version}`, definition: review.definition }} />
        )}
        {review.pii.length > 0 && <p className="mt-3 text-sm text-orange-800">Personal data (PII) in: {review.pii.join(", ")}</p>}
        <p className="mt-3 font-mono text-xs text-slate-500">fingerprint {review.fingerprint}</p>
      </Card>

      <Card title={`Who reads this product (${review.readers.length})`}>
        {review.readers.length === 0 ? (
          <p className="text-sm text-slate-600">No approved or active subscription reads this product.</p>
        ) : (
          <div className="space-y-3">
            {breaking.length > 0 && (
              <div className="space-y-2">
                <p className="text-sm font-medium text-rose-800">
                  This version is not FORWARD compatible with v{review.current?.version}: consumers still on it cannot read what producers write with v{review.version}.
                </p>
                <IssueList issues={review.forwardIssues} testId="forward-issues" />
              </div>
            )}
            <ul className="divide-y divide-slate-100" data-testid="affected-readers">
              {review.readers.map((r) => (
                <li key={r.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm" data-breaks={r.breaks}>
                  <span>
                    <span className="font-medium">{r.consumingDomain.name}</span> · <span className="font-mono text-xs">User:{r.serviceAccount.name}</span>
                  </span>
                  <span className="flex items-center gap-2">
                    <Badge value={r.status} />
                    {r.breaks && <Badge value="REJECTED" label="would break" />}
                  </span>
                </li>
              ))}
            </ul>
          </div>
        )}
      </Card>

      <Card title="Decision">
        {decide.isSuccess && <div className="mb-3"><Notice>Decision recorded.</Notice></div>}
        {review.status !== "PENDING" ? (
          <p className="text-sm text-slate-700" data-testid="decision">
            {humanize(review.status)}
            {review.decidedAt ? ` on ${formatDateTime(review.decidedAt)}` : ""}
            {review.decidedBy ? ` by ${review.decidedBy.name}` : ""}
            {review.decisionReason ? `: “${review.decisionReason}”` : "."}
            {review.schemaId ? ` Registry id ${review.schemaId}.` : ""}
          </p>
        ) : review.proposedBy?.id === me.id ? (
          <p className="text-sm text-slate-600">You proposed this version; another reviewer must decide (four-eyes rule).</p>
        ) : !canDecide ? (
          <p className="text-sm text-slate-600">Waiting for a governance reviewer.</p>
        ) : (
          <>
            <DecisionForm
              subject={subject}
              pending={decide.isPending}
              error={decide.error}
              onApprove={(comment) => decide.mutate({ kind: "approve", fingerprint: review.fingerprint, ...(comment ? { comment } : {}) })}
              onReject={(reason) => decide.mutate({ kind: "reject", reason })}
            />
          </>
        )}
      </Card>
    </div>
  );
}
