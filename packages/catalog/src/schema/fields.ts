/*
 * The fields of a product schema as one tree, for both formats: what policies
 * check (PII tags, key fields) and what an ODCS contract lists as `properties`.
 * Pure JSON walking, no avsc: the portal's form runs this in the browser.
 *
 * PII tags (BOARD convention): Avro field attribute `"pii": true`, JSON Schema
 * property keyword `"x-pii": true`. `false` is an explicit "not personal data".
 */

export type LogicalType = "string" | "date" | "timestamp" | "time" | "number" | "integer" | "object" | "array" | "boolean";

export interface SchemaField {
  /** Dotted path from the top-level record, e.g. `customer.email`; array items add nothing. */
  path: string;
  name: string;
  logicalType: LogicalType;
  /** The format's own type name: `long`, `timestamp-millis`, `string`, ... */
  physicalType: string;
  /** Avro: not a union with null. JSON Schema: listed in `required`. */
  required: boolean;
  /** The PII tag as written; undefined when the field carries none. */
  pii: boolean | undefined;
  description: string | undefined;
  /** Nested fields of a record/object (or of an array's record items). */
  children: SchemaField[];
  /** For arrays: the item type. */
  items?: { logicalType: LogicalType; physicalType: string };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Fields of a schema text; an unparsable schema has none (validation reports it elsewhere). */
export function schemaFields(format: "AVRO" | "JSON_SCHEMA", definition: string): SchemaField[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(definition);
  } catch {
    return [];
  }
  if (!isObject(parsed)) return [];
  return format === "AVRO" ? avroRecordFields(parsed, "", new Map()) : jsonObjectFields(parsed, "", parsed, 0);
}

/** Every field of the tree, depth first. */
export function flattenFields(fields: SchemaField[]): SchemaField[] {
  return fields.flatMap((f) => [f, ...flattenFields(f.children)]);
}

/** Paths of the fields tagged as PII (the tag set to true). */
export function taggedPiiPaths(fields: SchemaField[]): string[] {
  return flattenFields(fields).filter((f) => f.pii === true).map((f) => f.path);
}

const join = (prefix: string, name: string) => (prefix ? `${prefix}.${name}` : name);

// ---- Avro ------------------------------------------------------------------

const AVRO_LOGICAL: Record<string, LogicalType> = {
  date: "date",
  "time-millis": "time",
  "time-micros": "time",
  "timestamp-millis": "timestamp",
  "timestamp-micros": "timestamp",
  "local-timestamp-millis": "timestamp",
  "local-timestamp-micros": "timestamp",
  decimal: "number",
  uuid: "string",
};
const AVRO_PRIMITIVE: Record<string, LogicalType> = {
  string: "string",
  bytes: "string",
  fixed: "string",
  enum: "string",
  int: "integer",
  long: "integer",
  float: "number",
  double: "number",
  boolean: "boolean",
  null: "string",
  record: "object",
  map: "object",
  array: "array",
};

/** Named types seen so far, so a later reference by name resolves (Avro allows it). */
type Named = Map<string, JsonObject>;

function avroRecordFields(record: JsonObject, prefix: string, named: Named): SchemaField[] {
  if (typeof record.name === "string") named.set(record.name, record);
  const fields = Array.isArray(record.fields) ? record.fields : [];
  return fields.filter(isObject).map((field) => avroField(field, prefix, named));
}

function avroField(field: JsonObject, prefix: string, named: Named): SchemaField {
  const name = typeof field.name === "string" ? field.name : "";
  const path = join(prefix, name);
  let type: Json = field.type ?? "null";
  let required = true;
  if (Array.isArray(type)) {
    const branches = type.filter((b) => b !== "null");
    required = branches.length === type.length;
    // A nullable single type reads as that type; a real union stays "union".
    type = branches.length === 1 ? (branches[0] ?? "null") : type;
  }
  const described = describeAvroType(type, path, named);
  return {
    path,
    name,
    required,
    pii: typeof field.pii === "boolean" ? field.pii : undefined,
    description: typeof field.doc === "string" ? field.doc : undefined,
    ...described,
  };
}

function describeAvroType(type: Json, path: string, named: Named): Pick<SchemaField, "logicalType" | "physicalType" | "children" | "items"> {
  if (Array.isArray(type)) return { logicalType: "object", physicalType: "union", children: [] };
  if (typeof type === "string") {
    const ref = named.get(type) ?? named.get(type.split(".").pop() ?? "");
    if (ref) return { logicalType: "object", physicalType: type, children: [] }; // a recursive/repeated reference: not expanded again
    return { logicalType: AVRO_PRIMITIVE[type] ?? "string", physicalType: type, children: [] };
  }
  if (!isObject(type)) return { logicalType: "string", physicalType: "unknown", children: [] };
  const base = typeof type.type === "string" ? type.type : "unknown";
  const logical = typeof type.logicalType === "string" ? type.logicalType : undefined;
  if (logical && AVRO_LOGICAL[logical]) return { logicalType: AVRO_LOGICAL[logical], physicalType: logical, children: [] };
  if (base === "record") return { logicalType: "object", physicalType: "record", children: avroRecordFields(type, path, named) };
  if (base === "array") {
    const item = describeAvroType(type.items ?? "null", path, named);
    return { logicalType: "array", physicalType: "array", children: item.children, items: { logicalType: item.logicalType, physicalType: item.physicalType } };
  }
  if (base === "enum" || base === "fixed") {
    if (typeof type.name === "string") named.set(type.name, type);
  }
  return { logicalType: AVRO_PRIMITIVE[base] ?? "string", physicalType: base, children: [] };
}

// ---- JSON Schema -------------------------------------------------------------

const JSON_FORMATS: Record<string, LogicalType> = { date: "date", "date-time": "timestamp", time: "time" };

/** Follows a local `#/...` reference, a few levels at most (cycles stop there). */
function resolveRef(node: JsonObject, root: JsonObject, depth: number): JsonObject {
  if (depth > 8 || typeof node.$ref !== "string" || !node.$ref.startsWith("#/")) return node;
  let target: Json = root;
  for (const part of node.$ref.slice(2).split("/")) {
    target = isObject(target) ? (target[part.replace(/~1/g, "/").replace(/~0/g, "~")] ?? null) : null;
  }
  return isObject(target) ? resolveRef(target, root, depth + 1) : node;
}

function jsonType(node: JsonObject): string {
  if (typeof node.type === "string") return node.type;
  if (Array.isArray(node.type)) return node.type.filter((t) => t !== "null").map(String).join("|") || "null";
  if (isObject(node.properties)) return "object";
  if (Array.isArray(node.enum) || "const" in node) return "string";
  return "any";
}

function jsonLogical(node: JsonObject, type: string): LogicalType {
  if (type === "string" && typeof node.format === "string" && JSON_FORMATS[node.format]) return JSON_FORMATS[node.format] ?? "string";
  if (type === "integer" || type === "number" || type === "boolean" || type === "object" || type === "array") return type;
  return "string";
}

function jsonObjectFields(node: JsonObject, prefix: string, root: JsonObject, depth: number): SchemaField[] {
  const resolved = resolveRef(node, root, 0);
  const properties = isObject(resolved.properties) ? resolved.properties : {};
  const required = new Set(Array.isArray(resolved.required) ? resolved.required.filter((r): r is string => typeof r === "string") : []);
  return Object.entries(properties).flatMap(([name, raw]) => {
    if (!isObject(raw)) return [];
    const property = resolveRef(raw, root, 0);
    const path = join(prefix, name);
    const type = jsonType(property);
    const logicalType = jsonLogical(property, type);
    const pii = typeof raw["x-pii"] === "boolean" ? raw["x-pii"] : typeof property["x-pii"] === "boolean" ? property["x-pii"] : undefined;
    const field: SchemaField = {
      path,
      name,
      logicalType,
      physicalType: typeof property.format === "string" ? `${type}/${property.format}` : type,
      required: required.has(name),
      pii,
      description: typeof property.description === "string" ? property.description : undefined,
      children: depth < 16 && logicalType === "object" ? jsonObjectFields(property, path, root, depth + 1) : [],
    };
    if (logicalType === "array" && isObject(property.items)) {
      const item = resolveRef(property.items, root, 0);
      const itemType = jsonType(item);
      field.items = { logicalType: jsonLogical(item, itemType), physicalType: itemType };
      if (depth < 16 && field.items.logicalType === "object") field.children = jsonObjectFields(item, path, root, depth + 1);
    }
    return [field];
  });
}
