import { compareArray, compareObject } from "./json-schema-content-models.ts";
import { COMPATIBLE_CHANGES, compareLimit, DiffContext, tryCompare, type JsonDifference } from "./json-schema-differences.ts";
import { deref, describeJson, nodeKey, type JsonNode } from "./json-schema-model.ts";

export { COMPATIBLE_CHANGES, type JsonDifference } from "./json-schema-differences.ts";

/*
 * Confluent Schema Registry's JSON Schema compatibility rules: the change from
 * an `original` schema to an `update` is a list of differences, each of a type
 * Confluent names (PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL, TYPE_NARROWED, ...);
 * the update can read everything the original allowed exactly when every
 * difference is in COMPATIBLE_CHANGES. BACKWARD compares (old → new), FORWARD
 * (new → old).
 *
 * The central idea is the content model of an object: open (any extra
 * property allowed, the JSON Schema default), closed (`additionalProperties:
 * false`) or partially open (`patternProperties` or an `additionalProperties`
 * schema). Adding a property to an open model is incompatible, because data
 * written with the original may already carry that name with any value;
 * removing one from a closed model is incompatible, because the update would
 * refuse data that still carries it.
 *
 * This file walks the two schemas and compares scalars and combinations
 * (allOf/anyOf/oneOf/not); objects and arrays are in
 * json-schema-content-models.ts, the difference types and the walk's context
 * in json-schema-differences.ts.
 */

function compare(ctx: DiffContext, originalRaw: JsonNode | undefined, updateRaw: JsonNode | undefined): void {
  if (!originalRaw && !updateRaw) return;
  if (!originalRaw) return ctx.add("SCHEMA_ADDED");
  if (!updateRaw) return ctx.add("SCHEMA_REMOVED");
  const original = deref(originalRaw);
  const update = deref(updateRaw);
  if (!ctx.begin(original, update)) return;
  try {
    compareResolved(ctx, original, update);
  } finally {
    ctx.end(original, update);
  }
}

function compareResolved(ctx: DiffContext, original: JsonNode, update: JsonNode): void {
  if (original.kind !== "combined" && update.kind === "combined") {
    if (update.subs.length === 1) {
      const sub = tryCompare(compare, ctx, original, update.subs[0] as JsonNode);
      if (sub.compatible) return ctx.addAll(sub.differences);
    } else if (update.criterion === "anyOf" || update.criterion === "oneOf") {
      // A schema that became one alternative among several.
      for (const alternative of update.subs) {
        const sub = tryCompare(compare, ctx, original, alternative);
        if (sub.compatible) {
          ctx.addAll(sub.differences);
          return ctx.add("SUM_TYPE_EXTENDED");
        }
      }
    }
  } else if (original.kind === "combined" && update.kind !== "combined") {
    if (original.subs.length === 1) {
      const sub = tryCompare(compare, ctx, original.subs[0] as JsonNode, update);
      if (sub.compatible) return ctx.addAll(sub.differences);
    } else if (original.criterion === "allOf") {
      // Dropping all but one conjunct only relaxes (e.g. an `enum` removed from a typed schema).
      for (const conjunct of original.subs) {
        const sub = tryCompare(compare, ctx, conjunct, update);
        if (sub.compatible) {
          ctx.addAll(sub.differences);
          return ctx.add("PRODUCT_TYPE_NARROWED");
        }
      }
    }
  }

  if (original.kind !== update.kind) {
    // Nothing was valid before, or anything is valid now: no data is refused.
    if (original.kind === "false" || update.kind === "empty") return;
    return ctx.add("TYPE_CHANGED", { original: describeJson(original), update: describeJson(update) });
  }

  const o = original.meta;
  const u = update.meta;
  if (o.id !== u.id) ctx.add("ID_CHANGED");
  if (o.title !== u.title) ctx.add("TITLE_CHANGED");
  if (o.description !== u.description) ctx.add("DESCRIPTION_CHANGED");
  if (o.default !== u.default) ctx.add("DEFAULT_CHANGED", { original: o.default ?? "none", update: u.default ?? "none" });

  switch (original.kind) {
    case "string":
      return compareString(ctx, original, update as typeof original);
    case "number":
      return compareNumber(ctx, original, update as typeof original);
    case "enum":
      return compareEnum(ctx, original, update as typeof original);
    case "combined":
      return compareCombined(ctx, original, update as typeof original);
    case "not": {
      // `not` turns the relation around: the update's excluded set must fit inside the original's.
      const sub = tryCompare(compare, ctx.enter("not"), (update as typeof original).not, original.not);
      return ctx.add(sub.compatible ? "NOT_TYPE_NARROWED" : "NOT_TYPE_EXTENDED", {}, "not");
    }
    case "object":
      return compareObject(compare, ctx, original, update as typeof original);
    case "array":
      return compareArray(compare, ctx, original, update as typeof original);
    default:
      return;
  }
}

function compareString(ctx: DiffContext, o: JsonNode & { kind: "string" }, u: JsonNode & { kind: "string" }): void {
  compareLimit(ctx, "maxLength", "MAX_LENGTH", o.maxLength, u.maxLength);
  compareLimit(ctx, "minLength", "MIN_LENGTH", o.minLength, u.minLength);
  const values = { original: o.pattern ?? "none", update: u.pattern ?? "none" };
  if (o.pattern === undefined && u.pattern !== undefined) ctx.add("PATTERN_ADDED", values, "pattern");
  else if (o.pattern !== undefined && u.pattern === undefined) ctx.add("PATTERN_REMOVED", values, "pattern");
  else if (o.pattern !== u.pattern) ctx.add("PATTERN_CHANGED", values, "pattern");
}

function isWholeMultiple(value: number, of: number): boolean {
  const ratio = value / of;
  return Math.abs(ratio - Math.round(ratio)) < 1e-9;
}

function compareNumber(ctx: DiffContext, o: JsonNode & { kind: "number" }, u: JsonNode & { kind: "number" }): void {
  compareLimit(ctx, "maximum", "MAXIMUM", o.maximum, u.maximum);
  compareLimit(ctx, "minimum", "MINIMUM", o.minimum, u.minimum);
  compareLimit(ctx, "exclusiveMaximum", "EXCLUSIVE_MAXIMUM", o.exclusiveMaximum, u.exclusiveMaximum);
  compareLimit(ctx, "exclusiveMinimum", "EXCLUSIVE_MINIMUM", o.exclusiveMinimum, u.exclusiveMinimum);
  if (o.multipleOf !== u.multipleOf) {
    const values = { original: o.multipleOf ?? "none", update: u.multipleOf ?? "none" };
    if (o.multipleOf === undefined) ctx.add("MULTIPLE_OF_ADDED", values, "multipleOf");
    else if (u.multipleOf === undefined) ctx.add("MULTIPLE_OF_REMOVED", values, "multipleOf");
    // A multiple of the old step allows fewer values; a divisor of it allows more.
    else if (isWholeMultiple(u.multipleOf, o.multipleOf)) ctx.add("MULTIPLE_OF_EXPANDED", values, "multipleOf");
    else if (isWholeMultiple(o.multipleOf, u.multipleOf)) ctx.add("MULTIPLE_OF_REDUCED", values, "multipleOf");
    else ctx.add("MULTIPLE_OF_CHANGED", values, "multipleOf");
  }
  if (o.integer !== u.integer) {
    const values = { original: o.integer ? "integer" : "number", update: u.integer ? "integer" : "number" };
    ctx.add(o.integer ? "TYPE_EXTENDED" : "TYPE_NARROWED", values);
  }
}

function compareEnum(ctx: DiffContext, o: JsonNode & { kind: "enum" }, u: JsonNode & { kind: "enum" }): void {
  const before = new Set(o.values);
  const after = new Set(u.values);
  if (before.size === after.size && [...before].every((v) => after.has(v))) return;
  const removed = [...before].filter((v) => !after.has(v));
  const added = [...after].filter((v) => !before.has(v));
  const values = { original: removed.join(", ") || "none", update: added.join(", ") || "none" };
  if (removed.length === 0) ctx.add("ENUM_ARRAY_EXTENDED", values, "enum");
  else if (added.length === 0) ctx.add("ENUM_ARRAY_NARROWED", values, "enum");
  else ctx.add("ENUM_ARRAY_CHANGED", values, "enum");
}

/** Kuhn's augmenting paths: the largest set of (original, update) pairs joined by a compatible edge. */
function maximumMatching(edges: boolean[][], rightCount: number): number[] {
  const matchOfRight = new Array<number>(rightCount).fill(-1);
  const tryAssign = (left: number, visited: boolean[]): boolean => {
    for (let right = 0; right < rightCount; right++) {
      if (!edges[left]?.[right] || visited[right]) continue;
      visited[right] = true;
      const current = matchOfRight[right] as number;
      if (current === -1 || tryAssign(current, visited)) {
        matchOfRight[right] = left;
        return true;
      }
    }
    return false;
  };
  for (let left = 0; left < edges.length; left++) tryAssign(left, new Array<boolean>(rightCount).fill(false));
  return matchOfRight;
}

/** Alternatives written twice count once (Confluent collapses them too). */
function uniqueSubs(subs: JsonNode[]): JsonNode[] {
  const seen = new Set<string>();
  return subs.filter((s) => {
    const key = nodeKey(s);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function compareCombined(ctx: DiffContext, o: JsonNode & { kind: "combined" }, u: JsonNode & { kind: "combined" }): void {
  if (o.criterion !== u.criterion) {
    const values = { original: o.criterion, update: u.criterion };
    // Towards anyOf only relaxes; towards oneOf or allOf only from a single alternative.
    const extended = u.criterion === "anyOf" || (u.criterion === "oneOf" && o.subs.length === 1) || (u.criterion === "allOf" && o.subs.length === 1 && u.subs.length === 1);
    if (!extended) return ctx.add("COMBINED_TYPE_CHANGED", values);
    ctx.add("COMBINED_TYPE_EXTENDED", values);
  }
  const originals = uniqueSubs(o.subs);
  const updates = uniqueSubs(u.subs);
  const counts = { original: originals.length, update: updates.length };
  if (originals.length < updates.length) ctx.add(u.criterion === "allOf" ? "PRODUCT_TYPE_EXTENDED" : "SUM_TYPE_EXTENDED", counts);
  else if (originals.length > updates.length) ctx.add(u.criterion === "allOf" ? "PRODUCT_TYPE_NARROWED" : "SUM_TYPE_NARROWED", counts);

  const results = originals.map((orig, i) => updates.map((upd) => tryCompare(compare, ctx.enter(`${o.criterion}/${i}`), orig, upd)));
  const matching = maximumMatching(
    results.map((row) => row.map((r) => r.compatible)),
    updates.length,
  );
  let matched = 0;
  matching.forEach((left, right) => {
    if (left === -1) return;
    matched++;
    ctx.addAll(results[left]?.[right]?.differences ?? []);
  });
  if (matched < Math.min(originals.length, updates.length)) ctx.add("COMBINED_TYPE_SUBSCHEMAS_CHANGED", counts);
}

/** Every difference from `original` to `update`, compatible ones included, in Confluent's terms. */
export function jsonSchemaDifferences(original: JsonNode, update: JsonNode): JsonDifference[] {
  const ctx = new DiffContext();
  compare(ctx, original, update);
  return ctx.differences;
}

/** The differences that stop `reader` from accepting everything `writer` allowed. */
export function jsonSchemaReadIssues(reader: JsonNode, writer: JsonNode): JsonDifference[] {
  return jsonSchemaDifferences(writer, reader).filter((d) => !COMPATIBLE_CHANGES.has(d.type));
}
