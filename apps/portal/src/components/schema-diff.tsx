"use client";

import { useId, useMemo, useState } from "react";
import { diffSchemaFields, type FieldChange, type FieldSummary } from "@kappa/catalog/schema-diff";
import { cx } from "./ui";

/*
 * Two schema versions side by side, field by field: what was added, removed,
 * renamed, or changed in type, default, doc, requiredness or PII tag. The
 * catalog's diff is pure, so any two versions compare in the browser.
 */

const CHANGE_STYLE: Record<FieldChange["change"], string> = {
  added: "bg-emerald-50",
  removed: "bg-rose-50",
  renamed: "bg-amber-50",
  changed: "bg-amber-50",
  unchanged: "",
};

const CHANGE_LABEL: Record<FieldChange["change"], string> = {
  added: "added",
  removed: "removed",
  renamed: "renamed",
  changed: "changed",
  unchanged: "unchanged",
};

function Summary({ field, aspects, side }: { field?: FieldSummary; aspects: string[]; side: "before" | "after" }) {
  if (!field) return <span className="text-slate-400">—</span>;
  const mark = (aspect: string) => (aspects.includes(aspect) ? (side === "before" ? "line-through decoration-rose-400" : "font-semibold text-amber-900") : "");
  return (
    <div className="space-y-0.5">
      <p className={cx("font-mono text-xs", mark("type"))}>{field.type}</p>
      {field.default !== undefined && <p className={cx("font-mono text-xs text-slate-600", mark("default"))}>default {field.default}</p>}
      {aspects.includes("default") && field.default === undefined && <p className="text-xs text-slate-500">no default</p>}
      {field.required !== undefined && <p className={cx("text-xs text-slate-600", mark("required"))}>{field.required ? "required" : "optional"}</p>}
      {field.doc && <p className={cx("text-xs text-slate-600", mark("doc"))}>{field.doc}</p>}
      {field.pii && <p className={cx("text-xs font-medium text-orange-800", mark("pii"))}>PII</p>}
      {aspects.includes("pii") && !field.pii && <p className="text-xs text-slate-500">not PII</p>}
    </div>
  );
}

/** The field table; `changes` from the server when it computed them, else computed here. */
export function FieldDiff({
  format,
  older,
  newer,
  changes,
}: {
  format: "AVRO" | "JSON_SCHEMA";
  older: { label: string; definition: string };
  newer: { label: string; definition: string };
  changes?: FieldChange[];
}) {
  const computed = useMemo(() => {
    if (changes) return { rows: changes, error: null };
    try {
      return { rows: diffSchemaFields(format, older.definition, newer.definition), error: null };
    } catch (error) {
      return { rows: [], error: (error as Error).message };
    }
  }, [changes, format, older.definition, newer.definition]);
  const [showAll, setShowAll] = useState(false);
  const toggleId = useId();
  if (computed.error) return <p className="text-sm text-rose-700">These versions cannot be compared: {computed.error}</p>;
  const differing = computed.rows.filter((r) => r.change !== "unchanged");
  const rows = showAll ? computed.rows : differing;
  return (
    <div className="space-y-2" data-testid="field-diff">
      <div className="flex flex-wrap items-center justify-between gap-2 text-sm">
        <p className="text-slate-700">
          {differing.length === 0 ? "No field differs." : `${differing.length} field${differing.length === 1 ? "" : "s"} differ${differing.length === 1 ? "s" : ""}`}
          {" "}({computed.rows.length} in all)
        </p>
        <label htmlFor={toggleId} className="flex items-center gap-2 text-slate-600">
          <input id={toggleId} type="checkbox" checked={showAll} onChange={(e) => setShowAll(e.target.checked)} className="h-4 w-4" />
          Show unchanged fields
        </label>
      </div>
      {rows.length > 0 && (
        <div className="overflow-x-auto rounded-md ring-1 ring-slate-200">
          <table className="min-w-full divide-y divide-slate-200 text-sm">
            <caption className="sr-only">Field changes from {older.label} to {newer.label}</caption>
            <thead className="bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
              <tr>
                <th scope="col" className="px-3 py-2">Field</th>
                <th scope="col" className="px-3 py-2">{older.label}</th>
                <th scope="col" className="px-3 py-2">{newer.label}</th>
                <th scope="col" className="px-3 py-2">Change</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 bg-white">
              {rows.map((r) => (
                <tr key={`${r.change}:${r.path}`} className={CHANGE_STYLE[r.change]} data-change={r.change} data-path={r.path}>
                  <th scope="row" className="px-3 py-2 text-left align-top font-mono text-xs font-medium text-slate-900">
                    {r.path}
                    {r.renamedFrom && <span className="block font-sans text-slate-500">was {r.renamedFrom}</span>}
                  </th>
                  <td className="px-3 py-2 align-top"><Summary field={r.before} aspects={r.aspects} side="before" /></td>
                  <td className="px-3 py-2 align-top"><Summary field={r.after} aspects={r.aspects} side="after" /></td>
                  <td className="px-3 py-2 align-top text-xs text-slate-700">
                    {CHANGE_LABEL[r.change]}
                    {r.aspects.length > 0 && <span className="block text-slate-500">{r.aspects.join(", ")}</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function pretty(definition: string): string {
  try {
    return JSON.stringify(JSON.parse(definition), null, 2);
  } catch {
    return definition;
  }
}

/** Both definitions in full, next to each other (stacked on narrow screens). */
export function DefinitionsSideBySide({ older, newer }: { older: { label: string; definition: string }; newer: { label: string; definition: string } }) {
  return (
    <div className="grid gap-3 md:grid-cols-2">
      {[older, newer].map((side) => (
        <div key={side.label} className="min-w-0">
          <p className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-500">{side.label}</p>
          <pre className="max-h-96 overflow-auto rounded-md bg-slate-900 p-3 font-mono text-xs leading-relaxed text-slate-100" tabIndex={0} aria-label={`Schema ${side.label}`}>
            {pretty(side.definition)}
          </pre>
        </div>
      ))}
    </div>
  );
}
