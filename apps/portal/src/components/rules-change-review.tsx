"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Button, ErrorAlert, Loading } from "@/components/ui";
import { api } from "@/lib/api-client";
import type { RulesImpact } from "@/lib/api-types";

/** A rule as a QUALITY_RULES change request's payload holds it. */
interface PayloadRule {
  name: string;
  kind: string;
  expression: string;
  mode: string;
  onFailure: string;
  tags: string[];
}

function rulesOf(value: unknown): PayloadRule[] | null {
  if (!Array.isArray(value)) return null;
  const rules = value.filter((r): r is PayloadRule => typeof r === "object" && r !== null && typeof (r as PayloadRule).name === "string" && typeof (r as PayloadRule).expression === "string");
  return rules.length === value.length ? rules.map((r) => ({ ...r, tags: Array.isArray(r.tags) ? r.tags : [] })) : null;
}

/** A change of data-quality rules: `{ from: rules, to: rules }` (the whole lists, before and after). */
export function rulesChangeOf(kind: string, payload: unknown): { from: PayloadRule[]; to: PayloadRule[] } | null {
  if (kind !== "QUALITY_RULES" || typeof payload !== "object" || payload === null) return null;
  const p = payload as Record<string, unknown>;
  const from = rulesOf(p.from);
  const to = rulesOf(p.to);
  return from && to ? { from, to } : null;
}

const describe = (r: PayloadRule) => `${r.kind} ${r.expression} · ${r.mode} · on failure ${r.onFailure}${r.tags.length ? ` · tags ${r.tags.join(", ")}` : ""}`;
const percent = (n: number, of: number) => (of === 0 ? "—" : `${((n / of) * 100).toFixed(n === 0 || n === of ? 0 : 1)} %`);

/**
 * The review of a change of data-quality rules: what is added, removed and
 * changed, by rule name; and, on request, what the rules in force and the
 * proposed ones make of the topic's newest records (counts only: a reviewer
 * may not read the product's data).
 */
export function RulesChangeReview({ changeId, change }: { changeId: string; change: { from: PayloadRule[]; to: PayloadRule[] } }) {
  const before = new Map(change.from.map((r) => [r.name, r]));
  const after = new Map(change.to.map((r) => [r.name, r]));
  const added = change.to.filter((r) => !before.has(r.name));
  const removed = change.from.filter((r) => !after.has(r.name));
  const changed = change.to.filter((r) => before.has(r.name) && describe(before.get(r.name)!) !== describe(r));
  const [asked, setAsked] = useState(false);
  const impact = useQuery({
    queryKey: ["change-requests", changeId, "rules-impact"],
    queryFn: ({ signal }) => api<RulesImpact>(`/api/v1/change-requests/${changeId}/rules-impact`, { signal }),
    enabled: asked,
    staleTime: Infinity,
  });
  return (
    <div className="mt-2 space-y-2 text-xs" data-testid="review-rules">
      <ul className="space-y-1" aria-label="Changes of the rules">
        {added.map((r) => (
          <li key={`+${r.name}`}>
            <span className="font-medium text-emerald-800">added</span> <strong>{r.name}</strong>: <code className="break-all">{describe(r)}</code>
          </li>
        ))}
        {changed.map((r) => (
          <li key={`~${r.name}`}>
            <span className="font-medium text-amber-800">changed</span> <strong>{r.name}</strong>: <code className="break-all">{describe(before.get(r.name)!)}</code> → <code className="break-all">{describe(r)}</code>
          </li>
        ))}
        {removed.map((r) => (
          <li key={`-${r.name}`}>
            <span className="font-medium text-rose-800">removed</span> <strong>{r.name}</strong>: <code className="break-all">{describe(r)}</code>
          </li>
        ))}
        {added.length + changed.length + removed.length === 0 && (
          <li>{change.from.map((r) => r.name).join("\u0000") === change.to.map((r) => r.name).join("\u0000") ? "The rules stay as they are." : "Only the order of the rules changes."}</li>
        )}
      </ul>
      {!asked ? (
        <Button variant="secondary" onClick={() => setAsked(true)} aria-label={`Evaluate the proposed rules on the newest records (change ${changeId})`}>
          Evaluate on recent records
        </Button>
      ) : impact.isPending ? (
        <Loading label="Evaluating the rules on the newest records…" />
      ) : impact.isError ? (
        <ErrorAlert message={impact.error.message} />
      ) : (
        <ImpactTable impact={impact.data} />
      )}
    </div>
  );
}

function ImpactTable({ impact }: { impact: RulesImpact }) {
  const n = impact.evaluated;
  return (
    <div className="space-y-1" data-testid="rules-impact">
      <p>
        Of the <strong>{n}</strong> newest records evaluated{impact.sampled !== n ? ` (${impact.sampled} read)` : ""}, the proposed rules would keep{" "}
        <strong>
          {impact.proposed.keptOffTopic} ({percent(impact.proposed.keptOffTopic, n)})
        </strong>{" "}
        off the topic — refused or dead-lettered by a producer&apos;s serializer — against {impact.current.keptOffTopic} ({percent(impact.current.keptOffTopic, n)}) with the rules in force; {impact.proposed.failingRecords} fail at least one proposed rule.
      </p>
      {impact.note && <p className="text-slate-600">{impact.note}</p>}
      <div className="overflow-x-auto">
        <table className="min-w-full text-left">
          <caption className="sr-only">The proposed rules on the newest records</caption>
          <thead>
            <tr className="text-slate-600">
              <th scope="col" className="py-1 pr-3 font-medium">Proposed rule</th>
              <th scope="col" className="py-1 pr-3 font-medium">On failure</th>
              <th scope="col" className="py-1 pr-3 font-medium">Fails</th>
              <th scope="col" className="py-1 pr-3 font-medium">Errors</th>
            </tr>
          </thead>
          <tbody>
            {impact.proposed.rules.map((r) => (
              <tr key={r.name} className="border-t border-slate-200">
                <th scope="row" className="py-1 pr-3 font-medium">{r.name}</th>
                <td className="py-1 pr-3">{r.mode === "READ" ? `${r.onFailure} (on read)` : r.onFailure}</td>
                <td className="py-1 pr-3">
                  {r.failed} of {n} ({percent(r.failed, n)})
                </td>
                <td className="py-1 pr-3">{r.errored}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
