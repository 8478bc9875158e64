import type { SchemaFormatName } from "../schema-definition.ts";

/*
 * Which fields of a product's schema hold personal data. The tag lives in the
 * schema itself, so it travels with every version and every contract file:
 *
 *   Avro:        a field attribute  { "name": "email", "type": "string", "pii": true }
 *   JSON Schema: a property keyword { "email": { "type": "string", "x-pii": true } }
 *
 * Avro keeps unknown field attributes as metadata and JSON Schema ignores
 * `x-` keywords, so tagged schemas stay valid for every reader and registry.
 *
 * Paths name fields from the record's root with dots; `[]` marks the items of
 * an array and `{}` the values of a map, e.g. `customer.email`,
 * `lines[].buyerEmail`, `attributes{}.phone`. Policies (a product with PII must
 * be CONFIDENTIAL or RESTRICTED) and the message browser's masking both read
 * them from here. A recursive type is listed through one recursion
 * (`children[].label`); code that masks values should walk the schema along
 * with the data rather than match these paths.
 */

export const AVRO_PII_ATTRIBUTE = "pii";
export const JSON_SCHEMA_PII_KEYWORD = "x-pii";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Paths of the tagged fields; an unparsable schema has none (its validation reports the problem). */
export function piiFieldPaths(format: SchemaFormatName, definition: string | object): string[] {
  let schema: unknown = definition;
  if (typeof definition === "string") {
    try {
      schema = JSON.parse(definition);
    } catch {
      return [];
    }
  }
  const paths = format === "AVRO" ? avroPaths(schema) : jsonSchemaPaths(schema);
  return [...new Set(paths)].sort();
}

function join(prefix: string, name: string): string {
  return prefix === "" ? name : `${prefix}.${name}`;
}

// ---------------------------------------------------------------------------
// Avro: records nest through fields, unions, arrays, maps and references to
// named types defined earlier in the same schema.

function avroPaths(root: unknown): string[] {
  const named = new Map<string, JsonObject>();
  const out: string[] = [];
  // How often each record is on the current path: a recursive type is walked
  // through one recursion (enough to name its fields at both levels), not forever.
  const depth = new Map<JsonObject, number>();
  const enter = (t: JsonObject) => depth.set(t, (depth.get(t) ?? 0) + 1);
  const leave = (t: JsonObject) => depth.set(t, (depth.get(t) ?? 1) - 1);

  const walkType = (type: unknown, prefix: string, namespace: string): void => {
    if (typeof type === "string") {
      const ref = named.get(type) ?? named.get(namespace ? `${namespace}.${type}` : type);
      if (ref && (depth.get(ref) ?? 0) < 2) walkType(ref, prefix, namespace);
      return;
    }
    if (Array.isArray(type)) {
      for (const branch of type) walkType(branch, prefix, namespace);
      return;
    }
    if (!isObject(type)) return;
    const ns = typeof type.namespace === "string" ? type.namespace : namespace;
    if (typeof type.name === "string" && (type.type === "record" || type.type === "error" || type.type === "enum" || type.type === "fixed")) {
      const full = type.name.includes(".") || !ns ? type.name : `${ns}.${type.name}`;
      named.set(full, type);
      named.set(type.name, type);
    }
    if ((type.type === "record" || type.type === "error") && Array.isArray(type.fields)) {
      enter(type);
      for (const field of type.fields) {
        if (!isObject(field) || typeof field.name !== "string") continue;
        const path = join(prefix, field.name);
        if (field[AVRO_PII_ATTRIBUTE] === true) out.push(path);
        walkType(field.type, path, ns);
      }
      leave(type);
    } else if (type.type === "array") {
      walkType(type.items, `${prefix}[]`, ns);
    } else if (type.type === "map") {
      walkType(type.values, `${prefix}{}`, ns);
    } else if (typeof type.type === "object") {
      walkType(type.type, prefix, ns);
    }
  };

  walkType(root, "", "");
  return out;
}

// ---------------------------------------------------------------------------
// JSON Schema: properties nest through `properties`, `items`,
// `additionalProperties`, the combinators and local `$ref`s.

function jsonSchemaPaths(root: unknown): string[] {
  const out: string[] = [];
  // As for Avro: a recursive `$ref` is followed through one recursion.
  const resolving = new Map<string, number>();

  const resolve = (ref: string): unknown => {
    if (!ref.startsWith("#/")) return undefined; // remote references are not followed
    let node: unknown = root;
    for (const raw of ref.slice(2).split("/")) {
      const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      node = isObject(node) ? node[key] : undefined;
    }
    return node;
  };

  const walk = (node: unknown, prefix: string): void => {
    if (!isObject(node)) return;
    const ref = node.$ref;
    if (typeof ref === "string" && (resolving.get(ref) ?? 0) < 2) {
      resolving.set(ref, (resolving.get(ref) ?? 0) + 1);
      walk(resolve(ref), prefix);
      resolving.set(ref, (resolving.get(ref) ?? 1) - 1);
    }
    if (isObject(node.properties)) {
      for (const [name, child] of Object.entries(node.properties)) {
        const path = join(prefix, name);
        if (isObject(child) && child[JSON_SCHEMA_PII_KEYWORD] === true) out.push(path);
        walk(child, path);
      }
    }
    if (isObject(node.items)) walk(node.items, `${prefix}[]`);
    if (Array.isArray(node.prefixItems)) for (const item of node.prefixItems) walk(item, `${prefix}[]`);
    if (isObject(node.additionalProperties)) walk(node.additionalProperties, `${prefix}{}`);
    for (const key of ["allOf", "anyOf", "oneOf"] as const) {
      const list = node[key];
      if (Array.isArray(list)) for (const branch of list) walk(branch, prefix);
    }
    for (const key of ["then", "else"] as const) walk(node[key], prefix);
  };

  walk(root, "");
  return out;
}
