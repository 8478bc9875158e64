import { compareLimit, tryCompare, type Compare, type DiffContext } from "./json-schema-differences.ts";
import { canonicalJson, deref, describeJson, type JsonNode } from "./json-schema-model.ts";

/*
 * Objects and arrays under the JSON Schema compatibility rules: what their
 * content model (open, closed, partially open) makes of an added or removed
 * property or tuple item. Sub-schemas go back through `compare`.
 */

export type ObjectNode = JsonNode & { kind: "object" };

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

export function compareObject(compare: Compare, ctx: DiffContext, o: ObjectNode, u: ObjectNode): void {
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
    else if (before) propertyRemoved(compare, here, key, before, u);
    else if (after) propertyAdded(compare, here, key, after, o, u);
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
function propertyRemoved(compare: Compare, here: DiffContext, key: string, before: JsonNode, u: ObjectNode): void {
  if (isOpenObject(u)) return here.add("PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL");
  const partial = partialSchemaFor(u, key);
  if (partial) {
    const sub = tryCompare(compare, here, before, partial);
    here.addAll(sub.differences);
    return here.add(sub.compatible ? "PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL" : "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL");
  }
  here.add(deref(before).kind === "false" ? "PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL" : "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL");
}

/** A property the original did not declare: only the original's content model decides. */
function propertyAdded(compare: Compare, here: DiffContext, key: string, after: JsonNode, o: ObjectNode, u: ObjectNode): void {
  if (isOpenObject(o)) {
    return here.add(deref(after).kind === "empty" ? "PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL" : "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", {
      update: describeJson(after),
    });
  }
  const partial = partialSchemaFor(o, key);
  if (partial) {
    const sub = tryCompare(compare, here, partial, after);
    here.addAll(sub.differences);
    here.add(sub.compatible ? "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL" : "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL");
  }
  if (u.required.has(key)) {
    here.add(deref(after).meta.hasDefault ? "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL" : "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL");
  } else {
    here.add("OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL");
  }
}

export type ArrayNode = JsonNode & { kind: "array" };

export function compareArray(compare: Compare, ctx: DiffContext, o: ArrayNode, u: ArrayNode): void {
  compare(ctx.enter("items", "[]"), o.allItems, u.allItems);

  const shared = Math.min(o.tuple.length, u.tuple.length);
  for (let i = 0; i < Math.max(o.tuple.length, u.tuple.length); i++) {
    const here = ctx.enter(`items/${i}`, `[${i}]`);
    const before = o.tuple[i];
    const after = u.tuple[i];
    if (i < shared) compare(here, before, after);
    else if (before) itemRemoved(compare, here, before, u);
    else if (after) itemAdded(compare, here, after, o);
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

function itemRemoved(compare: Compare, here: DiffContext, before: JsonNode, u: ArrayNode): void {
  if (u.additional === true) return here.add("ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL");
  if (typeof u.additional === "object") {
    const sub = tryCompare(compare, here, before, u.additional);
    here.addAll(sub.differences);
    return here.add(sub.compatible ? "ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL" : "ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL");
  }
  here.add(deref(before).kind === "false" ? "ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL" : "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL");
}

function itemAdded(compare: Compare, here: DiffContext, after: JsonNode, o: ArrayNode): void {
  if (o.additional === true) return here.add(deref(after).kind === "empty" ? "ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL" : "ITEM_ADDED_TO_OPEN_CONTENT_MODEL");
  if (typeof o.additional === "object") {
    const sub = tryCompare(compare, here, o.additional, after);
    here.addAll(sub.differences);
    return here.add(sub.compatible ? "ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL" : "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL");
  }
  here.add("ITEM_ADDED_TO_CLOSED_CONTENT_MODEL");
}
