import { canonicalJson, deref, describeJson, nodeKey, type JsonNode } from "./json-schema-model.ts";

/**
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
 */
export const COMPATIBLE_CHANGES: ReadonlySet<string> = new Set([
  "ID_CHANGED",
  "DESCRIPTION_CHANGED",
  "TITLE_CHANGED",
  "DEFAULT_CHANGED",
  "SCHEMA_REMOVED",
  "TYPE_EXTENDED",
  "MAX_LENGTH_INCREASED",
  "MAX_LENGTH_REMOVED",
  "MIN_LENGTH_DECREASED",
  "MIN_LENGTH_REMOVED",
  "PATTERN_REMOVED",
  "MAXIMUM_INCREASED",
  "MAXIMUM_REMOVED",
  "MINIMUM_DECREASED",
  "MINIMUM_REMOVED",
  "EXCLUSIVE_MAXIMUM_INCREASED",
  "EXCLUSIVE_MAXIMUM_REMOVED",
  "EXCLUSIVE_MINIMUM_DECREASED",
  "EXCLUSIVE_MINIMUM_REMOVED",
  "MULTIPLE_OF_REDUCED",
  "MULTIPLE_OF_REMOVED",
  "REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED",
  "REQUIRED_ATTRIBUTE_REMOVED",
  "DEPENDENCY_ARRAY_NARROWED",
  "DEPENDENCY_ARRAY_REMOVED",
  "DEPENDENCY_SCHEMA_REMOVED",
  "MAX_PROPERTIES_INCREASED",
  "MAX_PROPERTIES_REMOVED",
  "MIN_PROPERTIES_DECREASED",
  "MIN_PROPERTIES_REMOVED",
  "ADDITIONAL_PROPERTIES_ADDED",
  "ADDITIONAL_PROPERTIES_EXTENDED",
  "PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL",
  "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL",
  "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL",
  "PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL",
  "PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL",
  "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
  "PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
  "MAX_ITEMS_INCREASED",
  "MAX_ITEMS_REMOVED",
  "MIN_ITEMS_DECREASED",
  "MIN_ITEMS_REMOVED",
  "UNIQUE_ITEMS_REMOVED",
  "ADDITIONAL_ITEMS_ADDED",
  "ADDITIONAL_ITEMS_EXTENDED",
  "ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL",
  "ITEM_ADDED_TO_CLOSED_CONTENT_MODEL",
  "ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL",
  "ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL",
  "ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
  "ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
  "ENUM_ARRAY_EXTENDED",
  "COMBINED_TYPE_EXTENDED",
  "PRODUCT_TYPE_NARROWED",
  "SUM_TYPE_EXTENDED",
  "NOT_TYPE_NARROWED",
]);

export interface JsonDifference {
  /** Confluent's difference type. */
  type: string;
  /** Confluent's JSON path: "#/properties/amount". */
  location: string;
  /** Dotted property path ("customer.email", "lines[]"); "" at the top. */
  path: string;
  /** What the original and the update say at that place, in words (a type, a limit, enum values). */
  original?: string;
  update?: string;
}

/**
 * Where the walk is (JSON path and dotted path) and what it found. Contexts
 * entered below one share its list; a scratch context has its own, so a trial
 * comparison leaves nothing behind unless its result is kept.
 */
class DiffContext {
  constructor(
    private readonly location: string[] = [],
    private readonly path: string[] = [],
    private readonly inProgress: Map<JsonNode, Set<JsonNode>> = new Map(),
    readonly differences: JsonDifference[] = [],
  ) {}

  add(type: string, values: { original?: string | number; update?: string | number } = {}, keyword?: string): void {
    const location = keyword ? [...this.location, keyword] : this.location;
    this.differences.push({
      type,
      location: "#/" + location.join("/"),
      path: this.path.join(""),
      ...(values.original !== undefined ? { original: String(values.original) } : {}),
      ...(values.update !== undefined ? { update: String(values.update) } : {}),
    });
  }

  addAll(differences: JsonDifference[]): void {
    this.differences.push(...differences);
  }

  /** A context one step down: `segment` extends the JSON path, `field` the dotted one. */
  enter(segment: string, field?: string): DiffContext {
    const path = field === undefined ? this.path : [...this.path, this.path.length > 0 && !field.startsWith("[") ? `.${field}` : field];
    return new DiffContext([...this.location, segment], path, this.inProgress, this.differences);
  }

  /** A scratch context at the same place, for trying a comparison before keeping its result. */
  scratch(): DiffContext {
    return new DiffContext(this.location, this.path, this.inProgress);
  }

  get compatible(): boolean {
    return this.differences.every((d) => COMPATIBLE_CHANGES.has(d.type));
  }

  /** Marks a pair as being compared; false when it already is (a recursive schema met itself). */
  begin(original: JsonNode, update: JsonNode): boolean {
    const seen = this.inProgress.get(original);
    if (seen?.has(update)) return false;
    if (seen) seen.add(update);
    else this.inProgress.set(original, new Set([update]));
    return true;
  }

  end(original: JsonNode, update: JsonNode): void {
    const set = this.inProgress.get(original);
    set?.delete(update);
    if (set?.size === 0) this.inProgress.delete(original);
  }
}

/** A sub-comparison whose result is kept only if it is compatible. */
function tryCompare(ctx: DiffContext, original: JsonNode, update: JsonNode): DiffContext {
  const sub = ctx.scratch();
  compare(sub, original, update);
  return sub;
}

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
      const sub = tryCompare(ctx, original, update.subs[0] as JsonNode);
      if (sub.compatible) return ctx.addAll(sub.differences);
    } else if (update.criterion === "anyOf" || update.criterion === "oneOf") {
      // A schema that became one alternative among several.
      for (const alternative of update.subs) {
        const sub = tryCompare(ctx, original, alternative);
        if (sub.compatible) {
          ctx.addAll(sub.differences);
          return ctx.add("SUM_TYPE_EXTENDED");
        }
      }
    }
  } else if (original.kind === "combined" && update.kind !== "combined") {
    if (original.subs.length === 1) {
      const sub = tryCompare(ctx, original.subs[0] as JsonNode, update);
      if (sub.compatible) return ctx.addAll(sub.differences);
    } else if (original.criterion === "allOf") {
      // Dropping all but one conjunct only relaxes (e.g. an `enum` removed from a typed schema).
      for (const conjunct of original.subs) {
        const sub = tryCompare(ctx, conjunct, update);
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
      const sub = tryCompare(ctx.enter("not"), (update as typeof original).not, original.not);
      return ctx.add(sub.compatible ? "NOT_TYPE_NARROWED" : "NOT_TYPE_EXTENDED", {}, "not");
    }
    case "object":
      return compareObject(ctx, original, update as typeof original);
    case "array":
      return compareArray(ctx, original, update as typeof original);
    default:
      return;
  }
}

/** ADDED / REMOVED / INCREASED / DECREASED for an optional numeric keyword. */
function compareLimit(ctx: DiffContext, keyword: string, prefix: string, original: number | undefined, update: number | undefined): void {
  if (original === update) return;
  const values = { original: original ?? "none", update: update ?? "none" };
  if (original === undefined) ctx.add(`${prefix}_ADDED`, values, keyword);
  else if (update === undefined) ctx.add(`${prefix}_REMOVED`, values, keyword);
  else ctx.add(original < update ? `${prefix}_INCREASED` : `${prefix}_DECREASED`, values, keyword);
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

  const results = originals.map((orig, i) => updates.map((upd) => tryCompare(ctx.enter(`${o.criterion}/${i}`), orig, upd)));
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

type ObjectNode = JsonNode & { kind: "object" };

function isOpenObject(node: ObjectNode): boolean {
  return node.patternProperties.length === 0 && node.additional === true;
}

/** The schema a partially open model gives an undeclared property, if any. */
function partialSchemaFor(node: ObjectNode, key: string): JsonNode | undefined {
  for (const { pattern, schema } of node.patternProperties) {
    try {
      if (new RegExp(pattern, "u").test(key)) return schema;
    } catch {
      // A pattern JavaScript cannot compile covers nothing we can prove.
    }
  }
  return typeof node.additional === "object" ? node.additional : undefined;
}

function compareObject(ctx: DiffContext, o: ObjectNode, u: ObjectNode): void {
  const required = ctx.enter("required");
  for (const key of o.properties.keys()) {
    if (!u.properties.has(key)) continue;
    const here = required.enter(key, key);
    const before = o.required.has(key);
    const after = u.required.has(key);
    if (before && !after) here.add("REQUIRED_ATTRIBUTE_REMOVED");
    else if (!before && after) here.add(deref(u.properties.get(key) as JsonNode).meta.hasDefault ? "REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED" : "REQUIRED_ATTRIBUTE_ADDED");
  }

  const properties = ctx.enter("properties");
  const keys = [...new Set([...o.properties.keys(), ...u.properties.keys()])].sort();
  for (const key of keys) {
    const here = properties.enter(key, key);
    const before = o.properties.get(key);
    const after = u.properties.get(key);
    if (before && after) compare(here, before, after);
    else if (before) propertyRemoved(here, key, before, u);
    else if (after) propertyAdded(here, key, after, o, u);
  }

  const dependencies = ctx.enter("dependencies");
  for (const key of [...new Set([...o.dependencyArrays.keys(), ...u.dependencyArrays.keys()])].sort()) {
    const here = dependencies.enter(key);
    const before = o.dependencyArrays.get(key);
    const after = u.dependencyArrays.get(key);
    if (!after) here.add("DEPENDENCY_ARRAY_REMOVED");
    else if (!before) here.add("DEPENDENCY_ARRAY_ADDED");
    else if (canonicalJson([...before].sort()) !== canonicalJson([...after].sort())) {
      if (before.every((d) => after.includes(d))) here.add("DEPENDENCY_ARRAY_EXTENDED");
      else if (after.every((d) => before.includes(d))) here.add("DEPENDENCY_ARRAY_NARROWED");
      else here.add("DEPENDENCY_ARRAY_CHANGED");
    }
  }
  for (const key of [...new Set([...o.dependencySchemas.keys(), ...u.dependencySchemas.keys()])].sort()) {
    const here = dependencies.enter(key);
    const before = o.dependencySchemas.get(key);
    const after = u.dependencySchemas.get(key);
    if (!after) here.add("DEPENDENCY_SCHEMA_REMOVED");
    else if (!before) here.add("DEPENDENCY_SCHEMA_ADDED");
    else compare(here, before, after);
  }

  const additional = ctx.enter("additionalProperties");
  const permitsBefore = o.additional !== false;
  const permitsAfter = u.additional !== false;
  if (permitsBefore !== permitsAfter) additional.add(permitsAfter ? "ADDITIONAL_PROPERTIES_ADDED" : "ADDITIONAL_PROPERTIES_REMOVED");
  else if (o.additional === true && typeof u.additional === "object") additional.add("ADDITIONAL_PROPERTIES_NARROWED");
  else if (typeof o.additional === "object" && u.additional === true) additional.add("ADDITIONAL_PROPERTIES_EXTENDED");
  else if (typeof o.additional === "object" && typeof u.additional === "object") compare(additional, o.additional, u.additional);

  compareLimit(ctx, "maxProperties", "MAX_PROPERTIES", o.maxProperties, u.maxProperties);
  compareLimit(ctx, "minProperties", "MIN_PROPERTIES", o.minProperties, u.minProperties);
}

/** A property the update no longer declares: only the update's content model decides. */
function propertyRemoved(here: DiffContext, key: string, before: JsonNode, u: ObjectNode): void {
  if (isOpenObject(u)) return here.add("PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL");
  const partial = partialSchemaFor(u, key);
  if (partial) {
    const sub = tryCompare(here, before, partial);
    here.addAll(sub.differences);
    return here.add(sub.compatible ? "PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL" : "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL");
  }
  here.add(deref(before).kind === "false" ? "PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL" : "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL");
}

/** A property the original did not declare: only the original's content model decides. */
function propertyAdded(here: DiffContext, key: string, after: JsonNode, o: ObjectNode, u: ObjectNode): void {
  if (isOpenObject(o)) {
    return here.add(deref(after).kind === "empty" ? "PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL" : "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", {
      update: describeJson(after),
    });
  }
  const partial = partialSchemaFor(o, key);
  if (partial) {
    const sub = tryCompare(here, partial, after);
    here.addAll(sub.differences);
    here.add(sub.compatible ? "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL" : "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL");
  }
  if (u.required.has(key)) {
    here.add(deref(after).meta.hasDefault ? "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL" : "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL");
  } else {
    here.add("OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL");
  }
}

type ArrayNode = JsonNode & { kind: "array" };

function compareArray(ctx: DiffContext, o: ArrayNode, u: ArrayNode): void {
  compare(ctx.enter("items", "[]"), o.allItems, u.allItems);

  const shared = Math.min(o.tuple.length, u.tuple.length);
  for (let i = 0; i < Math.max(o.tuple.length, u.tuple.length); i++) {
    const here = ctx.enter(`items/${i}`, `[${i}]`);
    const before = o.tuple[i];
    const after = u.tuple[i];
    if (i < shared) compare(here, before, after);
    else if (before) itemRemoved(here, before, u);
    else if (after) itemAdded(here, after, o);
  }

  const additional = ctx.enter("additionalItems");
  const permitsBefore = o.additional !== false;
  const permitsAfter = u.additional !== false;
  if (permitsBefore !== permitsAfter) additional.add(permitsAfter ? "ADDITIONAL_ITEMS_ADDED" : "ADDITIONAL_ITEMS_REMOVED");
  else if (o.additional === true && typeof u.additional === "object") additional.add("ADDITIONAL_ITEMS_NARROWED");
  else if (typeof o.additional === "object" && u.additional === true) additional.add("ADDITIONAL_ITEMS_EXTENDED");
  else if (typeof o.additional === "object" && typeof u.additional === "object") compare(additional, o.additional, u.additional);

  compareLimit(ctx, "maxItems", "MAX_ITEMS", o.maxItems, u.maxItems);
  compareLimit(ctx, "minItems", "MIN_ITEMS", o.minItems, u.minItems);
  if (o.uniqueItems !== u.uniqueItems) ctx.add(o.uniqueItems ? "UNIQUE_ITEMS_REMOVED" : "UNIQUE_ITEMS_ADDED", {}, "uniqueItems");
}

function itemRemoved(here: DiffContext, before: JsonNode, u: ArrayNode): void {
  if (u.additional === true) return here.add("ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL");
  if (typeof u.additional === "object") {
    const sub = tryCompare(here, before, u.additional);
    here.addAll(sub.differences);
    return here.add(sub.compatible ? "ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL" : "ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL");
  }
  here.add(deref(before).kind === "false" ? "ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL" : "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL");
}

function itemAdded(here: DiffContext, after: JsonNode, o: ArrayNode): void {
  if (o.additional === true) return here.add(deref(after).kind === "empty" ? "ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL" : "ITEM_ADDED_TO_OPEN_CONTENT_MODEL");
  if (typeof o.additional === "object") {
    const sub = tryCompare(here, o.additional, after);
    here.addAll(sub.differences);
    return here.add(sub.compatible ? "ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL" : "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL");
  }
  here.add("ITEM_ADDED_TO_CLOSED_CONTENT_MODEL");
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
