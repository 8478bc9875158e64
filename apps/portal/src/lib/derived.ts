/*
 * Pure helpers of the derived-product UI (issue 34): the columns of the output
 * schema Flink derived, where Flink's line and column fall in the statement,
 * and how a watermark lag reads.
 */
import type { DerivedValidationResult } from "./api-types";
import { formatNumber } from "./format";

/** One output column as the form shows it: Flink's type (from `x-flink-type`, nullable ones inside `anyOf`) and whether it may be null. */
export function outputColumns(schema: DerivedValidationResult["outputSchema"]): { name: string; type: string; required: boolean }[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const anyOf = Array.isArray(property.anyOf) ? (property.anyOf as Record<string, unknown>[]) : [];
    const typed = typeof property["x-flink-type"] === "string" ? property : anyOf.find((s) => typeof s["x-flink-type"] === "string");
    const type = typeof typed?.["x-flink-type"] === "string" ? typed["x-flink-type"] : typeof property.type === "string" ? property.type : "?";
    return { name, type, required: required.has(name) };
  });
}

/** The offset in `text` of a 1-based line and column (clamped to the text). */
export function offsetOf(text: string, line: number, column: number): number {
  const lines = text.split("\n");
  let offset = 0;
  for (let i = 0; i < Math.min(line - 1, lines.length - 1); i++) offset += lines[i]!.length + 1;
  const current = lines[Math.min(line, lines.length) - 1] ?? "";
  return offset + Math.max(0, Math.min(column - 1, current.length));
}

/** "850 ms", "4.2 s", "3.5 min", "2.1 h": how far the watermark is behind the wall clock. */
export function lagText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${formatNumber(ms / 1000, 1)} s`;
  if (ms < 3_600_000) return `${formatNumber(ms / 60_000, 1)} min`;
  return `${formatNumber(ms / 3_600_000, 1)} h`;
}

