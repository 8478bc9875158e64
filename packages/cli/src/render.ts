import { stringify } from "yaml";
import type { PlanItem } from "./types.ts";

/*
 * What the CLI prints: aligned tables and plans for people, `-o json|yaml`
 * for scripts. Pure functions, so they are tested without a portal.
 */

export type OutputFormat = "table" | "json" | "yaml";

export function formatOutput(value: unknown, format: OutputFormat, table: () => string): string {
  if (format === "json") return JSON.stringify(value, null, 2);
  if (format === "yaml") return stringify(value, { lineWidth: 0 }).trimEnd();
  return table();
}

/** A plain aligned table (no colours: output is often a CI log). */
export function table(headers: string[], rows: (string | number | null | undefined)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? "-" : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : (c ?? "").padEnd(widths[i] ?? 0))).join("  ").trimEnd()).join("\n");
}

const show = (v: unknown): string => (v === null || v === undefined ? "(none)" : typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v));

const SYMBOL: Record<PlanItem["action"], string> = {
  create: "+",
  update: "~",
  "new-schema-version": "~",
  "new-major-version": "+",
  "no-change": "=",
  skipped: "-",
  error: "!",
};

/** One product's plan as a person reads it in a pull request. */
export function renderPlanItem(item: PlanItem): string {
  const name = item.contractId ?? item.source ?? "contract";
  const lines: string[] = [];
  const where = item.action === "create" || item.action === "new-major-version" ? item.targetTopic : item.topic;
  lines.push(`${SYMBOL[item.action]} ${name}: ${item.action.replace(/-/g, " ")}${where ? ` (${where})` : ""}${item.status ? ` [${item.status}]` : ""}`);
  if (item.source) lines.push(`    file: ${item.source}`);
  if (item.action === "skipped") {
    lines.push(`    skipped: ${item.skipped ?? "not yours to change"}`);
    return lines.join("\n");
  }
  for (const error of item.errors) lines.push(`    error: ${error}`);
  if (item.action === "create") {
    for (const c of item.changes) lines.push(`    + ${c.field}: ${show(c.to)}`);
  } else {
    for (const c of item.changes) lines.push(`    ~ ${c.field}: ${show(c.from)} -> ${show(c.to)}`);
  }
  if (item.schema.change === "new-version" && item.schema.mode) {
    lines.push(`    schema: ${item.schema.compatible ? "compatible" : "INCOMPATIBLE"} under ${item.schema.mode}`);
    for (const issue of item.schema.issues) lines.push(`      - ${issue.path || "(record)"}: ${issue.message} [${issue.rule}]`);
  }
  for (const note of item.notes) lines.push(`    ${note}`);
  const notPassing = item.policy.results.filter((r) => r.outcome !== "pass");
  if (item.action !== "error") {
    const passing = item.policy.results.length - notPassing.length;
    lines.push(`    policy v${item.policy.version}: ${notPassing.filter((r) => r.outcome === "fail").length} fail, ${notPassing.filter((r) => r.outcome === "warn").length} warn, ${passing} pass${item.policy.blocked ? " — BLOCKED" : ""}`);
    for (const r of notPassing) lines.push(`      ${r.outcome === "fail" ? "FAIL" : "WARN"} ${r.ruleId}: ${r.message}`);
  }
  if (item.refusal) lines.push(`    refused (${item.refusal.code}): ${item.refusal.message}`);
  if (item.applied) lines.push("    applied");
  return lines.join("\n");
}

export function renderPlan(items: PlanItem[]): string {
  const counts = new Map<string, number>();
  for (const i of items) counts.set(i.action, (counts.get(i.action) ?? 0) + 1);
  const summary = [...counts].map(([a, n]) => `${n} ${a.replace(/-/g, " ")}`).join(", ");
  return `${items.map(renderPlanItem).join("\n\n")}\n\nPlan: ${summary}.`;
}

/**
 * Exit code of `kappa plan`, about the caller's own products only: 1 an error
 * (or a policy that blocks), 2 changes, 0 nothing to do. Files of domains the
 * token may not change are skipped (each said so) and count for nothing.
 */
export function planExitCode(items: PlanItem[]): 0 | 1 | 2 {
  const own = items.filter((i) => i.action !== "skipped");
  if (own.some((i) => i.action === "error" || i.policy.blocked)) return 1;
  if (own.some((i) => i.action !== "no-change")) return 2;
  return 0;
}
