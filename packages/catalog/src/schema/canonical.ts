import { createHash } from "node:crypto";
import { avscType } from "./avro-resolver.ts";
import type { SchemaFormat } from "./check-compatibility.ts";
import { canonicalJson } from "./json-schema-model.ts";

/**
 * Three views of one schema:
 * - `canonicalSchema`: the wire-relevant form. For Avro the specification's
 *   Parsing Canonical Form (full names, only type/name/fields/symbols/items/
 *   values/size, fixed key order, no whitespace): two schemas with the same
 *   form read and write the same bytes, whatever their docs, defaults or
 *   aliases. For JSON Schema there is no such standard; its canonical form is
 *   the key-sorted, whitespace-free JSON of the whole schema.
 * - `schemaFingerprint`: SHA-256 of the canonical form, hex (for Avro, the
 *   specification's SHA-256 fingerprint).
 * - `normalizedSchema`: the key-sorted, whitespace-free JSON of everything,
 *   docs and defaults included. Two definitions are the same schema — the same
 *   version, the same registry id — exactly when this is equal, as Confluent
 *   compares a registered schema's text: a changed default or doc is a new
 *   version, even if its fingerprint is the old one's.
 */
export function canonicalSchema(format: SchemaFormat, definition: string): string {
  if (format === "AVRO") return JSON.stringify(avscType(definition).schema());
  return canonicalJson(JSON.parse(definition));
}

export function schemaFingerprint(format: SchemaFormat, definition: string): string {
  return createHash("sha256").update(canonicalSchema(format, definition)).digest("hex");
}

export function normalizedSchema(definition: string): string {
  return canonicalJson(JSON.parse(definition));
}

/** SHA-256 of the format and the normalized schema: the key a registry id is found by. */
export function schemaIdentity(format: SchemaFormat, definition: string): string {
  return createHash("sha256").update(`${format}\n${normalizedSchema(definition)}`).digest("hex");
}
