import type { JsonNode } from "./json-schema-model.ts";

/*
 * The vocabulary of JSON Schema compatibility (json-schema-compatibility.ts):
 * Confluent's difference types, which of them keep a schema compatible, and
 * the context a comparison walks with.
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
export class DiffContext {
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

/** The recursive comparison, handed to the parts that compare sub-schemas (objects, arrays). */
export type Compare = (ctx: DiffContext, original: JsonNode | undefined, update: JsonNode | undefined) => void;

/** A sub-comparison whose result is kept only if it is compatible. */
export function tryCompare(compare: Compare, ctx: DiffContext, original: JsonNode, update: JsonNode): DiffContext {
  const sub = ctx.scratch();
  compare(sub, original, update);
  return sub;
}

/** ADDED / REMOVED / INCREASED / DECREASED for an optional numeric keyword. */
export function compareLimit(ctx: DiffContext, keyword: string, prefix: string, original: number | undefined, update: number | undefined): void {
  if (original === update) return;
  const values = { original: original ?? "none", update: update ?? "none" };
  if (original === undefined) ctx.add(`${prefix}_ADDED`, values, keyword);
  else if (update === undefined) ctx.add(`${prefix}_REMOVED`, values, keyword);
  else ctx.add(original < update ? `${prefix}_INCREASED` : `${prefix}_DECREASED`, values, keyword);
}
