/**
 * A light model of an Avro schema for the compatibility walker: named types
 * resolved to full names (Avro spec, "Names"), references turned into edges
 * of a graph (recursive records stay finite), and nothing else. avsc's own
 * `Type.forSchema` compiles code for every record, which costs milliseconds per
 * 200-field schema; a transitive check against 50 versions needs this to be
 * a plain walk.
 *
 * The definitions reaching here were validated with avsc when they were
 * proposed; this parser still refuses what it cannot model rather than guess.
 */
import { ParseCache } from "./parse-cache.ts";

export type AvroPrimitive = "null" | "boolean" | "int" | "long" | "float" | "double" | "bytes" | "string";
export const AVRO_PRIMITIVES: readonly AvroPrimitive[] = ["null", "boolean", "int", "long", "float", "double", "bytes", "string"];

export interface AvroNamed {
  /** Unqualified name, as Avro's resolution rules compare it. */
  name: string;
  fullName: string;
  /** Full names of the type's aliases. */
  aliases: string[];
}

export interface AvroField {
  name: string;
  aliases: string[];
  type: AvroNode;
  /** A JSON `null` is a real default; only an absent `default` means none. */
  hasDefault: boolean;
  default?: unknown;
  doc?: string;
  /** Tagged as personal data (`"pii": true`, see pii.ts). */
  pii?: boolean;
  /** Index in the record's field list (Confluent reports `/fields/<index>`). */
  position: number;
}

export type AvroNode =
  | { kind: "primitive"; type: AvroPrimitive; logicalType?: string }
  | ({ kind: "record"; fields: AvroField[]; doc?: string } & AvroNamed)
  | ({ kind: "enum"; symbols: string[]; default?: string; doc?: string } & AvroNamed)
  | ({ kind: "fixed"; size: number; logicalType?: string } & AvroNamed)
  | { kind: "array"; items: AvroNode }
  | { kind: "map"; values: AvroNode }
  | { kind: "union"; branches: AvroNode[] };

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function qualify(name: string, namespace: string | undefined): string {
  return name.includes(".") || !namespace ? name : `${namespace}.${name}`;
}

class AvroModelParser {
  private readonly named = new Map<string, AvroNode & AvroNamed>();

  parse(schema: unknown, namespace: string | undefined): AvroNode {
    if (typeof schema === "string") return this.reference(schema, namespace);
    if (Array.isArray(schema)) return { kind: "union", branches: schema.map((branch) => this.parse(branch, namespace)) };
    if (!isObject(schema)) throw new Error(`Not an Avro schema: ${JSON.stringify(schema)}`);
    const type = schema.type;
    if (typeof type !== "string") {
      // `{"type": {...}}` and `{"type": [...]}` wrap a schema without adding anything.
      return this.parse(type, namespace);
    }
    if ((AVRO_PRIMITIVES as readonly string[]).includes(type)) {
      const logicalType = typeof schema.logicalType === "string" ? schema.logicalType : undefined;
      return { kind: "primitive", type: type as AvroPrimitive, ...(logicalType ? { logicalType } : {}) };
    }
    switch (type) {
      case "array":
        return { kind: "array", items: this.parse(schema.items, namespace) };
      case "map":
        return { kind: "map", values: this.parse(schema.values, namespace) };
      case "record":
      case "error":
        return this.record(schema, namespace);
      case "enum": {
        const names = this.names(schema, namespace);
        const node = {
          kind: "enum" as const,
          ...names,
          symbols: Array.isArray(schema.symbols) ? schema.symbols.map(String) : [],
          ...(typeof schema.default === "string" ? { default: schema.default } : {}),
          ...(typeof schema.doc === "string" ? { doc: schema.doc } : {}),
        };
        this.define(node);
        return node;
      }
      case "fixed": {
        const names = this.names(schema, namespace);
        const logicalType = typeof schema.logicalType === "string" ? schema.logicalType : undefined;
        const node = { kind: "fixed" as const, ...names, size: Number(schema.size), ...(logicalType ? { logicalType } : {}) };
        this.define(node);
        return node;
      }
      default:
        // `{"type": "com.example.Money"}` refers to a named type.
        return this.reference(type, namespace);
    }
  }

  private names(schema: JsonObject, enclosing: string | undefined): AvroNamed & { namespace: string | undefined } {
    const raw = schema.name === undefined || schema.name === null ? "" : typeof schema.name === "string" ? schema.name : JSON.stringify(schema.name);
    const ownNamespace = typeof schema.namespace === "string" && schema.namespace !== "" ? schema.namespace : undefined;
    const fullName = raw.includes(".") ? raw : qualify(raw, ownNamespace ?? enclosing);
    const lastDot = fullName.lastIndexOf(".");
    const namespace = lastDot >= 0 ? fullName.slice(0, lastDot) : undefined;
    const aliases = Array.isArray(schema.aliases) ? schema.aliases.map((a) => qualify(String(a), namespace)) : [];
    return { name: fullName.slice(lastDot + 1), fullName, aliases, namespace };
  }

  private define(node: AvroNode & AvroNamed): void {
    this.named.set(node.fullName, node);
  }

  private record(schema: JsonObject, enclosing: string | undefined): AvroNode {
    const { namespace, ...names } = this.names(schema, enclosing);
    const node: AvroNode & { kind: "record" } = {
      kind: "record",
      ...names,
      fields: [],
      ...(typeof schema.doc === "string" ? { doc: schema.doc } : {}),
    };
    // Registered before its fields are parsed, so a field may refer back to it.
    this.define(node);
    const fields = Array.isArray(schema.fields) ? schema.fields : [];
    fields.forEach((raw, position) => {
      if (!isObject(raw)) throw new Error(`Field ${position} of ${names.fullName} is not an object.`);
      node.fields.push({
        name: String(raw.name),
        aliases: Array.isArray(raw.aliases) ? raw.aliases.map(String) : [],
        type: this.parse(raw.type, namespace),
        hasDefault: Object.hasOwn(raw, "default"),
        ...(Object.hasOwn(raw, "default") ? { default: raw.default } : {}),
        ...(typeof raw.doc === "string" ? { doc: raw.doc } : {}),
        ...(raw.pii === true ? { pii: true } : {}),
        position,
      });
    });
    return node;
  }

  private reference(name: string, namespace: string | undefined): AvroNode {
    if ((AVRO_PRIMITIVES as readonly string[]).includes(name)) return { kind: "primitive", type: name as AvroPrimitive };
    const found = this.named.get(qualify(name, namespace)) ?? this.named.get(name);
    if (!found) throw new Error(`Undefined Avro type "${name}".`);
    return found;
  }
}

/** Parses an Avro schema (JSON value) into the walker's model. */
export function avroModel(schema: unknown): AvroNode {
  return new AvroModelParser().parse(schema, undefined);
}

const models = new ParseCache((definition) => avroModel(JSON.parse(definition)));

/** `avroModel(JSON.parse(definition))`, cached by the definition's text. */
export function avroModelOf(definition: string): AvroNode {
  return models.get(definition);
}

/*
 * Structural identity: two nodes with the same id describe the same type, so a
 * reader reads the writer's data without looking further — the walk over a new
 * version then costs only what changed. Ids are interned strings of the parts
 * resolution looks at (names, aliases, fields, defaults' presence, symbols,
 * sizes). A node inside a cycle has no id (undefined): its meaning depends on
 * the enclosing definition.
 */
const internedIds = new Map<string, number>();
/** null: computed, and the node has no id (it sits in a cycle). One lookup answers both questions on the hot path. */
const nodeIds = new WeakMap<AvroNode, number | null>();

export function structuralId(node: AvroNode): number | undefined {
  const cached = nodeIds.get(node);
  if (cached !== undefined) return cached ?? undefined;
  const onPath = new Set<AvroNode>();
  const keyOf = (n: AvroNode): string | undefined => {
    const known = nodeIds.get(n);
    if (known !== undefined) return known === null ? undefined : `#${known}`;
    if (onPath.has(n)) return undefined;
    onPath.add(n);
    let key: string | undefined;
    const all = (parts: (string | undefined)[]) => (parts.every((p) => p !== undefined) ? parts.join(",") : undefined);
    switch (n.kind) {
      case "primitive":
        key = n.type;
        break;
      case "array":
        key = all(["a(", keyOf(n.items), ")"]);
        break;
      case "map":
        key = all(["m(", keyOf(n.values), ")"]);
        break;
      case "union":
        key = all(["u(", ...n.branches.map(keyOf), ")"]);
        break;
      case "enum":
        key = JSON.stringify(["e", n.fullName, n.aliases, n.symbols, n.default ?? null]);
        break;
      case "fixed":
        key = JSON.stringify(["x", n.fullName, n.aliases, n.size]);
        break;
      case "record":
        key = all([JSON.stringify(["r", n.fullName, n.aliases]), ...n.fields.map((f) => all([JSON.stringify([f.name, f.aliases, f.hasDefault]), keyOf(f.type)]))]);
        break;
    }
    onPath.delete(n);
    let id: number | undefined;
    if (key !== undefined) {
      id = internedIds.get(key);
      if (id === undefined) {
        id = internedIds.size + 1;
        internedIds.set(key, id);
      }
    }
    nodeIds.set(n, id ?? null);
    return id === undefined ? undefined : `#${id}`;
  };
  keyOf(node);
  return nodeIds.get(node) ?? undefined;
}

/**
 * The structural ids of a record's field types, by field position, built once
 * per record: the walk over a 200-field record against 50 versions compares
 * these instead of looking every field's type up again.
 */
const fieldIds = new WeakMap<AvroNode, (number | undefined)[]>();

export function fieldTypeIds(record: AvroNode & { kind: "record" }): (number | undefined)[] {
  let ids = fieldIds.get(record);
  if (!ids) {
    ids = record.fields.map((f) => structuralId(f.type));
    fieldIds.set(record, ids);
  }
  return ids;
}

/** A record's fields by name, built once per record. */
const fieldMaps = new WeakMap<AvroNode, Map<string, AvroField>>();

export function fieldsByName(record: AvroNode & { kind: "record" }): Map<string, AvroField> {
  let map = fieldMaps.get(record);
  if (!map) {
    map = new Map(record.fields.map((f) => [f.name, f]));
    fieldMaps.set(record, map);
  }
  return map;
}

/** A short name of a node for messages: `int`, `record Order`, `array<string>`, `union [null, string]`. */
export function describeAvro(node: AvroNode): string {
  switch (node.kind) {
    case "primitive":
      return node.logicalType ? `${node.type} (${node.logicalType})` : node.type;
    case "record":
    case "enum":
    case "fixed":
      return `${node.kind} ${node.name}`;
    case "array":
      return `array<${describeAvro(node.items)}>`;
    case "map":
      return `map<${describeAvro(node.values)}>`;
    case "union":
      return `union [${node.branches.map(describeAvro).join(", ")}]`;
  }
}
