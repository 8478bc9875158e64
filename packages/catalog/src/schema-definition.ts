import { Ajv } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
// avsc's type system alone (its package entry also pulls in node:fs, which the
// browser bundle of the portal's forms cannot load), parsed once per text: the
// compatibility check that follows validation reuses the parsed type.
import { jsonTextDepth, MAX_NESTING_DEPTH, nestingMessage } from "./nesting.ts";
import { avscType } from "./schema/avro-resolver.ts";

export type SchemaFormatName = "AVRO" | "JSON_SCHEMA";

/** Largest schema text we accept: a schema is a contract, not a data dump. */
export const MAX_SCHEMA_LENGTH = 200_000;

/**
 * avsc and Ajv compile schemas into code with `new Function`, which the
 * portal's CSP (no 'unsafe-eval') forbids in the browser. There the forms do
 * the structural checks only; the server runs the full check on submit and
 * the form shows its answer on the field.
 */
const IN_BROWSER = "window" in globalThis && "document" in globalThis;

/**
 * Checks that `definition` is a valid schema of `format` and returns the
 * problem in words, or null. Avro goes through avsc's full parser (names,
 * defaults, unions); JSON Schema must be a JSON object that Ajv compiles.
 */
export function schemaDefinitionProblem(format: SchemaFormatName, definition: string): string | null {
  if (definition.trim().length === 0) return "Paste or upload a schema.";
  if (definition.length > MAX_SCHEMA_LENGTH) return `The schema is ${definition.length} characters; at most ${MAX_SCHEMA_LENGTH} are accepted.`;
  // Before any parser or validator walks it (Ajv and avsc recurse).
  if (jsonTextDepth(definition) > MAX_NESTING_DEPTH) return nestingMessage("The schema");
  let parsed: unknown;
  try {
    parsed = JSON.parse(definition);
  } catch (error) {
    return `The schema is not valid JSON: ${(error as Error).message}`;
  }
  if (format === "AVRO") {
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      return "An Avro schema for a data product must be a record (a JSON object with \"type\": \"record\").";
    }
    if (IN_BROWSER) {
      const record = parsed as { type?: unknown; name?: unknown; fields?: unknown };
      if (record.type !== "record") return `An Avro schema for a data product must be a record, not ${JSON.stringify(record.type)}.`;
      if (typeof record.name !== "string" || !Array.isArray(record.fields)) return "Invalid Avro schema: a record needs a \"name\" and a \"fields\" array.";
      return null;
    }
    try {
      const type = avscType(definition);
      if (type.typeName !== "record") return `An Avro schema for a data product must be a record, not ${type.typeName}.`;
    } catch (error) {
      return `Invalid Avro schema: ${(error as Error).message}`;
    }
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return "A JSON Schema must be a JSON object.";
  }
  // The draft a schema declares picks the validator; none means draft-07.
  const declared = (parsed as { $schema?: unknown }).$schema;
  const draft = typeof declared === "string" ? declared : "";
  // Formats matter when data is validated, not when a schema is checked.
  const options = { strict: false, allErrors: true, validateSchema: true, validateFormats: false } as const;
  if (draft && !/draft-07|draft\/2019-09|draft\/2020-12/.test(draft)) {
    return `Unsupported JSON Schema draft "${draft}": use draft-07, 2019-09 or 2020-12.`;
  }
  if (IN_BROWSER) return null;
  const ajv = draft.includes("2020-12") ? new Ajv2020(options) : draft.includes("2019-09") ? new Ajv2019(options) : new Ajv(options);
  if (!ajv.validateSchema(parsed)) return `Invalid JSON Schema: ${metaSchemaProblems(ajv.errors ?? [])}`;
  try {
    ajv.compile(parsed);
  } catch (error) {
    // What the meta-schema cannot see, e.g. a $ref to a definition that does not exist.
    return `Invalid JSON Schema: ${(error as Error).message}`;
  }
  return null;
}

interface MetaSchemaError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/**
 * Ajv reports every branch the meta-schema tried ("must be array", "must be
 * equal to one of the allowed values", "must match a schema in anyOf" for one
 * bad `type`). A person needs one line per place: the path in the schema and
 * the most specific message, with the allowed values when there are some.
 */
function metaSchemaProblems(errors: MetaSchemaError[]): string {
  const byPath = new Map<string, MetaSchemaError>();
  for (const e of errors) {
    if (e.keyword === "anyOf" || e.keyword === "oneOf" || e.keyword === "if") continue;
    const kept = byPath.get(e.instancePath);
    // An enum with its allowed values says more than "must be array".
    if (!kept || (e.keyword === "enum" && kept.keyword !== "enum")) byPath.set(e.instancePath, e);
  }
  if (byPath.size === 0 && errors[0]) byPath.set(errors[0].instancePath, errors[0]);
  const lines = [...byPath.values()].slice(0, 5).map((e) => {
    const at = e.instancePath === "" ? "the schema" : `\`${e.instancePath.slice(1).split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~")).join(".")}\``;
    if (Array.isArray(e.params.allowedValues)) return `${at} must be one of ${(e.params.allowedValues as unknown[]).map(String).join(", ")}`;
    return `${at} ${e.message ?? "is invalid"}`;
  });
  const more = byPath.size > 5 ? ` (and ${byPath.size - 5} more)` : "";
  return `${lines.join("; ")}${more}.`;
}

/** Pretty-prints a stored schema for display; leaves unparsable text as is. */
export function prettySchema(definition: string): string {
  try {
    return JSON.stringify(JSON.parse(definition), null, 2);
  } catch {
    return definition;
  }
}
