import { qualityRuleInput, type QualityRule } from "../quality/rules.ts";
import type { OdcsCustomProperty, OdcsQuality } from "./odcs-types.ts";

/*
 * Data-quality rules (issue 29) in an ODCS contract: the schema object's
 * `quality` list, each rule a `custom` check with engine `cel`:
 *
 *   quality:
 *     - name: non-negative-total
 *       description: A total is never below zero.
 *       type: custom
 *       engine: cel
 *       implementation: message.totalCents >= 0
 *       customProperties:
 *         - { property: ruleKind, value: CEL }      # CEL_FIELD: per tagged field
 *         - { property: mode, value: WRITE }        # WRITE, READ or WRITEREAD
 *         - { property: onFailure, value: DLQ }     # ERROR, DLQ or NONE
 *         - { property: fieldTags, value: [PII] }   # CEL_FIELD only
 *
 * Other quality checks (text, library, sql, other engines) are the file's own:
 * read past, never enforced.
 */

export const CEL_ENGINE = "cel";

const prop = (list: OdcsCustomProperty[] | undefined, name: string): unknown => list?.find((p) => p.property === name)?.value;

export function qualityToContract(rules: readonly QualityRule[]): OdcsQuality[] {
  return rules.map((r) => ({
    name: r.name,
    ...(r.description ? { description: r.description } : {}),
    type: "custom",
    engine: CEL_ENGINE,
    implementation: r.expression,
    customProperties: [
      { property: "ruleKind", value: r.kind },
      { property: "mode", value: r.mode },
      { property: "onFailure", value: r.onFailure },
      ...(r.tags.length > 0 ? [{ property: "fieldTags", value: [...r.tags] }] : []),
    ],
  }));
}

/** The file's CEL rules, checked one by one; problems are keyed by their place in the file. */
export function qualityFromContract(quality: readonly OdcsQuality[] | undefined, add: (path: string, message: string) => void): QualityRule[] {
  const rules: QualityRule[] = [];
  (quality ?? []).forEach((q, i) => {
    if (q.type !== "custom" || (q.engine ?? "").toLowerCase() !== CEL_ENGINE) return;
    const parsed = qualityRuleInput.safeParse({
      name: q.name,
      description: q.description ?? "",
      kind: prop(q.customProperties, "ruleKind") ?? "CEL",
      expression: q.implementation,
      mode: prop(q.customProperties, "mode") ?? "WRITE",
      onFailure: prop(q.customProperties, "onFailure") ?? "ERROR",
      tags: prop(q.customProperties, "fieldTags") ?? [],
    });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = String(issue.path[0] ?? "");
        const where = field === "expression" ? "implementation" : field === "name" || field === "description" ? field : `customProperties.${field === "kind" ? "ruleKind" : field === "tags" ? "fieldTags" : field}`;
        add(`schema[0].quality[${i}].${where}`, issue.message);
      }
      return;
    }
    rules.push(parsed.data);
  });
  return rules;
}
