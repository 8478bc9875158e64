/**
 * Compiling Kafka's JSON field definitions into per-version plans: for one
 * (message, version), which fields exist, which are nullable, tagged or
 * compact, their wire kind and their default. Compiled once per version so
 * that encoding and decoding (plan-codec.ts) walk plain arrays with a switch
 * on a numeric kind instead of re-reading the definitions per request.
 *
 * Rules: from an API's first flexible version strings/bytes/arrays/records
 * are compact unless the field's own flexibleVersions says otherwise;
 * fields absent from a version are filled with their default on decode.
 */
import type { FieldDefinition } from "./definition-types.ts";
import { inRange, parseVersions, propertyName } from "./definition-types.ts";
import { ZERO_UUID } from "./uuid.ts";

export const INT8 = 0;
export const INT16 = 1;
export const UINT16 = 2;
export const INT32 = 3;
export const INT64 = 4;
export const FLOAT64 = 5;
export const BOOL = 6;
export const STRING = 7;
export const BYTES = 8;
export const RECORDS = 9;
export const UUID = 10;
export const STRUCT = 11;
export const ARRAY = 12;

const PRIMITIVE_KIND: Readonly<Record<string, number>> = {
  int8: INT8,
  int16: INT16,
  uint16: UINT16,
  int32: INT32,
  int64: INT64,
  float64: FLOAT64,
  bool: BOOL,
  string: STRING,
  bytes: BYTES,
  records: RECORDS,
  uuid: UUID,
};

export interface FieldPlan {
  readonly name: string;
  readonly prop: string;
  readonly kind: number;
  /** For arrays: the element, as a pseudo-field (never nullable, never tagged). */
  readonly elem: FieldPlan | null;
  /** For structs and arrays of structs. */
  readonly struct: StructPlan | null;
  readonly nullable: boolean;
  readonly compact: boolean;
  /** Tag number when the field is tagged in this version, else −1. */
  readonly tag: number;
  readonly defaultIsNull: boolean;
  /** Immutable default for scalar kinds (number, bigint, boolean, string). */
  readonly scalarDefault: unknown;
}

export interface StructPlan {
  readonly name: string;
  readonly version: number;
  readonly flexible: boolean;
  /** Regular fields present in this version, in wire order. */
  readonly fields: readonly FieldPlan[];
  /** Tagged fields of this version, ascending by tag. */
  readonly tagged: readonly FieldPlan[];
  /** Fields not present in this version (filled with defaults on decode). */
  readonly absent: readonly FieldPlan[];
}

/** A decoded or to-be-encoded message body: property names as in the generated interfaces. */
export type WireBody = Record<string, unknown>;

function scalarDefault(kind: number, raw: FieldDefinition["default"], fieldName: string): unknown {
  switch (kind) {
    case INT8:
    case INT16:
    case UINT16:
    case INT32:
    case FLOAT64: {
      if (raw === undefined || raw === "") return 0;
      const n = Number(raw);
      if (Number.isNaN(n)) throw new Error(`bad default ${String(raw)} for ${fieldName}`);
      return n;
    }
    case INT64:
      return raw === undefined || raw === "" ? 0n : BigInt(raw);
    case BOOL:
      return raw === true || raw === "true";
    case STRING:
      return raw === undefined || raw === "null" ? "" : String(raw);
    case UUID:
      return ZERO_UUID;
    default:
      return undefined;
  }
}

export function compileStruct(
  name: string,
  fieldDefs: readonly FieldDefinition[],
  version: number,
  flexible: boolean,
  common: ReadonlyMap<string, readonly FieldDefinition[]>,
): StructPlan {
  const fields: FieldPlan[] = [];
  const tagged: FieldPlan[] = [];
  const absent: FieldPlan[] = [];
  for (const f of fieldDefs) {
    const isArray = f.type.startsWith("[]");
    const base = isArray ? f.type.slice(2) : f.type;
    const compact =
      flexible && (f.flexibleVersions === undefined || inRange(parseVersions(f.flexibleVersions), version));
    const primitive = PRIMITIVE_KIND[base];
    let struct: StructPlan | null = null;
    if (primitive === undefined) {
      const nested = f.fields ?? common.get(base);
      if (nested === undefined) throw new Error(`${name}.${f.name}: unknown type ${f.type}`);
      struct = compileStruct(base, nested, version, flexible, common);
    }
    const elemKind = primitive ?? STRUCT;
    const isTagged = f.taggedVersions !== undefined && inRange(parseVersions(f.taggedVersions), version);
    const plan: FieldPlan = {
      name: f.name,
      prop: propertyName(f.name),
      kind: isArray ? ARRAY : elemKind,
      elem: isArray
        ? {
            name: `${f.name}[]`,
            prop: "",
            kind: elemKind,
            elem: null,
            struct,
            nullable: false,
            compact,
            tag: -1,
            defaultIsNull: false,
            scalarDefault: scalarDefault(elemKind, undefined, f.name),
          }
        : null,
      struct,
      nullable: inRange(parseVersions(f.nullableVersions), version),
      compact,
      tag: isTagged ? (f.tag ?? -1) : -1,
      // records fields default to null, as in Kafka's generated code.
      defaultIsNull: f.default === "null" || (elemKind === RECORDS && !isArray),
      scalarDefault: isArray ? undefined : scalarDefault(elemKind, f.default, f.name),
    };
    if (isTagged && plan.tag < 0) throw new Error(`${name}.${f.name}: tagged field without a tag`);
    if (!inRange(parseVersions(f.versions), version)) absent.push(plan);
    else if (isTagged) tagged.push(plan);
    else fields.push(plan);
  }
  tagged.sort((a, b) => a.tag - b.tag);
  return { name, version, flexible, fields, tagged, absent };
}

/** A fresh default value for decode output (arrays, buffers and structs must not be shared between bodies). */
export function freshDefault(f: FieldPlan): unknown {
  if (f.defaultIsNull) return null;
  switch (f.kind) {
    case ARRAY:
      return [];
    case BYTES:
      return Buffer.alloc(0);
    case STRUCT:
      return defaultStruct(f.struct!);
    default:
      return f.scalarDefault;
  }
}

function defaultStruct(p: StructPlan): WireBody {
  const obj: WireBody = {};
  for (const f of p.fields) obj[f.prop] = freshDefault(f);
  for (const f of p.tagged) obj[f.prop] = freshDefault(f);
  for (const f of p.absent) obj[f.prop] = freshDefault(f);
  return obj;
}
