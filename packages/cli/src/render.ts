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

/** Lines of a text (a statement), for a diff. */
const textLines = (v: unknown): string[] | null => (typeof v === "string" ? v.split("\n") : v === null || v === undefined ? [] : null);

/**
 * A line diff of two texts (longest common subsequence): "  " kept, "- "
 * removed, "+ " added — how a changed Flink SQL statement reads in a plan.
 * Statements are short (≤ 20,000 characters); a longer pair is shown whole,
 * removed then added, rather than spending quadratic time on it.
 */
export function lineDiff(from: string[], to: string[]): string[] {
  if (from.length * to.length > 1_000_000) return [...from.map((l) => `- ${l}`), ...to.map((l) => `+ ${l}`)];
  // lcs(i, j): length of the longest common subsequence of from[i..] and to[j..].
  const width = to.length + 1;
  const lengths = new Uint32Array((from.length + 1) * width);
  const lcs = (i: number, j: number): number => lengths[i * width + j] ?? 0;
  for (let i = from.length - 1; i >= 0; i--) {
    for (let j = to.length - 1; j >= 0; j--) lengths[i * width + j] = from[i] === to[j] ? lcs(i + 1, j + 1) + 1 : Math.max(lcs(i + 1, j), lcs(i, j + 1));
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < from.length || j < to.length) {
    if (i < from.length && j < to.length && from[i] === to[j]) {
      out.push(`  ${from[i]}`);
      i++;
      j++;
    } else if (i < from.length && (j === to.length || lcs(i + 1, j) >= lcs(i, j + 1))) {
      // Removed lines first, as a unified diff shows a replaced line.
      out.push(`- ${from[i]}`);
      i++;
    } else {
      out.push(`+ ${to[j]}`);
      j++;
    }
  }
  return out;
}

/** A change whose value is text over several lines (a derived product's statement) is shown as a line diff. */
function textChange(symbol: string, c: PlanItem["changes"][number]): string[] | null {
  const from = textLines(c.from);
  const to = textLines(c.to);
  if (!from || !to || (from.length <= 1 && to.length <= 1 && c.field !== "derivedStatement")) return null;
  return [`    ${symbol} ${c.field}:`, ...lineDiff(from, to).map((l) => `        ${l}`.trimEnd())];
}

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
    for (const c of item.changes) lines.push(...(textChange("+", { ...c, from: null }) ?? [`    + ${c.field}: ${show(c.to)}`]));
  } else {
    for (const c of item.changes) lines.push(...(textChange("~", c) ?? [`    ~ ${c.field}: ${show(c.from)} -> ${show(c.to)}`]));
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
