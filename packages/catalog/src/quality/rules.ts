import { celEnv, parse, plan } from "@bufbuild/cel";
import { z } from "zod";
import { ValidationError, type FieldErrors } from "../errors.ts";
import type { PolicyDocument } from "../policies/document.ts";
import { schemaFields } from "../schema/fields.ts";
import { longText, text } from "../validation.ts";

/*
 * Data-quality rules of a product's contract (issue 29). Each is a CEL
 * condition as Confluent's data contracts define them: `CEL` over the whole
 * record (bound to `message`), `CEL_FIELD` over every field that carries one
 * of the rule's tags (bound to `value`, `name`, `fullName`, `typeName`,
 * `tags`, `message` — the names `@confluentinc/schemaregistry`'s CEL_FIELD
 * executor binds). The Schema Registry API serves them as each version's
 * `ruleSet.domainRules`; `@confluentinc/schemaregistry`'s serializers and
 * deserializers execute them with @bufbuild/cel — the same parser checks them
 * here, so what the catalog accepts is what the clients run.
 *
 * Checked before anyone may submit them: the expression parses (else the
 * parser's error with line and column), names only the variables the client
 * binds, and `message.<field>` names a top-level field of the schema — the
 * client treats an evaluation error as "not false", so a misspelt field
 * would pass every record silently. CEL has no loops or recursion: every
 * expression terminates, and its cost is bounded by its length (the policy's
 * limit).
 */

export const RULE_KINDS = ["CEL", "CEL_FIELD"] as const;
export const RULE_MODES = ["WRITE", "READ", "WRITEREAD"] as const;
export const RULE_ACTIONS = ["ERROR", "DLQ", "NONE"] as const;
export type RuleKind = (typeof RULE_KINDS)[number];
export type RuleMode = (typeof RULE_MODES)[number];
export type RuleAction = (typeof RULE_ACTIONS)[number];

/** Rule names are what a DLQ record's header carries: lower-case words joined by '-', '_' or '.'. */
const NAME_PATTERN = /^[a-z0-9]+(?:[-_.][a-z0-9]+)*$/;
const TAG_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,39}$/;
/** Hard bounds whatever the policy says (the policy may only be stricter within them). */
const HARD_MAX_RULES = 100;
const HARD_MAX_EXPRESSION = 10_000;

export const qualityRuleInput = z.object({
  name: text("The rule name", 64).pipe(z.string().min(1, "Name the rule.").regex(NAME_PATTERN, "Rule names are lower-case words joined by '-', e.g. non-negative-total.")),
  description: longText("The description", 500).optional().default(""),
  kind: z.enum(RULE_KINDS, { message: "kind is CEL (the whole record) or CEL_FIELD (fields with a tag)." }),
  expression: z
    .string({ message: "The expression must be text." })
    .max(HARD_MAX_EXPRESSION, `The expression must be at most ${HARD_MAX_EXPRESSION} characters.`)
    .trim()
    .pipe(z.string().min(1, "Write the rule's CEL expression.")),
  mode: z.enum(RULE_MODES, { message: "mode is WRITE, READ or WRITEREAD." }),
  onFailure: z.enum(RULE_ACTIONS, { message: "onFailure is ERROR, DLQ or NONE." }),
  tags: z.array(z.string().regex(TAG_PATTERN, "Tags are a letter followed by letters, digits, '_' or '-' (at most 40), e.g. PII.")).max(10, "At most 10 tags per rule.").optional().default([]),
});

export const qualityRulesInput = z.object({
  rules: z.array(qualityRuleInput, { message: "rules must be a list." }).max(HARD_MAX_RULES, `At most ${HARD_MAX_RULES} rules.`),
});

export type QualityRule = z.output<typeof qualityRuleInput>;

export interface QualityLimits {
  maxRules: number;
  maxExpressionLength: number;
  dlqRetentionMs: number;
}

export const DEFAULT_QUALITY_LIMITS: QualityLimits = { maxRules: 20, maxExpressionLength: 1000, dlqRetentionMs: 604_800_000 };

/** The first enabled `data-quality-limits` rule of the policy; the platform default without one. */
export function qualityLimitsFromPolicy(document: PolicyDocument): QualityLimits {
  const rule = document.rules.find((r) => r.enabled && r.check === "data-quality-limits");
  if (!rule || rule.check !== "data-quality-limits") return DEFAULT_QUALITY_LIMITS;
  return { ...rule.params };
}

/** Variables Confluent's executors bind: CEL gets `message`; CEL_FIELD gets the field's value and context. */
const BOUND: Record<RuleKind, readonly string[]> = {
  CEL: ["message"],
  CEL_FIELD: ["value", "name", "fullName", "typeName", "tags", "message"],
};

/** `<input>:1:11: found …` → the message without the prefix, and where. */
function syntaxProblem(error: unknown, part: string, offset: number, whole: string): string {
  const e = error as { message?: string; location?: { start?: { offset?: number } } };
  const local = e.location?.start?.offset;
  const message = (e.message ?? String(error)).replace(/^<input>:\d+:\d+:\s*/, "");
  if (typeof local !== "number") return `Does not compile: ${message}`;
  const at = offset + local;
  const before = whole.slice(0, at);
  const line = before.split("\n").length;
  const column = at - before.lastIndexOf("\n");
  return `Does not compile at line ${line}, column ${column}: ${message} (near "${part.slice(local, local + 20).replace(/\s+/g, " ")}")`;
}

type Expr = NonNullable<ReturnType<typeof parse>["expr"]>;

/** Identifiers the expression reads from outside (comprehension variables excluded), and `message.<field>` selections. */
function references(expr: Expr | undefined, scope: Set<string>, out: { idents: Set<string>; messageFields: Set<string> }): void {
  if (!expr) return;
  const kind = expr.exprKind;
  switch (kind.case) {
    case "identExpr":
      if (!scope.has(kind.value.name)) out.idents.add(kind.value.name);
      return;
    case "selectExpr": {
      const operand = kind.value.operand;
      if (operand?.exprKind.case === "identExpr" && operand.exprKind.value.name === "message" && !scope.has("message")) out.messageFields.add(kind.value.field);
      references(operand, scope, out);
      return;
    }
    case "callExpr":
      references(kind.value.target, scope, out);
      for (const arg of kind.value.args) references(arg, scope, out);
      return;
    case "listExpr":
      for (const e of kind.value.elements) references(e, scope, out);
      return;
    case "structExpr":
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === "mapKey") references(entry.keyKind.value, scope, out);
        references(entry.value, scope, out);
      }
      return;
    case "comprehensionExpr": {
      const c = kind.value;
      references(c.iterRange, scope, out);
      references(c.accuInit, scope, out);
      const inner = new Set([...scope, c.iterVar, c.accuVar, ...(c.iterVar2 ? [c.iterVar2] : [])]);
      references(c.loopCondition, inner, out);
      references(c.loopStep, inner, out);
      references(c.result, inner, out);
      return;
    }
    default:
      return;
  }
}

const env = celEnv();

/** Problems of one expression (empty when it compiles and reads only what exists). */
export function expressionProblems(kind: RuleKind, expression: string, topLevelFields: ReadonlySet<string> | null): string[] {
  // Confluent's executors read `guard;expression`: the guard decides whether the rule applies.
  const split = expression.indexOf(";");
  const parts = split >= 0 ? [{ text: expression.slice(0, split), offset: 0 }, { text: expression.slice(split + 1), offset: split + 1 }] : [{ text: expression, offset: 0 }];
  const problems: string[] = [];
  for (const part of parts) {
    if (part.text.trim() === "") {
      if (part.offset > 0 || split < 0) problems.push("The expression after ';' is empty.");
      continue;
    }
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(part.text);
      plan(env, parsed);
    } catch (error) {
      problems.push(syntaxProblem(error, part.text, part.offset, expression));
      continue;
    }
    const refs = { idents: new Set<string>(), messageFields: new Set<string>() };
    references(parsed.expr, new Set(), refs);
    const unknown = [...refs.idents].filter((name) => !BOUND[kind].includes(name));
    if (unknown.length > 0) {
      problems.push(`Unknown name${unknown.length > 1 ? "s" : ""} ${unknown.map((n) => `'${n}'`).join(", ")}: a ${kind} rule reads ${BOUND[kind].map((n) => `'${n}'`).join(", ")}.`);
    }
    if (topLevelFields) {
      const missing = [...refs.messageFields].filter((f) => !topLevelFields.has(f));
      if (missing.length > 0) problems.push(`The schema has no field ${missing.map((f) => `'${f}'`).join(", ")} (message.${missing[0]}); fields: ${[...topLevelFields].join(", ")}.`);
    }
  }
  return problems;
}

/**
 * Validates a rule set against the product's schema and the policy's limits;
 * throws a ValidationError naming each rule's field (`rules.<i>.expression`).
 */
export function checkQualityRules(rules: readonly QualityRule[], schema: { format: "AVRO" | "JSON_SCHEMA"; definition: string } | null, limits: QualityLimits): void {
  const fields: FieldErrors = {};
  const add = (key: string, message: string) => (fields[key] ??= []).push(message);
  if (rules.length > limits.maxRules) add("rules", `At most ${limits.maxRules} data-quality rules per product (policy); this set has ${rules.length}.`);
  const top = schema ? new Set(schemaFields(schema.format, schema.definition).map((f) => f.name)) : null;
  const seen = new Set<string>();
  rules.forEach((rule, i) => {
    if (seen.has(rule.name)) add(`rules.${i}.name`, `The name '${rule.name}' is used twice.`);
    seen.add(rule.name);
    if (rule.expression.length > limits.maxExpressionLength) {
      add(`rules.${i}.expression`, `The expression has ${rule.expression.length} characters; the policy allows at most ${limits.maxExpressionLength}.`);
      return;
    }
    if (rule.kind === "CEL_FIELD" && rule.tags.length === 0) add(`rules.${i}.tags`, "A CEL_FIELD rule applies to fields with a tag: name at least one (e.g. PII).");
    if (rule.kind === "CEL" && rule.tags.length > 0) add(`rules.${i}.tags`, "Tags select fields for CEL_FIELD rules; a CEL rule reads the whole record.");
    for (const problem of expressionProblems(rule.kind, rule.expression, top && top.size > 0 ? top : null)) add(`rules.${i}.expression`, problem);
  });
  if (Object.keys(fields).length > 0) {
    const first = Object.values(fields)[0]?.[0] ?? "Some rules need attention.";
    throw new ValidationError(`The data-quality rules need attention: ${first}`, fields);
  }
}

/** Whether two rule lists say the same (order matters: rules run in order). */
export function sameRules(a: readonly QualityRule[], b: readonly QualityRule[]): boolean {
  return JSON.stringify(a.map(canonicalRule)) === JSON.stringify(b.map(canonicalRule));
}

export function canonicalRule(rule: QualityRule): QualityRule {
  return { name: rule.name, description: rule.description, kind: rule.kind, expression: rule.expression, mode: rule.mode, onFailure: rule.onFailure, tags: [...rule.tags] };
}

/** The dead-letter topic of a product topic (issue 29: `<topic>.dlq` for every product). */
export function dlqTopicOf(topicName: string): string {
  return `${topicName}.dlq`;
}

export function hasDlqRule(rules: readonly Pick<QualityRule, "onFailure">[]): boolean {
  return rules.some((r) => r.onFailure === "DLQ");
}
