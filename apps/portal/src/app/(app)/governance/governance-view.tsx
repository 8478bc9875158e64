"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Link } from "@/components/link";
import { PolicyResultList } from "@/components/policy-results";
import { Badge, Button, Card, EmptyState, ErrorAlert, Field, inputClass, Notice, cx } from "@/components/ui";
import { api, type ApiError } from "@/lib/api-client";
import type { PolicyOverview } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { useHydrated } from "@/lib/use-hydrated";

export interface DiffLine {
  kind: "added" | "removed" | "same";
  text: string;
}

export function GovernanceView({ overview, diff }: { overview: PolicyOverview; diff: { version: number; reason: string; createdByEmail: string; createdAt: string; lines: DiffLine[] } }) {
  const { current, versions, violations, canEdit } = overview;
  return (
    <div className="space-y-6">
      <Card title={`Products in violation of policy v${current.version} (${violations.length})`}>
        {violations.length === 0 ? (
          <EmptyState title="Every product meets the policy in force" />
        ) : (
          <ul className="divide-y divide-slate-200" aria-label="Products in violation" data-testid="violations">
            {violations.map((v) => (
              <li key={v.productId} className="py-3 first:pt-0 last:pb-0">
                <div className="flex flex-wrap items-center gap-2">
                  <Link href={`/products/${v.productId}`} className="font-medium text-indigo-700 hover:underline">{v.name}</Link>
                  <Badge value={v.status} />
                  <span className="font-mono text-xs text-slate-500">{v.topicName}</span>
                </div>
                <div className="mt-1">
                  <PolicyResultList results={[...v.failed, ...v.warned]} />
                </div>
              </li>
            ))}
          </ul>
        )}
      </Card>

      <Card title="History">
        <div className="grid gap-4 md:grid-cols-[14rem_1fr]">
          <ol className="space-y-1 text-sm" aria-label="Policy versions">
            {versions.map((v) => (
              <li key={v.version}>
                <Link
                  href={`/governance?diff=${v.version}`}
                  aria-current={v.version === diff.version ? "true" : undefined}
                  className={cx("block rounded-md px-2 py-1", v.version === diff.version ? "bg-indigo-50 text-indigo-700" : "hover:bg-slate-100")}
                >
                  <span className="font-medium">v{v.version}</span>
                  {v.version === current.version && " (in force)"}
                  <span className="block text-xs text-slate-500">{formatDateTime(v.createdAt)} · {v.createdByEmail}</span>
                </Link>
              </li>
            ))}
          </ol>
          <div className="min-w-0">
            <p className="text-sm text-slate-700">
              <span className="font-medium">v{diff.version}</span> by {diff.createdByEmail}, {formatDateTime(diff.createdAt)}: “{diff.reason}”
            </p>
            <p className="mt-1 text-xs text-slate-500">{diff.version === 1 ? "The first version, in full." : `Changes against v${diff.version - 1}.`}</p>
            <pre className="mt-2 max-h-[32rem] overflow-auto rounded-md bg-slate-950 p-3 text-xs leading-5 text-slate-100" data-testid="policy-diff" tabIndex={0} aria-label={`Diff of policy v${diff.version}`}>
              {diff.lines.map((l, i) => (
                <div key={i} className={l.kind === "added" ? "bg-emerald-900/60 text-emerald-100" : l.kind === "removed" ? "bg-rose-900/60 text-rose-100" : undefined}>
                  <span aria-hidden="true">{l.kind === "added" ? "+ " : l.kind === "removed" ? "- " : "  "}</span>
                  <span className="sr-only">{l.kind === "added" ? "added: " : l.kind === "removed" ? "removed: " : ""}</span>
                  {l.text}
                </div>
              ))}
            </pre>
          </div>
        </div>
      </Card>

      {canEdit && <PolicyEditor source={current.source} version={current.version} />}
    </div>
  );
}

function PolicyEditor({ source, version }: { source: string; version: number }) {
  const router = useRouter();
  const [text, setText] = useState(source);
  const hydrated = useHydrated();
  const [reason, setReason] = useState("");
  const publish = useMutation<{ version: number; violations: PolicyOverview["violations"] }, ApiError, void>({
    mutationFn: () => api("/api/v1/policies", { method: "POST", body: { source: text, reason } }),
    onSuccess: () => {
      setReason("");
      router.refresh();
    },
  });
  function onSubmit(event: FormEvent) {
    event.preventDefault();
    publish.mutate();
  }
  return (
    <Card title="Edit the policy">
      <form onSubmit={onSubmit} className="space-y-4" noValidate>
        <ErrorAlert message={publish.isError ? publish.error.message : null}>
          {publish.error?.fields.source && <ul className="mt-1 list-disc pl-5">{publish.error.fields.source.map((m) => <li key={m}>{m}</li>)}</ul>}
        </ErrorAlert>
        {publish.isSuccess && (
          <Notice>
            Policy v{publish.data.version} is in force. {publish.data.violations.length === 0 ? "Every product meets it." : `${publish.data.violations.length} product(s) now violate it; they are listed above.`}
          </Notice>
        )}
        <Field id="policySource" label={`Policy document (YAML), replacing v${version}`} errors={publish.error?.fields.source ? ["See the problems above."] : undefined}>
          {(a) => <textarea {...a} rows={24} spellCheck={false} readOnly={!hydrated} value={text} onChange={(e) => setText(e.target.value)} className={`${inputClass} font-mono text-xs`} />}
        </Field>
        <Field id="policyReason" label="Reason for the change" errors={publish.error?.fields.reason} hint="Kept with the version in the history and the audit log.">
          {(a) => <input {...a} value={reason} onChange={(e) => setReason(e.target.value)} className={inputClass} />}
        </Field>
        <Button type="submit" disabled={publish.isPending}>{publish.isPending ? "Publishing…" : `Publish v${version + 1}`}</Button>
      </form>
    </Card>
  );
}
