import { celEnv, isCelError, parse, plan, type CelInput } from "@bufbuild/cel";
import { STRINGS_EXT_FUNCS } from "@bufbuild/cel/ext/strings";
import type { Json } from "../records/mask.ts";
import type { QualityRule } from "./rules.ts";

/*
 * Evaluates a product's data-quality rules against decoded records, as
 * `@confluentinc/schemaregistry`'s CelExecutor and CelFieldExecutor do on the
 * client (issue 29): the same CEL library with the strings extension, an
 * optional `guard;expression` (a false guard skips the rule), `message` bound
 * to the record, and — for CEL_FIELD — every primitive field that carries one
 * of the rule's tags evaluated with `value`, `name`, `fullName`, `typeName`,
 * `tags` and `message`, as the client's executor binds them. A rule fails a record only when it yields `false`: the client
 * lets a record pass when the expression errs (a missing field, a type
 * mismatch), and so do we — but we count it as "errored" so owners see it.
 *
 * The one evaluator of the platform: the worker's observed-quality sampler
 * and the portal's rule test both call it.
 */

export type RuleOutcome = "passed" | "failed" | "errored";

export interface TaggedField {
  /** Path of the field in the record (`customer.email`). */
  path: string;
  name: string;
  /** Confluent's full name: `<record full name>.<field>` (Avro) or the path (JSON Schema). */
  fullName: string;
  typeName: string;
  tags: string[];
}

type Program = (ctx?: Record<string, CelInput>) => unknown;

const env = celEnv({ funcs: STRINGS_EXT_FUNCS });

type SchemaJson = null | boolean | number | string | SchemaJson[] | { [key: string]: SchemaJson };
const isObject = (v: unknown): v is Record<string, SchemaJson> => typeof v === "object" && v !== null && !Array.isArray(v);

const AVRO_PRIMITIVES = new Set(["null", "boolean", "int", "long", "float", "double", "bytes", "string"]);

function fieldTags(field: Record<string, SchemaJson>, piiKey: string): string[] {
  const tags = new Set<string>();
  if (field[piiKey] === true) tags.add("PII");
  const own = field["confluent:tags"];
  if (Array.isArray(own)) for (const t of own) if (typeof t === "string") tags.add(t);
  return [...tags].sort();
}

/** Tagged fields of an Avro schema reachable through records and unions (not inside arrays or maps), with their primitive type. */
function avroTagged(definition: SchemaJson): TaggedField[] {
  const named = new Map<string, Record<string, SchemaJson>>();
  const collect = (s: SchemaJson, ns: string): void => {
    if (Array.isArray(s)) return s.forEach((b) => collect(b, ns));
    if (!isObject(s)) return;
    if ((s.type === "record" || s.type === "enum" || s.type === "fixed") && typeof s.name === "string") {
      const space = typeof s.namespace === "string" ? s.namespace : ns;
      const full = s.name.includes(".") || space === "" ? s.name : `${space}.${s.name}`;
      named.set(full, s);
      named.set(s.name, s);
      const inner = full.includes(".") ? full.slice(0, full.lastIndexOf(".")) : "";
      if (Array.isArray(s.fields)) for (const f of s.fields) if (isObject(f)) collect(f.type ?? null, inner);
    } else if (s.type === "array") collect(s.items ?? null, ns);
    else if (s.type === "map") collect(s.values ?? null, ns);
  };
  collect(definition, "");
  const out: TaggedField[] = [];
  const primitiveOf = (t: SchemaJson): string | null => {
    if (typeof t === "string") return AVRO_PRIMITIVES.has(t) ? t : named.get(t)?.type === "enum" ? "enum" : null;
    if (Array.isArray(t)) return t.map(primitiveOf).find((p) => p !== null && p !== "null") ?? null;
    if (isObject(t) && typeof t.type === "string") return t.type === "enum" || t.type === "fixed" ? t.type : AVRO_PRIMITIVES.has(t.type) ? t.type : null;
    return null;
  };
  const records = (t: SchemaJson): Record<string, SchemaJson>[] => {
    if (typeof t === "string") return named.get(t)?.type === "record" ? [named.get(t) as Record<string, SchemaJson>] : [];
    if (Array.isArray(t)) return t.flatMap(records);
    return isObject(t) && t.type === "record" ? [t] : [];
  };
  const walk = (record: Record<string, SchemaJson>, prefix: string, ns: string, seen: Set<Record<string, SchemaJson>>): void => {
    if (seen.has(record) || typeof record.name !== "string") return;
    const space = typeof record.namespace === "string" ? record.namespace : ns;
    const full = record.name.includes(".") || space === "" ? record.name : `${space}.${record.name}`;
    const inner = full.includes(".") ? full.slice(0, full.lastIndexOf(".")) : "";
    const next = new Set(seen).add(record);
    for (const f of Array.isArray(record.fields) ? record.fields : []) {
      if (!isObject(f) || typeof f.name !== "string") continue;
      const path = prefix ? `${prefix}.${f.name}` : f.name;
      const type = f.type ?? null;
      const prim = primitiveOf(type);
      const tags = fieldTags(f, "pii");
      if (prim && tags.length > 0) out.push({ path, name: f.name, fullName: `${full}.${f.name}`, typeName: prim.toUpperCase(), tags });
      for (const r of records(type)) walk(r, path, inner, next);
    }
  };
  for (const r of records(definition)) walk(r, "", "", new Set());
  return out;
}

/** Tagged properties of a JSON Schema reachable through objects (not inside arrays). */
function jsonTagged(schema: SchemaJson, prefix = "", depth = 0): TaggedField[] {
  if (!isObject(schema) || !isObject(schema.properties) || depth > 32) return [];
  const out: TaggedField[] = [];
  for (const [name, sub] of Object.entries(schema.properties)) {
    if (!isObject(sub)) continue;
    const path = prefix ? `${prefix}.${name}` : name;
    const tags = fieldTags(sub, "x-pii");
    const type = Array.isArray(sub.type) ? sub.type.find((t) => t !== "null") : sub.type;
    if (tags.length > 0 && typeof type === "string" && type !== "object" && type !== "array") out.push({ path, name, fullName: path, typeName: type.toUpperCase(), tags });
    out.push(...jsonTagged(sub, path, depth + 1));
  }
  return out;
}

export function taggedFields(format: "AVRO" | "JSON_SCHEMA", definition: string): TaggedField[] {
  let parsed: SchemaJson;
  try {
    parsed = JSON.parse(definition) as SchemaJson;
  } catch {
    return [];
  }
  return format === "AVRO" ? avroTagged(parsed) : jsonTagged(parsed);
}

function at(value: Json, path: string): Json | undefined {
  let v: Json | undefined = value;
  for (const part of path.split(".")) {
    if (v === null || v === undefined || typeof v !== "object" || Array.isArray(v)) return undefined;
    v = v[part];
  }
  return v;
}

/** Json → CEL input: lists and maps as they are; numbers stay numbers (CEL doubles, as the client binds avsc's numbers). */
const celValue = (v: Json): CelInput => v;

function compile(expression: string): { guard: Program | null; body: Program } | { error: string } {
  const split = expression.indexOf(";");
  const guardText = split >= 0 ? expression.slice(0, split) : "";
  const bodyText = split >= 0 ? expression.slice(split + 1) : expression;
  try {
    return { guard: guardText.trim() ? plan(env, parse(guardText)) : null, body: plan(env, parse(bodyText)) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** One run of a compiled rule: false fails, anything else (true, an error, a non-boolean) lets the record pass as the client does. */
function outcomeOf(program: { guard: Program | null; body: Program }, bindings: Record<string, CelInput>): RuleOutcome {
  if (program.guard) {
    const g = program.guard(bindings);
    if (g === false) return "passed";
  }
  const r = program.body(bindings);
  if (r === false) return "failed";
  if (r === true) return "passed";
  return isCelError(r) || typeof r !== "boolean" ? "errored" : "passed";
}

export interface RuleEvaluator {
  rules: readonly string[];
  /** Outcome per rule, in the rules' order. */
  evaluate(message: Json): RuleOutcome[];
}

/**
 * Compiles the rules once for many records. A rule that does not compile
 * (the catalog refuses those, but a rule from before a stricter check could)
 * errs on every record rather than failing them.
 */
export function ruleEvaluator(rules: readonly QualityRule[], schema: { format: "AVRO" | "JSON_SCHEMA"; definition: string } | null): RuleEvaluator {
  const fields = schema ? taggedFields(schema.format, schema.definition) : [];
  const compiled = rules.map((rule) => ({ rule, program: compile(rule.expression), fields: rule.kind === "CEL_FIELD" ? fields.filter((f) => f.tags.some((t) => rule.tags.includes(t))) : [] }));
  return {
    rules: rules.map((r) => r.name),
    evaluate(message: Json): RuleOutcome[] {
      return compiled.map(({ rule, program, fields: tagged }) => {
        if ("error" in program) return "errored";
        try {
          if (rule.kind === "CEL") return outcomeOf(program, { message: celValue(message) });
          let result: RuleOutcome = "passed";
          for (const field of tagged) {
            const value = at(message, field.path);
            // The client skips null fields and anything not primitive.
            if (value === undefined || value === null || typeof value === "object") continue;
            const o = outcomeOf(program, { value: celValue(value), name: field.name, fullName: field.fullName, typeName: field.typeName, tags: field.tags, message: celValue(message) });
            if (o === "failed") return "failed";
            if (o === "errored") result = "errored";
          }
          return result;
        } catch {
          return "errored";
        }
      });
    },
  };
}
