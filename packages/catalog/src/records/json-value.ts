/*
 * JSON values for the message browser, masked along the product's JSON
 * Schema: `properties` (a property with "x-pii": true is masked), `items`,
 * `prefixItems`, `additionalProperties`, the combinators (a field masked by
 * any branch is masked) and local `$ref`s — followed along the data, so a
 * recursive schema masks at every depth.
 */
import { JSON_SCHEMA_PII_KEYWORD } from "../schema/pii.ts";
import { childPath, mask, MAX_DEPTH, shouldMask, type Json, type MaskContext } from "./mask.ts";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined; // remote references are not followed
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").filter((p) => p !== "")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    node = isObj(node) ? node[key] : undefined;
  }
  return node;
}

/** Every schema node that applies to a value at this point: the node, its $ref target and its combinator branches (bounded). */
function applicable(root: unknown, node: unknown, out: Obj[] = [], seen = 0): Obj[] {
  if (!isObj(node) || out.length > 32 || seen > 32) return out;
  out.push(node);
  if (typeof node.$ref === "string") applicable(root, resolveRef(root, node.$ref), out, seen + 1);
  for (const key of ["allOf", "anyOf", "oneOf"] as const) {
    const list = node[key];
    if (Array.isArray(list)) for (const b of list) applicable(root, b, out, seen + 1);
  }
  for (const key of ["then", "else"] as const) if (node[key] !== undefined) applicable(root, node[key], out, seen + 1);
  return out;
}

function walk(root: unknown, schema: unknown, value: unknown, path: string, ctx: MaskContext, depth: number): Json {
  if (depth > MAX_DEPTH) return mask(ctx, path || "(value)");
  const nodes = applicable(root, schema);
  if (Array.isArray(value)) {
    return value.map((item, i) => {
      const itemSchemas: unknown[] = [];
      for (const n of nodes) {
        if (Array.isArray(n.prefixItems) && i < n.prefixItems.length) itemSchemas.push(n.prefixItems[i]);
        else if (isObj(n.items)) itemSchemas.push(n.items);
      }
      return walk(root, { allOf: itemSchemas }, item, `${path}[]`, ctx, depth + 1);
    });
  }
  if (isObj(value)) {
    const out: Record<string, Json> = {};
    for (const [key, v] of Object.entries(value)) {
      const fpath = childPath(path, key);
      const declared: unknown[] = [];
      const extra: unknown[] = [];
      let pii = false;
      for (const n of nodes) {
        const props = isObj(n.properties) ? n.properties : null;
        const prop = props ? props[key] : undefined;
        if (prop !== undefined) {
          declared.push(prop);
          for (const p of applicable(root, prop)) if (p[JSON_SCHEMA_PII_KEYWORD] === true) pii = true;
        } else if (isObj(n.additionalProperties)) extra.push(n.additionalProperties);
      }
      if (declared.length > 0) {
        out[key] = shouldMask(ctx, fpath, pii) ? mask(ctx, fpath) : walk(root, { allOf: declared }, v, fpath, ctx, depth + 1);
      } else {
        const mpath = `${path}{}`;
        let mapPii = false;
        for (const e of extra) for (const p of applicable(root, e)) if (p[JSON_SCHEMA_PII_KEYWORD] === true) mapPii = true;
        out[key] = extra.length > 0 && shouldMask(ctx, mpath, mapPii) ? mask(ctx, mpath) : shouldMask(ctx, fpath, false) ? mask(ctx, fpath) : walk(root, { allOf: extra }, v, extra.length > 0 ? mpath : fpath, ctx, depth + 1);
      }
    }
    return out;
  }
  if (value === undefined) return null;
  return value as Json;
}

/** Masks a parsed JSON value along `schema` (the product's parsed JSON Schema). */
export function maskJson(schema: unknown, value: unknown, ctx: MaskContext): Json {
  return walk(schema, schema, value, "", ctx, 0);
}
