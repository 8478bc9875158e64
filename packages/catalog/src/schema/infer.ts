/*
 * Schema inference from sample record values of an unmanaged topic (the claim
 * form's "infer from sample records"). Pure: the worker reads the samples and
 * passes a lookup of registry schemas by id; nothing here touches Kafka, and
 * the records themselves are never kept — only the result.
 *
 * What can be inferred, exactly:
 * - Confluent wire format (magic byte 0, 4-byte schema id): the registry's
 *   schema for that id, when this catalog's registry knows it. The newest
 *   sampled record's id wins; other ids are named in the explanation.
 * - JSON values: a JSON Schema (draft 2020-12) that accepts every sample —
 *   object properties merged, `required` = present in every sample, types
 *   unioned (integer widens to number), arrays' items merged. An object used
 *   as a map is described as one (`additionalProperties`), never by its keys
 *   (issue 30, finding 5: on a topic keyed by e-mail the "schema" listed
 *   the e-mails): keys that look like data (an "@", digits only, a UUID,
 *   whitespace, over 64 characters) are never field names, and an object
 *   with many distinct keys, few of them in every sample, and values of one
 *   shape is a map.
 * - Anything else (plain Avro without a schema id, Protobuf, strings, binary):
 *   not self-describing — the explanation says so and the owner pastes it.
 */

export const JSON_SCHEMA_DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

export interface RegistryLookup {
  (schemaId: number): Promise<{ format: "AVRO" | "JSON_SCHEMA"; definition: string } | null>;
}

export type SchemaInference =
  | { inferred: true; format: "AVRO" | "JSON_SCHEMA"; definition: string; explanation: string; sampled: number; registrySchemaId: number | null }
  | { inferred: false; explanation: string; sampled: number };

/** Values are in offset order per partition; `newestFirst` decides which registry id wins when several occur. */
export interface SampleValue {
  value: Buffer | null;
  /** Record timestamp (ms): the newest sample's id wins when several ids occur. */
  timestamp: number;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
/** Deeper nesting is cut off (described as any value): a hostile sample cannot make inference recurse without end. */
const MAX_DEPTH = 32;
/** At most this many properties per object are described (the rest: additionalProperties stays open). */
const MAX_PROPERTIES = 500;

type JsonType = "null" | "boolean" | "integer" | "number" | "string" | "array" | "object";

/** What the samples showed at one position of the document. */
interface Shape {
  types: Set<JsonType>;
  /** Objects: property → shape, and in how many object samples it appeared. */
  properties: Map<string, { shape: Shape; seen: number }>;
  objects: number;
  items: Shape | null;
  /** Strings that all looked like RFC 3339 date-times. */
  dateTimes: boolean;
}

const emptyShape = (): Shape => ({ types: new Set(), properties: new Map(), objects: 0, items: null, dateTimes: true });

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function observe(shape: Shape, value: unknown, depth: number): void {
  if (depth > MAX_DEPTH) return;
  if (value === null) shape.types.add("null");
  else if (typeof value === "boolean") shape.types.add("boolean");
  else if (typeof value === "number") shape.types.add(Number.isInteger(value) ? "integer" : "number");
  else if (typeof value === "string") {
    shape.types.add("string");
    if (!DATE_TIME.test(value)) shape.dateTimes = false;
  } else if (Array.isArray(value)) {
    shape.types.add("array");
    shape.items ??= emptyShape();
    for (const item of value) observe(shape.items, item, depth + 1);
  } else if (typeof value === "object") {
    shape.types.add("object");
    shape.objects++;
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      let entry = shape.properties.get(key);
      if (!entry) {
        if (shape.properties.size >= MAX_PROPERTIES) continue;
        entry = { shape: emptyShape(), seen: 0 };
        shape.properties.set(key, entry);
      }
      entry.seen++;
      observe(entry.shape, child, depth + 1);
    }
  }
}

/** At least this many distinct keys, with uniform values and few shared by every sample, make an object a map. */
const MAP_MIN_KEYS = 8;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A key that is data, not a field name: it must never come back in a schema. */
export function dataLikeKey(key: string): boolean {
  return key.includes("@") || /^\d+$/.test(key) || UUID.test(key) || /\s/.test(key) || key.length > 64 || !/^[A-Za-z_$]/.test(key);
}

/** Both samples' shapes as one (what a map's values showed across all its keys). */
function mergeShapes(into: Shape, from: Shape): Shape {
  for (const t of from.types) into.types.add(t);
  into.objects += from.objects;
  into.dateTimes &&= from.dateTimes;
  for (const [key, entry] of from.properties) {
    const mine = into.properties.get(key);
    if (mine) {
      mine.seen += entry.seen;
      mergeShapes(mine.shape, entry.shape);
    } else if (into.properties.size < MAX_PROPERTIES) into.properties.set(key, { shape: mergeShapes(emptyShape(), entry.shape), seen: entry.seen });
  }
  if (from.items) into.items = mergeShapes(into.items ?? emptyShape(), from.items);
  return into;
}

/** Whether an object's keys are map keys: many, rarely in every sample, all holding values of one kind. */
function mapLike(shape: Shape): boolean {
  const entries = [...shape.properties.values()];
  if (entries.length < MAP_MIN_KEYS) return false;
  const kinds = new Set(entries.map((e) => [...e.shape.types].sort().join("|")));
  const everywhere = entries.filter((e) => e.seen === shape.objects).length;
  return kinds.size === 1 && everywhere * 2 < entries.length;
}

function describe(shape: Shape): Record<string, unknown> {
  const types = new Set(shape.types);
  // An integer seen beside a fraction is a number.
  if (types.has("number")) types.delete("integer");
  const list = [...types].sort();
  const out: Record<string, unknown> = {};
  if (list.length === 0) return out; // only seen beyond MAX_DEPTH, or only in empty arrays: any value
  out.type = list.length === 1 ? list[0] : list;
  if (types.has("string") && shape.dateTimes) out.format = "date-time";
  if (types.has("object")) {
    const isMap = mapLike(shape);
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    let mapValues: Shape | null = null;
    for (const [key, entry] of [...shape.properties].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (isMap || dataLikeKey(key)) {
        mapValues = mergeShapes(mapValues ?? emptyShape(), entry.shape);
        continue;
      }
      properties[key] = describe(entry.shape);
      if (entry.seen === shape.objects) required.push(key);
    }
    if (Object.keys(properties).length > 0 || mapValues === null) out.properties = properties;
    if (required.length > 0) out.required = required;
    if (mapValues !== null) out.additionalProperties = describe(mapValues);
  }
  if (types.has("array") && shape.items && shape.items.types.size > 0) out.items = describe(shape.items);
  return out;
}

/** The 4-byte schema id of a Confluent-framed value, or null. */
function frameId(value: Buffer): number | null {
  return value.length >= 5 && value[0] === 0 ? value.readUInt32BE(1) : null;
}

function parseJson(value: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    const text = utf8.decode(value).trim();
    if (text.length === 0) return { ok: false };
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Pretty JSON for the form's textarea (the registry stores it normalized on one line). */
function pretty(definition: string): string {
  try {
    return JSON.stringify(JSON.parse(definition), null, 2);
  } catch {
    return definition;
  }
}

export async function inferSchemaFromSamples(samples: readonly SampleValue[], topic: string, lookup: RegistryLookup): Promise<SchemaInference> {
  const values = samples.filter((s): s is SampleValue & { value: Buffer } => s.value !== null && s.value.length > 0);
  const sampled = samples.length;
  if (sampled === 0) return { inferred: false, sampled, explanation: "The topic has no records to sample; paste the schema." };
  if (values.length === 0) return { inferred: false, sampled, explanation: `All ${sampled} sampled records have empty values (tombstones); nothing to infer from — paste the schema.` };

  // Confluent framing first: JSON text never starts with a zero byte.
  const framed = values.map((s) => ({ id: frameId(s.value), timestamp: s.timestamp })).filter((f): f is { id: number; timestamp: number } => f.id !== null);
  if (framed.length === values.length) {
    const newest = framed.reduce((a, b) => (b.timestamp >= a.timestamp ? b : a));
    const others = [...new Set(framed.map((f) => f.id))].filter((id) => id !== newest.id).sort((a, b) => a - b);
    const schema = await lookup(newest.id);
    const more = others.length > 0 ? ` Older records also carry id${others.length > 1 ? "s" : ""} ${others.join(", ")}.` : "";
    if (!schema) {
      return { inferred: false, sampled, explanation: `The records use the Confluent wire format with schema id ${newest.id}, which this platform's schema registry does not know (the schema lives in another registry); paste that schema.${more}` };
    }
    const kind = schema.format === "AVRO" ? "Avro" : "JSON Schema";
    return { inferred: true, format: schema.format, definition: pretty(schema.definition), registrySchemaId: newest.id, sampled, explanation: `${values.length} of ${sampled} sampled records carry registry schema id ${newest.id} (${kind}); this is that schema.${more}` };
  }
  if (framed.length > 0) {
    return { inferred: false, sampled, explanation: `${framed.length} of ${values.length} sampled values use the Confluent wire format and the rest do not; a topic with mixed encodings cannot be described by one schema.` };
  }

  const root = emptyShape();
  let notJson = 0;
  let notObject = 0;
  for (const s of values) {
    const parsed = parseJson(s.value);
    if (!parsed.ok) notJson++;
    else if (typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) notObject++;
    else observe(root, parsed.value, 0);
  }
  if (notJson > 0) {
    return {
      inferred: false,
      sampled,
      explanation: `${notJson} of ${values.length} sampled values are not JSON and carry no schema id (e.g. plain Avro, Protobuf or binary), so their schema cannot be read from the data; paste it.`,
    };
  }
  if (notObject > 0) return { inferred: false, sampled, explanation: `${notObject} of ${values.length} sampled values are JSON but not objects; a data product's records are JSON objects with named fields — paste a schema.` };
  const schema = { $schema: JSON_SCHEMA_DRAFT_2020_12, title: topic, ...describe(root) };
  return {
    inferred: true,
    format: "JSON_SCHEMA",
    definition: JSON.stringify(schema, null, 2),
    registrySchemaId: null,
    sampled,
    explanation: `Inferred from ${values.length} JSON record${values.length === 1 ? "" : "s"}: fields present in every sample are required, types are what the samples held. Review it — add descriptions, tighten types and tag personal data ("x-pii") before submitting.`,
  };
}
