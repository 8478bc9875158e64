import { avroModelOf, describeAvro, type AvroNode } from "./avro-model.ts";
import type { SchemaFormat } from "./check-compatibility.ts";
import { deref, describeJson, jsonSchemaModelOf, type JsonNode } from "./json-schema-model.ts";

/**
 * Field-level differences between two versions of a schema, for reviewers:
 * which fields were added, removed or renamed, and for the others whether
 * their type, default, doc, requiredness or PII tag changed. Pure (no
 * database, no Node APIs), so the product page can compare any two versions
 * in the browser.
 */
export interface FieldSummary {
  /** The type in words: `long (timestamp-millis)`, `union [null, string]`, `record Customer`. */
  type: string;
  /** The default as JSON text, if the field has one. */
  default?: string;
  doc?: string;
  /** JSON Schema: listed in its object's `required`. */
  required?: boolean;
  pii?: boolean;
  /** Avro: the field's aliases. */
  aliases?: string[];
}

export type FieldAspect = "type" | "default" | "doc" | "required" | "pii" | "aliases";

export interface FieldChange {
  /** The field's path in the newer version (the older one for a removed field): `customer.email`, `lines[].sku`. */
  path: string;
  change: "added" | "removed" | "renamed" | "changed" | "unchanged";
  /** What differs, for "changed" and "renamed". */
  aspects: FieldAspect[];
  /** For "renamed": the path in the older version. */
  renamedFrom?: string;
  before?: FieldSummary;
  after?: FieldSummary;
}

interface FlatField {
  path: string;
  /** Path of the record or object the field belongs to, for matching renames within it. */
  parent: string;
  name: string;
  summary: FieldSummary;
}

function join(prefix: string, name: string): string {
  return prefix === "" ? name : `${prefix}.${name}`;
}

function flattenAvro(root: AvroNode): FlatField[] {
  const out: FlatField[] = [];
  const onPath = new Set<AvroNode>();
  const visit = (node: AvroNode, prefix: string) => {
    if (onPath.has(node)) return; // A recursive type is listed through one level.
    switch (node.kind) {
      case "record":
        onPath.add(node);
        for (const f of node.fields) {
          const path = join(prefix, f.name);
          out.push({
            path,
            parent: prefix,
            name: f.name,
            summary: {
              type: describeAvro(f.type),
              ...(f.hasDefault ? { default: JSON.stringify(f.default) } : {}),
              ...(f.doc !== undefined ? { doc: f.doc } : {}),
              ...(f.pii ? { pii: true } : {}),
              ...(f.aliases.length > 0 ? { aliases: f.aliases } : {}),
            },
          });
          visit(f.type, path);
        }
        onPath.delete(node);
        return;
      case "array":
        return visit(node.items, `${prefix}[]`);
      case "map":
        return visit(node.values, `${prefix}{}`);
      case "union":
        for (const branch of node.branches) visit(branch, prefix);
        return;
      default:
        return;
    }
  };
  visit(root, "");
  return out;
}

function flattenJson(root: JsonNode): FlatField[] {
  const out: FlatField[] = [];
  const onPath = new Set<JsonNode>();
  const visit = (raw: JsonNode, prefix: string) => {
    const node = deref(raw);
    if (onPath.has(node)) return;
    onPath.add(node);
    if (node.kind === "object") {
      for (const [name, property] of node.properties) {
        const path = join(prefix, name);
        const p = deref(property);
        out.push({
          path,
          parent: prefix,
          name,
          summary: {
            type: describeJsonField(p),
            ...(p.meta.default !== undefined ? { default: p.meta.default } : {}),
            ...(p.meta.description !== undefined ? { doc: p.meta.description } : {}),
            required: node.required.has(name),
            ...(p.meta.pii ? { pii: true } : {}),
          },
        });
        visit(p, path);
      }
    } else if (node.kind === "array") {
      if (node.allItems) visit(node.allItems, `${prefix}[]`);
      node.tuple.forEach((item, i) => visit(item, `${prefix}[${i}]`));
    } else if (node.kind === "combined") {
      for (const sub of node.subs) visit(sub, prefix);
    }
    onPath.delete(node);
  };
  visit(root, "");
  return out;
}

/** A JSON Schema property's type in words, with enum values and nullable alternatives spelled out. */
function describeJsonField(node: JsonNode): string {
  const n = deref(node);
  if (n.kind === "enum") return `enum [${n.values.join(", ")}]`;
  if (n.kind === "combined") return n.subs.map((s) => describeJsonField(s)).join(n.criterion === "allOf" ? " & " : " | ");
  if (n.kind === "array" && n.allItems) return `array<${describeJsonField(n.allItems)}>`;
  return describeJson(n);
}

function differences(before: FieldSummary, after: FieldSummary): FieldAspect[] {
  const aspects: FieldAspect[] = [];
  if (before.type !== after.type) aspects.push("type");
  if (before.default !== after.default) aspects.push("default");
  if (before.doc !== after.doc) aspects.push("doc");
  if ((before.required ?? false) !== (after.required ?? false)) aspects.push("required");
  if ((before.pii ?? false) !== (after.pii ?? false)) aspects.push("pii");
  if ((before.aliases ?? []).join(",") !== (after.aliases ?? []).join(",")) aspects.push("aliases");
  return aspects;
}

/** Every field of either version, in the newer version's order (removed fields where they were). */
export function diffSchemaFields(format: SchemaFormat, older: string, newer: string): FieldChange[] {
  const [a, b] = format === "AVRO" ? [flattenAvro(avroModelOf(older)), flattenAvro(avroModelOf(newer))] : [flattenJson(jsonSchemaModelOf(older)), flattenJson(jsonSchemaModelOf(newer))];
  const oldByPath = new Map(a.map((f, i) => [f.path, { field: f, index: i }]));
  const matched = new Set<string>();
  const rows: { order: number; change: FieldChange }[] = [];
  b.forEach((field, index) => {
    const same = oldByPath.get(field.path);
    if (same) {
      matched.add(field.path);
      const aspects = differences(same.field.summary, field.summary);
      rows.push({ order: index, change: { path: field.path, change: aspects.length ? "changed" : "unchanged", aspects, before: same.field.summary, after: field.summary } });
      return;
    }
    // An Avro alias naming a field of the older version at the same place is a rename.
    const renamed = field.summary.aliases
      ?.map((alias) => oldByPath.get(join(field.parent, alias)))
      .find((candidate) => candidate && !b.some((f) => f.path === candidate.field.path));
    if (renamed) {
      matched.add(renamed.field.path);
      rows.push({
        order: index,
        change: { path: field.path, change: "renamed", renamedFrom: renamed.field.path, aspects: differences(renamed.field.summary, field.summary), before: renamed.field.summary, after: field.summary },
      });
      return;
    }
    rows.push({ order: index, change: { path: field.path, change: "added", aspects: [], after: field.summary } });
  });
  a.forEach((field, index) => {
    if (matched.has(field.path)) return;
    // Placed just after the field that preceded it in the older version.
    const previous = a.slice(0, index).reverse().find((f) => b.some((g) => g.path === f.path));
    const anchor = previous ? b.findIndex((g) => g.path === previous.path) : -1;
    rows.push({ order: anchor + 0.5 + index / 1e6, change: { path: field.path, change: "removed", aspects: [], before: field.summary } });
  });
  return rows.sort((x, y) => x.order - y.order).map((r) => r.change);
}
