import jsonata from "jsonata";
import { ValidationError } from "../errors.ts";
import { avscType } from "../schema/avro-resolver.ts";
import { migrationRulesInput } from "../validation.ts";
import type { RegistryRule } from "./registry-rules.ts";

/*
 * Migration rules (issue 29): JSONata expressions that go with a new major
 * version `<domain>.<product>.v<N+1>`, so that a consumer of v<N> can read the
 * new topic's records in the old shape — as Confluent's data contracts do with
 * `metadata.properties.major_version` and `ruleSet.migrationRules`, run by
 * `@confluentinc/schemaregistry`'s deserializer (JsonataExecutor) when it is
 * configured with `useLatestWithMetadata: { major_version: "<N>" }`.
 *   - `downgrade` (required): a record of the new schema → a record of the old one;
 *   - `upgrade` (optional): a record of the old schema → a record of the new one.
 */

export interface MigrationRules {
  downgrade: string;
  upgrade?: string;
}

/** Bounds for evaluating an expression on a sample record when publishing (JSONata's own guardrails). */
const SAMPLE_TIMEOUT_MS = 1000;
const SAMPLE_STACK = 200;
const SAMPLE_SEQUENCE = 10_000;

function compile(field: string, text: string): jsonata.Expression {
  try {
    return jsonata(text, { timeout: SAMPLE_TIMEOUT_MS, stack: SAMPLE_STACK, sequence: SAMPLE_SEQUENCE });
  } catch (error) {
    const e = error as { message?: string; position?: number };
    const where = typeof e.position === "number" ? ` at character ${e.position}` : "";
    throw new ValidationError("A migration rule is not a valid JSONata expression.", { [field]: [`Does not compile${where}: ${e.message ?? String(error)}`] });
  }
}

/** What an expression turns a record of `from` into; a ValidationError naming the field when it fails or the result is not a record of `to`. */
async function checkOnSample(field: string, expr: jsonata.Expression, from: string, to: string, fromLabel: string, toLabel: string): Promise<void> {
  const fromType = avscType(from) as unknown as { random(): unknown };
  const toType = avscType(to) as unknown as { isValid(value: unknown, opts?: { errorHook?: (path: string[]) => void }): boolean };
  // As the deserializer hands it over: the record decoded with the writer's schema.
  const sample = fromType.random();
  let result: unknown;
  try {
    result = await expr.evaluate(sample);
  } catch (error) {
    // JSONata throws plain objects with a code. Running away refuses the rule: consumers' deserializers run it on every
    // record, without these guards. Any other failure may come from the sample's random values (a number cast from
    // random text fails; real records are not random), so it is no reason to refuse, and the shape is not checked.
    const e = error as { code?: string; message?: string };
    if (e.code === "D1011" || e.code === "D1012") {
      const what = e.code === "D1011" ? `nests deeper than ${SAMPLE_STACK} calls` : `runs longer than ${SAMPLE_TIMEOUT_MS} ms`;
      throw new ValidationError("A migration rule does not terminate on a sample record.", { [field]: [`Does not terminate: on a record of the ${fromLabel} schema it ${what} (JSONata ${e.code}).`] });
    }
    return;
  }
  const wrong: string[] = [];
  if (!toType.isValid(result, { errorHook: (path) => wrong.push(path.join(".") || "(the record)") })) {
    throw new ValidationError("A migration rule does not produce a record of the target schema.", {
      [field]: [`On a record of the ${fromLabel} schema it does not give a record of the ${toLabel} schema (wrong or missing: ${[...new Set(wrong)].slice(0, 5).join(", ")}).`],
    });
  }
}

/**
 * Checks migration rules for a new major version: each expression compiles and
 * — for Avro — on a random record of its source schema it terminates (JSONata's
 * timeout and depth guards) and, when it evaluates, gives a valid record of its
 * target schema (DOWNGRADE: new → old, UPGRADE: old → new); an error the
 * random values may cause is not held against it. JSON Schema products get the
 * compile check only (no sample generator for JSON Schema here).
 */
export async function checkMigrationRules(
  raw: unknown,
  schemas: { format: "AVRO" | "JSON_SCHEMA"; previous: string; next: string; previousMajor: number; nextMajor: number },
): Promise<MigrationRules> {
  const parsed = migrationRulesInput.safeParse(raw);
  if (!parsed.success) {
    const fields: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) (fields[["migrationRules", ...issue.path.map(String)].join(".")] ??= []).push(issue.message);
    throw new ValidationError("The migration rules are not valid.", fields);
  }
  const rules: MigrationRules = { downgrade: parsed.data.downgrade, ...(parsed.data.upgrade ? { upgrade: parsed.data.upgrade } : {}) };
  const down = compile("migrationRules.downgrade", rules.downgrade);
  const up = rules.upgrade ? compile("migrationRules.upgrade", rules.upgrade) : null;
  if (schemas.format === "AVRO") {
    const oldLabel = `v${schemas.previousMajor}`;
    const newLabel = `v${schemas.nextMajor}`;
    await checkOnSample("migrationRules.downgrade", down, schemas.next, schemas.previous, newLabel, oldLabel);
    if (up) await checkOnSample("migrationRules.upgrade", up, schemas.previous, schemas.next, oldLabel, newLabel);
  }
  return rules;
}

/** Stored rules (a JSON column) back as MigrationRules, or null. */
export function migrationRulesOf(stored: unknown): MigrationRules | null {
  const parsed = migrationRulesInput.safeParse(stored);
  return parsed.success ? { downgrade: parsed.data.downgrade, ...(parsed.data.upgrade ? { upgrade: parsed.data.upgrade } : {}) } : null;
}

/** As Confluent's Rule objects: TRANSFORM rules of type JSONATA in modes DOWNGRADE and UPGRADE. */
export function registryMigrationRules(rules: MigrationRules | null, previousMajor: number): RegistryRule[] {
  if (!rules) return [];
  const out: RegistryRule[] = [
    { name: `downgrade-to-v${previousMajor}`, doc: `Records of this major version in the shape of v${previousMajor}.`, kind: "TRANSFORM", mode: "DOWNGRADE", type: "JSONATA", expr: rules.downgrade, onFailure: "ERROR", disabled: false },
  ];
  if (rules.upgrade) {
    out.push({ name: `upgrade-from-v${previousMajor}`, doc: `Records of v${previousMajor} in the shape of this major version.`, kind: "TRANSFORM", mode: "UPGRADE", type: "JSONATA", expr: rules.upgrade, onFailure: "ERROR", disabled: false });
  }
  return out;
}
