/*
 * A record value as the message browser and the state view show it: decoded
 * with the product's schema (Avro: Confluent wire format — magic byte 0 and a
 * 4-byte schema id — or plain Avro; JSON Schema products: JSON text, framed
 * or not), PII masked for viewers who may not see it, and anything that does
 * not decode shown as escaped text and hex with the reason. Raw bytes of an
 * undecodable value are withheld from viewers who may not see PII when the
 * product has PII fields: unparsed bytes cannot be masked. A JSON value that
 * does not match any of the product's schema versions is withheld whole from
 * viewers who may not see PII (issue 30, finding 6): masking follows the
 * schema, so off-schema data — an e-mail in an array where the schema has a
 * number — would be shown unmasked.
 */
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { compileAvro, decodeAvro } from "./avro-value.ts";
import { maskJson } from "./json-value.ts";
import type { Json, MaskContext } from "./mask.ts";
import { confluentFrame, rawBytes, utf8Text, type RawBytes } from "./wire.ts";

export interface SchemaChoice {
  version: number;
  definition: string;
}

export interface ValueContext {
  format: "AVRO" | "JSON_SCHEMA";
  /** The product's schema versions, newest first (decoding tries them in this order). */
  versions: readonly SchemaChoice[];
  /** A registry schema id → the version it names, when the catalog knows registry ids. */
  resolveSchemaId?: (id: number) => SchemaChoice | null;
  piiVisible: boolean;
  maskedPaths: ReadonlySet<string>;
  /** The product has PII-tagged fields or a masking list. */
  hasSensitiveFields: boolean;
}

export interface DecodedValue {
  /** "withheld": the value does not match the product's schema and the viewer may not see PII; nothing of it is returned. */
  encoding: "avro" | "json" | "null" | "raw" | "withheld";
  /** How the bytes were framed: Confluent wire format or plain. */
  wire: "confluent" | "plain" | null;
  schemaId: number | null;
  schemaVersion: number | null;
  value: Json;
  /** Paths replaced by "[masked]". */
  masked: string[];
  /** Something the viewer should know about how it was decoded. */
  note: string | null;
  /** Set when the value did not decode. */
  undecodable: { reason: string; raw: RawBytes | null; rawWithheld: boolean } | null;
}

function tryAvro(choice: SchemaChoice, bytes: Buffer, ctx: MaskContext): { ok: true; value: Json } | { ok: false; error: string } {
  try {
    return { ok: true, value: decodeAvro(compileAvro(choice.definition), bytes, ctx) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

const validators = new Map<string, ValidateFunction | null>();

/** The compiled validator of a JSON Schema version (cached; null when it does not compile: then nothing matches it). */
function jsonValidator(definition: string): ValidateFunction | null {
  if (validators.has(definition)) return validators.get(definition) ?? null;
  let compiled: ValidateFunction | null;
  try {
    const schema: unknown = JSON.parse(definition);
    const declared = typeof schema === "object" && schema !== null && "$schema" in schema && typeof schema.$schema === "string" ? schema.$schema : "";
    const options = { strict: false, allErrors: false, validateFormats: false } as const;
    const ajv = declared.includes("2020-12") ? new Ajv2020(options) : declared.includes("2019-09") ? new Ajv2019(options) : new Ajv(options);
    compiled = ajv.compile(schema as object);
  } catch {
    compiled = null;
  }
  if (validators.size >= 200) validators.delete(validators.keys().next().value as string);
  validators.set(definition, compiled);
  return compiled;
}

/** Whether a parsed JSON value matches one of the product's schema versions (any: records written under an older one still match). */
function matchesSomeVersion(versions: readonly SchemaChoice[], value: unknown): boolean {
  if (versions.length === 0) return true;
  return versions.some((v) => jsonValidator(v.definition)?.(value) === true);
}

function tryJson(choice: SchemaChoice | undefined, bytes: Buffer, ctx: MaskContext, versions: readonly SchemaChoice[]): { ok: true; value: Json } | { ok: false; error: string } | { ok: "withheld" } {
  const text = utf8Text(bytes);
  if (text === null) return { ok: false, error: "not valid UTF-8" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!ctx.piiVisible && !matchesSomeVersion(versions, parsed)) return { ok: "withheld" };
  let schema: unknown = {};
  if (choice) {
    try {
      schema = JSON.parse(choice.definition);
    } catch {
      schema = {};
    }
  }
  return { ok: true, value: maskJson(schema, parsed, ctx) };
}

export const WITHHELD_NOTE = "Does not match the product's schema: withheld from viewers without PII access.";

export function decodeValue(bytes: Buffer | null, vc: ValueContext): DecodedValue {
  const base = { schemaId: null, schemaVersion: null, masked: [], note: null, undecodable: null } as const;
  if (bytes === null) return { ...base, encoding: "null", wire: null, value: null, masked: [] };
  const frame = confluentFrame(bytes);
  const attempts: { wire: "confluent" | "plain"; payload: Buffer; choices: SchemaChoice[]; note: string | null; resolved?: boolean }[] = [];
  if (frame) {
    const known = vc.resolveSchemaId?.(frame.schemaId) ?? null;
    attempts.push(
      known
        ? { wire: "confluent", payload: frame.payload, choices: [known], note: null, resolved: true }
        : { wire: "confluent", payload: frame.payload, choices: [...vc.versions], note: `Schema id ${frame.schemaId} is not one of this product's registered versions; decoded with the product's schema` },
    );
  }
  attempts.push({ wire: "plain", payload: bytes, choices: [...vc.versions], note: null });
  const errors: string[] = [];
  for (const a of attempts) {
    if (vc.format === "JSON_SCHEMA") {
      const ctx: MaskContext = { piiVisible: vc.piiVisible, maskedPaths: vc.maskedPaths, applied: new Set() };
      const r = tryJson(a.choices[0], a.payload, ctx, vc.versions);
      if (r.ok === "withheld") return { ...base, encoding: "withheld", wire: a.wire, value: null, masked: [], note: WITHHELD_NOTE };
      if (r.ok) return { ...base, encoding: "json", wire: a.wire, schemaId: a.wire === "confluent" ? (frame?.schemaId ?? null) : null, schemaVersion: a.choices[0]?.version ?? null, value: r.value, masked: [...ctx.applied].sort(), note: a.note };
      errors.push(`${a.wire === "confluent" ? "after the 5-byte wire-format header" : "as plain JSON"}: ${r.error}`);
      continue;
    }
    for (const choice of a.choices) {
      const ctx: MaskContext = { piiVisible: vc.piiVisible, maskedPaths: vc.maskedPaths, applied: new Set() };
      const r = tryAvro(choice, a.payload, ctx);
      if (r.ok) {
        const note = a.note ? `${a.note} v${choice.version}.` : !a.resolved && choice !== vc.versions[0] ? `Decoded with schema v${choice.version} (not the newest).` : null;
        return { ...base, encoding: "avro", wire: a.wire, schemaId: a.wire === "confluent" ? (frame?.schemaId ?? null) : null, schemaVersion: choice.version, value: r.value, masked: [...ctx.applied].sort(), note };
      }
      errors.push(`${a.wire === "confluent" ? `wire format (schema id ${frame?.schemaId})` : "plain Avro"} with v${choice.version}: ${r.error}`);
    }
  }
  const withheld = !vc.piiVisible && vc.hasSensitiveFields;
  return {
    ...base,
    encoding: "raw",
    wire: null,
    value: null,
    masked: [],
    undecodable: {
      reason: `Does not decode with the product's ${vc.format === "AVRO" ? "Avro" : "JSON"} schema (${errors.slice(0, 3).join("; ") || "no schema"}).`,
      raw: withheld ? null : rawBytes(bytes),
      rawWithheld: withheld,
    },
  };
}
