"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "@/components/link";
import { DefinitionsSideBySide, FieldDiff } from "@/components/schema-diff";
import { Badge, ButtonLink, Card, Field, inputClass } from "@/components/ui";
import { api } from "@/lib/api-client";
import type { SchemaVersionList } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { queryKeys } from "@/lib/query-keys";
import { ModeChange } from "./mode-change";
import { ProposeSchemaVersion } from "./propose-schema-version";

interface ProductRef {
  id: string;
  name: string;
  topicName: string;
  status: string;
  domainId: string;
  domainName: string;
}

/**
 * Every schema version of a product — status, dates, who proposed and who
 * decided, registry id and fingerprint — any two of them side by side, and for
 * owners of a live product the form that proposes the next one.
 */
export function SchemaVersionsView({ product, initial }: { product: ProductRef; initial: SchemaVersionList }) {
  const { data } = useQuery({
    queryKey: queryKeys.products.schemaVersions(product.id),
    queryFn: ({ signal }) => api<SchemaVersionList>(`/api/v1/products/${product.id}/schema-versions`, { signal }),
    initialData: initial,
  });
  const versions = data.versions;
  const format = versions[0]?.format ?? "AVRO";
  const [left, setLeft] = useState<number>(versions[1]?.version ?? versions[0]?.version ?? 1);
  const [right, setRight] = useState<number>(versions[0]?.version ?? 1);
  const older = versions.find((v) => v.version === left);
  const newer = versions.find((v) => v.version === right);
  const pending = versions.find((v) => v.status === "PENDING");
  const approved = versions.filter((v) => v.status === "APPROVED");

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <p className="text-sm text-slate-500">
            {product.domainName} / <Link href={`/products/${product.id}`} className="hover:underline">{product.name}</Link>
          </p>
          <h1 className="mt-1 flex flex-wrap items-center gap-3 text-2xl font-semibold tracking-tight">
            Schema versions
            <Badge value={product.status} />
          </h1>
          <p className="mt-1 font-mono text-sm text-slate-600">{product.topicName} · compatibility {data.compatibilityMode}</p>
        </div>
        <ButtonLink variant="secondary" href={`/products/${product.id}`}>Back to the product</ButtonLink>
      </div>

      {data.successor && (
        <div className="rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200">
          Superseded by major version v{data.successor.majorVersion}:{" "}
          <Link className="font-medium underline" href={`/products/${data.successor.id}`}>{data.successor.topicName}</Link> ({data.successor.status.toLowerCase().replace(/_/g, " ")}).
        </div>
      )}
      {data.predecessor && (
        <p className="text-sm text-slate-600">
          Major version v{data.majorVersion}; it supersedes <Link className="text-indigo-700 hover:underline" href={`/products/${data.predecessor.id}`}>{data.predecessor.topicName}</Link>.
        </p>
      )}

      <Card title={`Versions (${versions.length})`}>
        <div className="overflow-x-auto">
          <table className="min-w-full divide-y divide-slate-200 text-sm" data-testid="schema-versions">
            <caption className="sr-only">Schema versions of {product.name}</caption>
            <thead className="text-left text-xs font-medium uppercase tracking-wide text-slate-500">
              <tr>
                <th scope="col" className="py-2 pr-4">Version</th>
                <th scope="col" className="py-2 pr-4">Status</th>
                <th scope="col" className="py-2 pr-4">Proposed</th>
                <th scope="col" className="py-2 pr-4">Decided</th>
                <th scope="col" className="py-2 pr-4">Registry id · fingerprint</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {versions.map((v) => (
                <tr key={v.id} data-version={v.version}>
                  <th scope="row" className="py-2 pr-4 text-left font-medium">v{v.version}</th>
                  <td className="py-2 pr-4"><Badge value={v.status} /></td>
                  <td className="py-2 pr-4 text-slate-700">
                    {formatDateTime(v.createdAt)}
                    {v.proposedBy && <span className="block text-xs text-slate-500">by {v.proposedBy.name}</span>}
                  </td>
                  <td className="py-2 pr-4 text-slate-700">
                    {v.decidedAt ? formatDateTime(v.decidedAt) : "—"}
                    {v.decidedBy && <span className="block text-xs text-slate-500">by {v.decidedBy.name}</span>}
                    {v.decisionReason && <span className="block text-xs text-slate-500">“{v.decisionReason}”</span>}
                  </td>
                  <td className="py-2 pr-4 font-mono text-xs text-slate-600">
                    {v.schemaId ?? "—"} · <span title={v.fingerprint}>{v.fingerprint.slice(0, 12)}…</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Card>

      {versions.length > 1 && (
        <Card title="Compare two versions">
          <div className="mb-4 flex flex-wrap items-end gap-4">
            <Field id="compare-left" label="Older">
              {(a) => (
                <select {...a} value={left} onChange={(e) => setLeft(Number(e.target.value))} className={inputClass}>
                  {versions.map((v) => <option key={v.id} value={v.version}>v{v.version} ({v.status.toLowerCase()})</option>)}
                </select>
              )}
            </Field>
            <Field id="compare-right" label="Newer">
              {(a) => (
                <select {...a} value={right} onChange={(e) => setRight(Number(e.target.value))} className={inputClass}>
                  {versions.map((v) => <option key={v.id} value={v.version}>v{v.version} ({v.status.toLowerCase()})</option>)}
                </select>
              )}
            </Field>
          </div>
          {older && newer && (
            <div className="space-y-4">
              <FieldDiff format={format} older={{ label: `v${older.version}`, definition: older.definition }} newer={{ label: `v${newer.version}`, definition: newer.definition }} />
              <details>
                <summary className="cursor-pointer text-sm text-slate-700">Both definitions in full</summary>
                <div className="mt-3">
                  <DefinitionsSideBySide older={{ label: `v${older.version}`, definition: older.definition }} newer={{ label: `v${newer.version}`, definition: newer.definition }} />
                </div>
              </details>
            </div>
          )}
        </Card>
      )}

      <Card title="Compatibility mode">
        <ModeChange productId={product.id} mode={data.compatibilityMode} pending={data.pendingModeChange} canRequest={data.canRequestModeChange} />
      </Card>

      {data.canPropose && (
        <Card title="Propose a new version">
          {pending ? (
            <p className="text-sm text-slate-700" data-testid="pending-proposal">
              Version {pending.version} is waiting for review; one proposal at a time.
            </p>
          ) : data.successor ? (
            <p className="text-sm text-slate-700">This major version is superseded; evolve {data.successor.topicName} instead.</p>
          ) : (
            <ProposeSchemaVersion productId={product.id} format={format} latest={approved[0]?.definition ?? ""} />
          )}
        </Card>
      )}
    </div>
  );
}
