import { avroModelOf, type AvroNode } from "./avro-model.ts";
import type { SchemaFormat } from "./check-compatibility.ts";
import { deref, jsonSchemaModelOf, type JsonNode } from "./json-schema-model.ts";

/**
 * A value of the schema as JavaScript source, for connection snippets: a
 * producer that pastes it writes a record the registry serializer accepts
 * (every field present, the first symbol of an enum, null for an optional
 * union). Placeholders only — the owner fills in real data. Pure.
 */
export function exampleValueSource(format: SchemaFormat, definition: string): string {
  try {
    return format === "AVRO" ? avroExample(avroModelOf(definition), 0, new Set()) : jsonExample(jsonSchemaModelOf(definition), 0, new Set());
  } catch {
    return "{ /* a record of the product's schema */ }";
  }
}

const pad = (depth: number) => "  ".repeat(depth);

function object(entries: [string, string][], depth: number): string {
  if (entries.length === 0) return "{}";
  const key = (k: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : JSON.stringify(k));
  return `{\n${entries.map(([k, v]) => `${pad(depth + 1)}${key(k)}: ${v},`).join("\n")}\n${pad(depth)}}`;
}

function avroExample(node: AvroNode, depth: number, onPath: Set<AvroNode>): string {
  switch (node.kind) {
    case "primitive":
      switch (node.type) {
        case "null":
          return "null";
        case "boolean":
          return "false";
        case "int":
          return node.logicalType === "date" ? "Math.floor(Date.now() / 86_400_000)" : "0";
        case "long":
          return node.logicalType?.startsWith("timestamp") ? "Date.now()" : "0";
        case "float":
        case "double":
          return "0";
        case "bytes":
          return 'Buffer.from("")';
        case "string":
          return node.logicalType === "uuid" ? "crypto.randomUUID()" : '"example"';
      }
      return "null";
    case "fixed":
      return `Buffer.alloc(${node.size})`;
    case "enum":
      return JSON.stringify(node.symbols[0] ?? "");
    case "array":
      return "[]";
    case "map":
      return "{}";
    case "union":
      // The first branch is the one a default may use; ["null", X] starts with null.
      return node.branches[0] ? avroExample(node.branches[0], depth, onPath) : "null";
    case "record": {
      if (onPath.has(node)) return "null";
      onPath.add(node);
      const entries = node.fields.map((f): [string, string] => [f.name, avroExample(f.type, depth + 1, onPath)]);
      onPath.delete(node);
      return object(entries, depth);
    }
  }
}

function jsonExample(raw: JsonNode, depth: number, onPath: Set<JsonNode>): string {
  const node = deref(raw);
  if (onPath.has(node)) return "null";
  switch (node.kind) {
    case "object": {
      onPath.add(node);
      const entries = [...node.properties].map(([k, v]): [string, string] => [k, jsonExample(v, depth + 1, onPath)]);
      onPath.delete(node);
      return object(entries, depth);
    }
    case "array":
      return "[]";
    case "string":
      return '"example"';
    case "number":
      return String(node.minimum ?? 0);
    case "boolean":
      return "false";
    case "null":
      return "null";
    case "enum":
      return node.values[0] ?? "null";
    case "combined":
      return node.subs[0] ? jsonExample(node.subs[0], depth, onPath) : "null";
    default:
      return "null";
  }
}
