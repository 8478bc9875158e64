import type { AvroReadIssue } from "./avro-compatibility.ts";
import type { JsonDifference } from "./json-schema-compatibility.ts";
import type { CompatibilityMode, Direction } from "./modes.ts";

/**
 * Sentences for incompatibilities. The checks speak of readers and writers;
 * owners think of a change from an old version to a new one, so each sentence
 * names the change (old → new) first, then who cannot read what:
 * "field `amountCents` added without a default: readers of v3 cannot read data
 * written with v2 under BACKWARD".
 */
export interface MessageContext {
  direction: Direction;
  /** The proposed version and the earlier one it was checked against. */
  newVersion: number;
  oldVersion: number;
  mode: CompatibilityMode;
}

function versions(ctx: MessageContext) {
  const readerIsNew = ctx.direction === "BACKWARD";
  return {
    readerIsNew,
    reader: readerIsNew ? ctx.newVersion : ctx.oldVersion,
    writer: readerIsNew ? ctx.oldVersion : ctx.newVersion,
  };
}

function consequence(ctx: MessageContext): string {
  const { reader, writer } = versions(ctx);
  return `readers of v${reader} cannot read data written with v${writer} under ${ctx.mode}`;
}

function code(text: string): string {
  return `\`${text}\``;
}

function list(names: string[]): string {
  return names.map(code).join(", ");
}

/** "field `customer.email`", or "the record" at the top level. */
function avroSubject(path: string): string {
  return path ? `field ${code(path)}` : "the record";
}

export function avroMessage(issue: AvroReadIssue, ctx: MessageContext): string {
  const { readerIsNew } = versions(ctx);
  const at = avroSubject(issue.path);
  const [oldType, newType] = readerIsNew ? [issue.writer, issue.reader] : [issue.reader, issue.writer];
  let what: string;
  switch (issue.rule) {
    case "READER_FIELD_MISSING_DEFAULT_VALUE":
      what = `${at} ${readerIsNew ? "added" : "removed"} without a default`;
      break;
    case "TYPE_MISMATCH":
      what = `${at} changed type from ${oldType} to ${newType}`;
      break;
    case "NAME_MISMATCH": {
      const [writerName = "?", readerName = "?"] = issue.names;
      const [from, to] = readerIsNew ? [writerName, readerName] : [readerName, writerName];
      what = readerIsNew
        ? `${at} renamed from ${code(from)} to ${code(to)} without an alias for the old name`
        : `${at} renamed from ${code(from)} to ${code(to)}, a name v${ctx.oldVersion} has no alias for`;
      break;
    }
    case "FIXED_SIZE_MISMATCH": {
      const [writerSize, readerSize] = issue.names;
      const [from, to] = readerIsNew ? [writerSize, readerSize] : [readerSize, writerSize];
      what = `${at} changed its fixed size from ${from} to ${to} bytes`;
      break;
    }
    case "MISSING_ENUM_SYMBOLS":
      what = readerIsNew
        ? `${at} lost enum symbol${issue.names.length > 1 ? "s" : ""} ${list(issue.names)} and has no enum default to read ${issue.names.length > 1 ? "them" : "it"} as`
        : `${at} gained enum symbol${issue.names.length > 1 ? "s" : ""} ${list(issue.names)}, which v${ctx.oldVersion} does not know and has no enum default for`;
      break;
    case "MISSING_UNION_BRANCH":
      what = readerIsNew
        ? `${at} no longer accepts ${issue.names[0] ?? issue.writer} (union branch removed or changed)`
        : `${at} now allows ${issue.names[0] ?? issue.writer}, which the union in v${ctx.oldVersion} lacks`;
      break;
  }
  return `${what}: ${consequence(ctx)}`;
}

function jsonSubject(path: string): string {
  return path ? `property ${code(path)}` : "the schema";
}

/** The keyword a limit difference is about, from its JSON path. */
function keywordOf(location: string): string {
  return location.slice(location.lastIndexOf("/") + 1);
}

export function jsonSchemaMessage(d: JsonDifference, ctx: MessageContext): string {
  const { readerIsNew } = versions(ctx);
  const at = jsonSubject(d.path);
  // For JSON Schema the writer is Confluent's `original`, the reader its `update`.
  const [oldValue, newValue] = readerIsNew ? [d.original, d.update] : [d.update, d.original];
  const old = `v${ctx.oldVersion}`;
  let what: string;
  switch (d.type) {
    case "TYPE_CHANGED":
    case "TYPE_NARROWED":
      what = `${at} changed type from ${oldValue ?? "?"} to ${newValue ?? "?"}`;
      break;
    case "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL":
      what = readerIsNew
        ? `${at} added to an open content model, where ${old} allowed any value under that name (close the model with "additionalProperties": false first)`
        : `${at} removed, and the open content model of v${ctx.newVersion} lets it hold any value`;
      break;
    case "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL":
      what = readerIsNew ? `${at} removed from a closed content model ("additionalProperties": false)` : `${at} added, but ${old} has a closed content model`;
      break;
    case "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL":
      what = readerIsNew
        ? `${at} added with a schema the patternProperties/additionalProperties of ${old} do not cover`
        : `${at} removed, and the patternProperties/additionalProperties of v${ctx.newVersion} allow values ${old} refuses`;
      break;
    case "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL":
      what = readerIsNew
        ? `${at} removed, and the remaining patternProperties/additionalProperties refuse values ${old} allowed`
        : `${at} added with a schema the patternProperties/additionalProperties of ${old} do not cover`;
      break;
    case "REQUIRED_ATTRIBUTE_ADDED":
      what = readerIsNew ? `${at} made required without a default` : `${at} no longer required, but ${old} requires it`;
      break;
    case "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL":
      what = readerIsNew ? `required ${at} added without a default` : `required ${at} removed`;
      break;
    case "ENUM_ARRAY_NARROWED":
      what = readerIsNew ? `${at} lost enum values ${d.original}` : `${at} gained enum values ${d.original}, which ${old} does not allow`;
      break;
    case "ENUM_ARRAY_CHANGED": {
      const [removed, added] = readerIsNew ? [d.original, d.update] : [d.update, d.original];
      what = `${at} changed its enum values (removed ${removed}, added ${added})`;
      break;
    }
    case "ADDITIONAL_PROPERTIES_REMOVED":
      what = readerIsNew ? `${at} closed its content model ("additionalProperties": false)` : `${at} opened its content model, which ${old} keeps closed`;
      break;
    case "ADDITIONAL_PROPERTIES_NARROWED":
      what = readerIsNew ? `${at} now constrains additional properties with a schema` : `${at} no longer constrains additional properties as ${old} does`;
      break;
    case "ADDITIONAL_ITEMS_REMOVED":
      what = readerIsNew ? `${at} no longer allows additional items` : `${at} now allows additional items, which ${old} refuses`;
      break;
    case "ADDITIONAL_ITEMS_NARROWED":
      what = readerIsNew ? `${at} now constrains additional items with a schema` : `${at} no longer constrains additional items as ${old} does`;
      break;
    case "SCHEMA_ADDED":
      what = readerIsNew ? `${at} gained a schema where ${old} allowed any value` : `${at} lost its schema, so v${ctx.newVersion} allows values ${old} refuses`;
      break;
    case "ITEM_ADDED_TO_OPEN_CONTENT_MODEL":
      what = readerIsNew ? `${at} added as a positional item where ${old} allowed any item` : `${at} removed from the positional items, leaving any item allowed there`;
      break;
    case "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL":
      what = readerIsNew ? `${at} removed from the positional items of a closed array` : `${at} added as a positional item, but ${old} allows no additional items`;
      break;
    case "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL":
    case "ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL":
      what = `${at} changed the positional items so that the additionalItems schema no longer covers them`;
      break;
    case "COMBINED_TYPE_CHANGED":
      what = `${at} changed from ${oldValue ?? "?"} to ${newValue ?? "?"}`;
      break;
    case "COMBINED_TYPE_SUBSCHEMAS_CHANGED":
      what = `${at} changed its alternatives so that some of v${versions(ctx).writer} match none of v${versions(ctx).reader}`;
      break;
    case "SUM_TYPE_NARROWED":
      what = readerIsNew ? `${at} lost alternatives (anyOf/oneOf)` : `${at} gained alternatives (anyOf/oneOf) that ${old} does not accept`;
      break;
    case "PRODUCT_TYPE_EXTENDED":
      what = readerIsNew ? `${at} gained constraints (allOf)` : `${at} dropped constraints (allOf) that ${old} requires`;
      break;
    case "NOT_TYPE_EXTENDED":
      what = readerIsNew ? `${at} excludes more values with "not"` : `${at} excludes fewer values with "not" than ${old}`;
      break;
    case "UNIQUE_ITEMS_ADDED":
      what = readerIsNew ? `${at} now requires unique items` : `${at} no longer requires unique items, but ${old} does`;
      break;
    default: {
      if (/_(ADDED|REMOVED|INCREASED|DECREASED|CHANGED|EXPANDED|REDUCED|EXTENDED|NARROWED)$/.test(d.type) && (d.original !== undefined || d.update !== undefined)) {
        what = `${at}: ${keywordOf(d.location)} changed from ${oldValue ?? "none"} to ${newValue ?? "none"}`;
      } else {
        what = `${at}: ${d.type.toLowerCase().replaceAll("_", " ")}`;
      }
    }
  }
  return `${what}: ${consequence(ctx)}`;
}
