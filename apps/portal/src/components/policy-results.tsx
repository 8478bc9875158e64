import type { RuleResult } from "@kappa/catalog/policy";
import { cx } from "./ui";

/*
 * Policy verdicts as people read them: pass / warn / fail, the rule id and the
 * reason. Used next to form fields (as the user types), in the review queue
 * beside the change, and on the governance page.
 */

const STYLE: Record<RuleResult["outcome"], { icon: string; label: string; className: string }> = {
  pass: { icon: "✓", label: "Pass", className: "text-emerald-700" },
  warn: { icon: "!", label: "Warning", className: "text-amber-800" },
  fail: { icon: "✕", label: "Fails", className: "text-rose-700" },
};

/** Non-passing results for one field, rendered under its input. */
export function PolicyNotes({ id, results }: { id: string; results?: RuleResult[] }) {
  if (!results || results.length === 0) return null;
  return (
    <ul id={id} className="mt-1 space-y-0.5" data-policy-notes>
      {results.map((r) => (
        <li key={r.ruleId} className={cx("text-sm", STYLE[r.outcome].className)} data-policy-rule={r.ruleId} data-outcome={r.outcome}>
          <span aria-hidden="true">{STYLE[r.outcome].icon} </span>
          <span className="sr-only">{STYLE[r.outcome].label}: </span>
          {r.message} <code className="rounded bg-slate-100 px-1 text-xs text-slate-700">{r.ruleId}</code>
        </li>
      ))}
    </ul>
  );
}

/** Every result of an evaluation, failures first. */
export function PolicyResultList({ results, emptyText = "No policy rule applies." }: { results: RuleResult[]; emptyText?: string }) {
  if (results.length === 0) return <p className="text-sm text-slate-600">{emptyText}</p>;
  const order = { fail: 0, warn: 1, pass: 2 } as const;
  const sorted = [...results].sort((a, b) => order[a.outcome] - order[b.outcome]);
  return (
    <ul className="divide-y divide-slate-100 text-sm" aria-label="Policy results">
      {sorted.map((r) => (
        <li key={r.ruleId} className="flex gap-2 py-1.5" data-policy-rule={r.ruleId} data-outcome={r.outcome}>
          <span aria-hidden="true" className={cx("w-4 shrink-0 text-center font-bold", STYLE[r.outcome].className)}>{STYLE[r.outcome].icon}</span>
          <div className="min-w-0">
            <p className={cx(r.outcome !== "pass" && STYLE[r.outcome].className)}>
              <span className="sr-only">{STYLE[r.outcome].label}: </span>
              {r.message}
            </p>
            <p className="text-xs text-slate-500">
              <code>{r.ruleId}</code> · {r.severity === "error" ? "blocks" : "informs"} · {r.description}
            </p>
          </div>
        </li>
      ))}
    </ul>
  );
}

/** "2 fail · 1 warning · 9 pass" */
export function PolicySummary({ results }: { results: RuleResult[] }) {
  const count = (o: RuleResult["outcome"]) => results.filter((r) => r.outcome === o).length;
  const fail = count("fail");
  const warn = count("warn");
  return (
    <span className={cx("text-sm font-medium", fail ? "text-rose-700" : warn ? "text-amber-800" : "text-emerald-700")}>
      {fail ? `${fail} failing` : "No failures"}
      {warn ? ` · ${warn} warning${warn > 1 ? "s" : ""}` : ""} · {count("pass")} passing
    </span>
  );
}
