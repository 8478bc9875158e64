/// <reference path="../avsc-types.d.ts" />
/*
 * Avro values for the message browser: decoded with avsc (unions wrapped, so
 * the branch of every union value is known exactly, longs as bigint so
 * nothing loses precision), then walked along the product's own schema JSON
 * — avsc drops custom field attributes such as `"pii": true`, the schema
 * keeps them — producing plain JSON with PII fields masked.
 */
import avroTypes from "avsc/lib/types.js";
import { AVRO_PII_ATTRIBUTE } from "../schema/pii.ts";
import { childPath, mask, MAX_DEPTH, shouldMask, type Json, type MaskContext } from "./mask.ts";

type Schema = unknown;
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);

const longType = avroTypes.builtins.LongType.__with({
  fromBuffer: (buf) => buf.readBigInt64LE(),
  toBuffer: (n) => {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(BigInt(n));
    return b;
  },
  fromJSON: (v) => BigInt(v as string | number | bigint),
  toJSON: (n) => (n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString()),
  isValid: (v) => typeof v === "bigint",
  compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
});

const PRIMITIVES = new Set(["null", "boolean", "int", "long", "float", "double", "bytes", "string"]);

/** A compiled schema: avsc's type for decoding and the named types for walking. */
export interface AvroSchema {
  type: { fromBuffer(buffer: Buffer): unknown };
  root: Schema;
  named: Map<string, Obj>;
}

const cache = new Map<string, AvroSchema>();

/** Compiles (and caches) a schema definition; throws when avsc refuses it. */
export function compileAvro(definition: string): AvroSchema {
  const hit = cache.get(definition);
  if (hit) return hit;
  const root: Schema = JSON.parse(definition);
  const type = avroTypes.Type.forSchema(root, { wrapUnions: true, registry: { long: longType } });
  const named = new Map<string, Obj>();
  collectNamed(root, "", named);
  const compiled = { type, root, named };
  if (cache.size > 200) cache.delete(cache.keys().next().value ?? "");
  cache.set(definition, compiled);
  return compiled;
}

function fullName(name: string, namespace: string): string {
  return name.includes(".") || !namespace ? name : `${namespace}.${name}`;
}

/** The namespace a named type defines for itself and its children (Avro spec: a dotted name wins over `namespace`). */
function namespaceOf(node: Obj, parent: string): string {
  if (typeof node.name === "string" && node.name.includes(".")) return node.name.slice(0, node.name.lastIndexOf("."));
  return typeof node.namespace === "string" ? node.namespace : parent;
}

function collectNamed(node: Schema, namespace: string, out: Map<string, Obj>): void {
  if (Array.isArray(node)) {
    for (const b of node) collectNamed(b, namespace, out);
    return;
  }
  if (!isObj(node)) return;
  const ns = namespaceOf(node, namespace);
  if (typeof node.name === "string" && (node.type === "record" || node.type === "error" || node.type === "enum" || node.type === "fixed")) {
    out.set(fullName(node.name, ns), node);
  }
  if (Array.isArray(node.fields)) for (const f of node.fields) if (isObj(f)) collectNamed(f.type, ns, out);
  if (node.items !== undefined) collectNamed(node.items, ns, out);
  if (node.values !== undefined) collectNamed(node.values, ns, out);
  if (isObj(node.type) || Array.isArray(node.type)) collectNamed(node.type, ns, out);
}

function resolve(s: AvroSchema, ref: string, namespace: string): Obj | undefined {
  return s.named.get(fullName(ref, namespace)) ?? s.named.get(ref);
}

/** The key avsc uses for a wrapped union value of this branch. */
function branchName(s: AvroSchema, node: Schema, namespace: string): string {
  if (typeof node === "string") {
    if (PRIMITIVES.has(node)) return node;
    const named = resolve(s, node, namespace);
    return named && typeof named.name === "string" ? fullName(named.name, namespaceOf(named, namespace)) : node;
  }
  if (isObj(node)) {
    if (node.type === "record" || node.type === "error" || node.type === "enum" || node.type === "fixed") return fullName(String(node.name), namespaceOf(node, namespace));
    if (typeof node.type === "string") return branchName(s, node.type, namespace);
  }
  return "";
}

function bytesJson(b: Buffer): string {
  return `0x${b.toString("hex")}`;
}

function walk(s: AvroSchema, node: Schema, value: unknown, path: string, namespace: string, ctx: MaskContext, depth: number): Json {
  if (depth > MAX_DEPTH) return mask(ctx, path || "(value)");
  if (typeof node === "string") {
    if (PRIMITIVES.has(node)) return primitive(value);
    const named = resolve(s, node, namespace);
    // A reference: the named type's own namespace applies inside it (resolved from its definition site).
    return named ? walk(s, named, value, path, namespace, ctx, depth + 1) : primitive(value);
  }
  if (Array.isArray(node)) {
    if (value === null) return null;
    if (!isObj(value)) return primitive(value);
    const first: [string, unknown] | undefined = Object.entries(value)[0];
    const [key, inner] = first ?? ["", null];
    const branch = node.find((b) => branchName(s, b, namespace) === key);
    return branch === undefined ? primitive(inner) : walk(s, branch, inner, path, namespace, ctx, depth + 1);
  }
  if (!isObj(node)) return primitive(value);
  const ns = namespaceOf(node, namespace);
  switch (node.type) {
    case "record":
    case "error": {
      const out: Record<string, Json> = {};
      const fields = Array.isArray(node.fields) ? node.fields : [];
      const v = isObj(value) ? value : {};
      for (const f of fields) {
        if (!isObj(f) || typeof f.name !== "string") continue;
        const fpath = childPath(path, f.name);
        out[f.name] = shouldMask(ctx, fpath, f[AVRO_PII_ATTRIBUTE] === true) ? mask(ctx, fpath) : walk(s, f.type, v[f.name], fpath, ns, ctx, depth + 1);
      }
      return out;
    }
    case "array":
      return Array.isArray(value) ? value.map((x) => walk(s, node.items, x, `${path}[]`, ns, ctx, depth + 1)) : [];
    case "map": {
      const out: Record<string, Json> = {};
      if (isObj(value)) for (const [k, x] of Object.entries(value)) out[k] = walk(s, node.values, x, `${path}{}`, ns, ctx, depth + 1);
      return out;
    }
    case "enum":
      return typeof value === "string" ? value : null;
    case "fixed":
      return Buffer.isBuffer(value) ? bytesJson(value) : null;
    default:
      return walk(s, node.type, value, path, ns, ctx, depth + 1);
  }
}

function primitive(value: unknown): Json {
  if (value === null || value === undefined) return null;
  if (typeof value === "bigint") return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
  if (Buffer.isBuffer(value)) return bytesJson(value);
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "string" || typeof value === "boolean") return value;
  // Nothing else is expected from avsc; show it as JSON rather than "[object Object]".
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

/** Decodes one Avro-encoded value (the whole buffer must be consumed) and masks it; throws when it does not decode. */
export function decodeAvro(schema: AvroSchema, bytes: Buffer, ctx: MaskContext): Json {
  const value = schema.type.fromBuffer(bytes);
  return walk(schema, schema.root, value, "", "", ctx, 0);
}
