/**
 * JSON Schema documents turned into the shapes Confluent's JSON Schema
 * compatibility rules reason about (the everit model Confluent's checker uses):
 * one node per kind — object, array, string, number, boolean, null, enum,
 * combined (allOf/anyOf/oneOf), not — and a schema that mixes kinds
 * (`{"type": "string", "enum": [...]}`) becomes an allOf of its parts, as
 * there. `$ref`s are resolved lazily, so recursive schemas stay finite.
 *
 * Supported: drafts 07, 2019-09 and 2020-12 keywords the rules look at
 * (`definitions`/`$defs`, `items`/`additionalItems` and `prefixItems`/`items`).
 * A `$ref` follows draft-07: its siblings are ignored. Only references inside
 * the document (`#`, `#/...` JSON pointers) resolve; a schema is one contract.
 */
import { ParseCache } from "./parse-cache.ts";

export interface JsonMeta {
  id?: string;
  title?: string;
  description?: string;
  hasDefault: boolean;
  /** The default as canonical JSON, for comparison. */
  default?: string;
  /** Tagged as personal data (`"x-pii": true`, see pii.ts). */
  pii?: boolean;
}

export type JsonNode =
  | { kind: "empty"; meta: JsonMeta }
  | { kind: "false"; meta: JsonMeta }
  | {
      kind: "object";
      meta: JsonMeta;
      properties: Map<string, JsonNode>;
      required: Set<string>;
      /** `false`, `true`, or the schema additional properties must follow. */
      additional: boolean | JsonNode;
      patternProperties: { pattern: string; schema: JsonNode }[];
      minProperties?: number;
      maxProperties?: number;
      dependencyArrays: Map<string, string[]>;
      dependencySchemas: Map<string, JsonNode>;
    }
  | {
      kind: "array";
      meta: JsonMeta;
      /** The schema every item follows (`items` as one schema). */
      allItems?: JsonNode;
      /** Positional item schemas (`items` as an array, or `prefixItems`). */
      tuple: JsonNode[];
      additional: boolean | JsonNode;
      minItems?: number;
      maxItems?: number;
      uniqueItems: boolean;
    }
  | { kind: "string"; meta: JsonMeta; minLength?: number; maxLength?: number; pattern?: string }
  | {
      kind: "number";
      meta: JsonMeta;
      integer: boolean;
      minimum?: number;
      maximum?: number;
      exclusiveMinimum?: number;
      exclusiveMaximum?: number;
      multipleOf?: number;
    }
  | { kind: "boolean"; meta: JsonMeta }
  | { kind: "null"; meta: JsonMeta }
  | { kind: "enum"; meta: JsonMeta; values: string[] }
  | { kind: "combined"; meta: JsonMeta; criterion: "allOf" | "anyOf" | "oneOf"; subs: JsonNode[] }
  | { kind: "not"; meta: JsonMeta; not: JsonNode }
  | { kind: "ref"; meta: JsonMeta; ref: string; resolve: () => JsonNode };

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Key-sorted, whitespace-free JSON: equal values give equal strings. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.filter((k) => value[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const OBJECT_KEYWORDS = ["properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties", "dependencies", "dependentRequired", "dependentSchemas"];
const ARRAY_KEYWORDS = ["items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems"];
const STRING_KEYWORDS = ["minLength", "maxLength", "pattern"];
const NUMBER_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"];
const META_KEYWORDS = new Set(["$schema", "$id", "id", "title", "description", "default", "examples", "$comment", "definitions", "$defs", "format", "deprecated", "readOnly", "writeOnly"]);

function numberOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function metaOf(raw: JsonObject): JsonMeta {
  const id = typeof raw.$id === "string" ? raw.$id : typeof raw.id === "string" ? raw.id : undefined;
  return {
    ...(id !== undefined ? { id } : {}),
    ...(typeof raw.title === "string" ? { title: raw.title } : {}),
    ...(typeof raw.description === "string" ? { description: raw.description } : {}),
    hasDefault: Object.hasOwn(raw, "default"),
    ...(Object.hasOwn(raw, "default") ? { default: canonicalJson(raw.default) } : {}),
    ...(raw["x-pii"] === true ? { pii: true } : {}),
  };
}

const NO_META: JsonMeta = { hasDefault: false };

/** The JSON each node came from (and, for a part of a mixed schema, which part), for `nodeKey`. */
const sources = new WeakMap<JsonNode, { raw: unknown; part: string }>();

function remember<T extends JsonNode>(node: T, raw: unknown, part = ""): T {
  sources.set(node, { raw, part });
  return node;
}

/** Structural identity of a node: equal keys, equal schemas. */
export function nodeKey(node: JsonNode): string {
  const source = sources.get(node);
  return source ? `${source.part}|${canonicalJson(source.raw)}` : `${node.kind}|?`;
}

class JsonSchemaDocument {
  private readonly resolved = new Map<string, JsonNode>();

  constructor(private readonly root: unknown) {}

  node(raw: unknown): JsonNode {
    return remember(this.build(raw), raw);
  }

  private build(raw: unknown): JsonNode {
    if (raw === true || raw === undefined) return { kind: "empty", meta: NO_META };
    if (raw === false) return { kind: "false", meta: NO_META };
    if (!isObject(raw)) throw new Error(`Not a JSON Schema: ${JSON.stringify(raw)}`);
    const meta = metaOf(raw);
    if (typeof raw.$ref === "string") {
      const ref = raw.$ref;
      return { kind: "ref", meta, ref, resolve: () => this.resolve(ref) };
    }
    const parts: JsonNode[] = [];
    const declared = typeof raw.type === "string" ? [raw.type] : Array.isArray(raw.type) ? [...new Set(raw.type.map(String))] : [];
    if (declared.length === 1) parts.push(this.typed(declared[0] as string, raw, NO_META));
    else if (declared.length > 1) {
      parts.push(remember({ kind: "combined", meta: NO_META, criterion: "anyOf", subs: declared.map((t) => this.typed(t, raw, NO_META)) }, raw, "types"));
    } else {
      // No `type`: keywords of one kind still make a schema of that kind (everit infers it too).
      const inferred = OBJECT_KEYWORDS.some((k) => k in raw)
        ? "object"
        : ARRAY_KEYWORDS.some((k) => k in raw)
          ? "array"
          : STRING_KEYWORDS.some((k) => k in raw)
            ? "string"
            : NUMBER_KEYWORDS.some((k) => k in raw)
              ? "number"
              : undefined;
      if (inferred) parts.push(this.typed(inferred, raw, NO_META));
    }
    if (Array.isArray(raw.enum)) parts.push(remember({ kind: "enum", meta: NO_META, values: raw.enum.map(canonicalJson) }, raw.enum, "enum"));
    if (Object.hasOwn(raw, "const")) parts.push(remember({ kind: "enum", meta: NO_META, values: [canonicalJson(raw.const)] }, [raw.const], "enum"));
    for (const criterion of ["allOf", "anyOf", "oneOf"] as const) {
      const subs = raw[criterion];
      if (Array.isArray(subs)) parts.push(remember({ kind: "combined", meta: NO_META, criterion, subs: subs.map((s) => this.node(s)) }, subs, criterion));
    }
    if (Object.hasOwn(raw, "not")) parts.push(remember({ kind: "not", meta: NO_META, not: this.node(raw.not) }, raw.not, "not"));

    if (parts.length === 0) return { kind: "empty", meta };
    if (parts.length === 1) return { ...(parts[0] as JsonNode), meta };
    return { kind: "combined", meta, criterion: "allOf", subs: parts };
  }

  private typed(type: string, raw: JsonObject, meta: JsonMeta): JsonNode {
    return remember(this.typedNode(type, raw, meta), raw, `type:${type}`);
  }

  private typedNode(type: string, raw: JsonObject, meta: JsonMeta): JsonNode {
    switch (type) {
      case "object":
        return this.object(raw, meta);
      case "array":
        return this.array(raw, meta);
      case "string":
        return {
          kind: "string",
          meta,
          ...(numberOf(raw.minLength) !== undefined ? { minLength: numberOf(raw.minLength) } : {}),
          ...(numberOf(raw.maxLength) !== undefined ? { maxLength: numberOf(raw.maxLength) } : {}),
          ...(typeof raw.pattern === "string" ? { pattern: raw.pattern } : {}),
        };
      case "number":
      case "integer": {
        const node: JsonNode & { kind: "number" } = { kind: "number", meta, integer: type === "integer" };
        for (const k of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"] as const) {
          const v = numberOf(raw[k]);
          if (v !== undefined) node[k] = v;
        }
        return node;
      }
      case "boolean":
        return { kind: "boolean", meta };
      case "null":
        return { kind: "null", meta };
      default:
        throw new Error(`Unknown JSON Schema type "${type}".`);
    }
  }

  private object(raw: JsonObject, meta: JsonMeta): JsonNode {
    const properties = new Map<string, JsonNode>();
    if (isObject(raw.properties)) for (const [k, v] of Object.entries(raw.properties)) properties.set(k, this.node(v));
    const dependencyArrays = new Map<string, string[]>();
    const dependencySchemas = new Map<string, JsonNode>();
    const deps = { ...(isObject(raw.dependencies) ? raw.dependencies : {}), ...(isObject(raw.dependentRequired) ? raw.dependentRequired : {}) };
    for (const [k, v] of Object.entries(deps)) {
      if (Array.isArray(v)) dependencyArrays.set(k, v.map(String));
      else dependencySchemas.set(k, this.node(v));
    }
    if (isObject(raw.dependentSchemas)) for (const [k, v] of Object.entries(raw.dependentSchemas)) dependencySchemas.set(k, this.node(v));
    return {
      kind: "object",
      meta,
      properties,
      required: new Set(Array.isArray(raw.required) ? raw.required.map(String) : []),
      additional: this.openness(raw.additionalProperties),
      patternProperties: isObject(raw.patternProperties) ? Object.entries(raw.patternProperties).map(([pattern, s]) => ({ pattern, schema: this.node(s) })) : [],
      ...(numberOf(raw.minProperties) !== undefined ? { minProperties: numberOf(raw.minProperties) } : {}),
      ...(numberOf(raw.maxProperties) !== undefined ? { maxProperties: numberOf(raw.maxProperties) } : {}),
      dependencyArrays,
      dependencySchemas,
    };
  }

  private array(raw: JsonObject, meta: JsonMeta): JsonNode {
    let allItems: JsonNode | undefined;
    let tuple: JsonNode[] = [];
    let additional: boolean | JsonNode;
    if (Array.isArray(raw.prefixItems)) {
      // 2020-12: `prefixItems` are positional, `items` covers the rest.
      tuple = raw.prefixItems.map((s) => this.node(s));
      additional = this.openness(raw.items);
    } else if (Array.isArray(raw.items)) {
      tuple = raw.items.map((s) => this.node(s));
      additional = this.openness(raw.additionalItems);
    } else {
      if (raw.items !== undefined) allItems = this.node(raw.items);
      additional = this.openness(raw.additionalItems);
    }
    return {
      kind: "array",
      meta,
      ...(allItems ? { allItems } : {}),
      tuple,
      additional,
      ...(numberOf(raw.minItems) !== undefined ? { minItems: numberOf(raw.minItems) } : {}),
      ...(numberOf(raw.maxItems) !== undefined ? { maxItems: numberOf(raw.maxItems) } : {}),
      uniqueItems: raw.uniqueItems === true,
    };
  }

  /** `additionalProperties`/`additionalItems`: absent, `true` and `{}` all allow anything. */
  private openness(value: unknown): boolean | JsonNode {
    if (value === undefined || value === true) return true;
    if (value === false) return false;
    if (isObject(value) && Object.keys(value).every((k) => META_KEYWORDS.has(k))) return true;
    return this.node(value);
  }

  private resolve(ref: string): JsonNode {
    const hit = this.resolved.get(ref);
    if (hit) return hit;
    if (!ref.startsWith("#")) throw new Error(`Cannot resolve $ref "${ref}": only references inside the schema ("#/...") are supported.`);
    let target: unknown = this.root;
    const pointer = decodeURIComponent(ref.slice(1));
    if (pointer !== "" && pointer !== "/") {
      for (const token of pointer.replace(/^\//, "").split("/")) {
        const key = token.replace(/~1/g, "/").replace(/~0/g, "~");
        target = Array.isArray(target) ? target[Number(key)] : isObject(target) ? target[key] : undefined;
        if (target === undefined) throw new Error(`Cannot resolve $ref "${ref}": nothing at that path.`);
      }
    }
    const node = this.node(target);
    this.resolved.set(ref, node);
    return node;
  }
}

/** The root node of a JSON Schema document (a parsed JSON value). */
export function jsonSchemaModel(schema: unknown): JsonNode {
  return new JsonSchemaDocument(schema).node(schema);
}

const models = new ParseCache((definition) => jsonSchemaModel(JSON.parse(definition)));

/** `jsonSchemaModel(JSON.parse(definition))`, cached by the definition's text. */
export function jsonSchemaModelOf(definition: string): JsonNode {
  return models.get(definition);
}

/** Follows `$ref`s to the schema they name (a chain of refs included). */
export function deref(node: JsonNode): JsonNode {
  let current = node;
  for (let hops = 0; current.kind === "ref"; hops++) {
    if (hops > 64) throw new Error(`$ref "${current.ref}" never reaches a schema.`);
    current = current.resolve();
  }
  return current;
}

/** A kind in words for messages: `string`, `integer`, `object`, `oneOf`, ... */
export function describeJson(node: JsonNode): string {
  const n = deref(node);
  switch (n.kind) {
    case "number":
      return n.integer ? "integer" : "number";
    case "combined":
      return n.criterion;
    case "empty":
      return "any value";
    case "false":
      return "no value";
    default:
      return n.kind;
  }
}
