/**
 * A generic codec driven by Kafka's own JSON message definitions
 * (src/generated/definitions.ts, generated from definitions/*.json).
 *
 * For each (message, version) the field list is compiled once into a plan:
 * which fields exist, which are nullable, tagged or compact in that version,
 * and their defaults. Encoding and decoding then walk the plan with plain
 * loops and a switch on a numeric kind (no per-field closures), so the
 * interpretation cost is paid once per version, not per request.
 *
 * Rules followed (Kafka protocol guide and generated Java code):
 * - From an API's first flexible version, strings/bytes/arrays/records are
 *   compact (uvarint length+1, 0 = null) and every struct ends with a
 *   TAGGED_FIELDS section; tagged fields are written only when they differ
 *   from their default, in ascending tag order; unknown tags are skipped.
 * - A nullable struct field is preceded by an int8 marker (−1 = null, 1 = present).
 * - Fields absent from a version are filled with their default on decode and
 *   ignored on encode.
 */
import type { FieldDefinition, MessageDefinition } from "./definition-types.ts";
import { inRange, parseVersions, propertyName } from "./definition-types.ts";
import { ProtocolError } from "./errors.ts";
import { definitions } from "./generated/definitions.ts";
import { Reader, Writer, ZERO_UUID } from "./primitives.ts";

const INT8 = 0;
const INT16 = 1;
const UINT16 = 2;
const INT32 = 3;
const INT64 = 4;
const FLOAT64 = 5;
const BOOL = 6;
const STRING = 7;
const BYTES = 8;
const RECORDS = 9;
const UUID = 10;
const STRUCT = 11;
const ARRAY = 12;

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

interface FieldPlan {
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

interface StructPlan {
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

function compileStruct(
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
function freshDefault(f: FieldPlan): unknown {
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

// ---------------------------------------------------------------- decoding

function readStruct(r: Reader, p: StructPlan): WireBody {
  const obj: WireBody = {};
  const fields = p.fields;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    obj[f.prop] = readValue(r, f);
  }
  const tagged = p.tagged;
  for (let i = 0; i < tagged.length; i++) obj[tagged[i]!.prop] = freshDefault(tagged[i]!);
  const absent = p.absent;
  for (let i = 0; i < absent.length; i++) obj[absent[i]!.prop] = freshDefault(absent[i]!);
  if (p.flexible) readTaggedSection(r, p, obj);
  return obj;
}

function readTaggedSection(r: Reader, p: StructPlan, obj: WireBody): void {
  // Writers must emit tags in ascending order, but Kafka's generated readers
  // accept any order, and so does this one.
  const count = r.uvarint();
  for (let i = 0; i < count; i++) {
    const tag = r.uvarint();
    const size = r.uvarint();
    r.need(size);
    const end = r.offset + size;
    const tagged = p.tagged;
    for (let j = 0; j < tagged.length; j++) {
      const f = tagged[j]!;
      if (f.tag === tag) {
        obj[f.prop] = readValue(new Reader(r.buf, r.offset, end), f);
        break;
      }
    }
    // Unknown tags are skipped, as the protocol requires.
    r.offset = end;
  }
}

function readValue(r: Reader, f: FieldPlan): unknown {
  switch (f.kind) {
    case INT8:
      return r.int8();
    case INT16:
      return r.int16();
    case UINT16:
      return r.uint16();
    case INT32:
      return r.int32();
    case INT64:
      return r.int64();
    case FLOAT64:
      return r.float64();
    case BOOL:
      return r.bool();
    case STRING:
      if (f.compact) return f.nullable ? r.compactNullableString() : r.compactString();
      return f.nullable ? r.nullableString() : r.string();
    case BYTES:
    case RECORDS:
      if (f.compact) return f.nullable ? r.compactNullableBytes() : r.compactBytes();
      return f.nullable ? r.nullableBytes() : r.bytes();
    case UUID:
      return r.uuid();
    case STRUCT:
      if (f.nullable && r.int8() < 0) return null;
      return readStruct(r, f.struct!);
    case ARRAY: {
      const n = f.compact ? r.compactArrayLength() : r.arrayLength();
      if (n < 0) {
        if (!f.nullable) throw new ProtocolError(`null array in non-nullable field ${f.name}`);
        return null;
      }
      const out = new Array<unknown>(n);
      const elem = f.elem!;
      if (elem.kind === STRUCT) {
        const sp = elem.struct!;
        for (let i = 0; i < n; i++) out[i] = readStruct(r, sp);
      } else {
        for (let i = 0; i < n; i++) out[i] = readValue(r, elem);
      }
      return out;
    }
    default:
      throw new Error(`unknown field kind ${f.kind}`);
  }
}

// ---------------------------------------------------------------- encoding

function writeStruct(w: Writer, p: StructPlan, obj: WireBody | undefined): void {
  const fields = p.fields;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    writeValue(w, f, obj === undefined ? undefined : obj[f.prop]);
  }
  if (p.flexible) writeTaggedSection(w, p, obj);
}

function writeTaggedSection(w: Writer, p: StructPlan, obj: WireBody | undefined): void {
  const tagged = p.tagged;
  if (tagged.length === 0 || obj === undefined) {
    w.uvarint(0);
    return;
  }
  let count = 0;
  for (let i = 0; i < tagged.length; i++) {
    const v = obj[tagged[i]!.prop];
    if (v !== undefined && !isDefault(tagged[i]!, v)) count++;
  }
  w.uvarint(count);
  if (count === 0) return;
  for (let i = 0; i < tagged.length; i++) {
    const f = tagged[i]!;
    const v = obj[f.prop];
    if (v === undefined || isDefault(f, v)) continue;
    // The size precedes the value, so tagged values (rare) go through a scratch writer.
    const scratch = new Writer(64);
    writeValue(scratch, f, v);
    w.uvarint(f.tag);
    w.uvarint(scratch.offset);
    w.raw(scratch.toBuffer());
  }
}

function isDefault(f: FieldPlan, v: unknown): boolean {
  if (v === null) return f.defaultIsNull;
  if (f.defaultIsNull) return false;
  switch (f.kind) {
    case ARRAY:
      return Array.isArray(v) && v.length === 0;
    case BYTES:
      return v instanceof Uint8Array && v.length === 0;
    case STRUCT: {
      const p = f.struct!;
      if (typeof v !== "object") return false;
      const o = v as WireBody;
      for (const g of p.fields) if (o[g.prop] !== undefined && !isDefault(g, o[g.prop])) return false;
      for (const g of p.tagged) if (o[g.prop] !== undefined && !isDefault(g, o[g.prop])) return false;
      return true;
    }
    case INT64:
      return typeof v === "bigint" ? v === f.scalarDefault : BigInt(v as number) === f.scalarDefault;
    default:
      return v === f.scalarDefault;
  }
}

function notNullable(f: FieldPlan): ProtocolError {
  return new ProtocolError(`field ${f.name} is null but not nullable in this version`);
}

function writeValue(w: Writer, f: FieldPlan, v: unknown): void {
  if (v === undefined) {
    if (f.defaultIsNull) v = null;
    else if (f.kind !== STRUCT) v = f.kind === ARRAY ? EMPTY_ARRAY : f.kind === BYTES ? EMPTY_BYTES : f.scalarDefault;
  }
  switch (f.kind) {
    case INT8:
      w.int8(v as number);
      return;
    case INT16:
      w.int16(v as number);
      return;
    case UINT16:
      w.uint16(v as number);
      return;
    case INT32:
      w.int32(v as number);
      return;
    case INT64:
      w.int64(typeof v === "bigint" ? v : BigInt(v as number));
      return;
    case FLOAT64:
      w.float64(v as number);
      return;
    case BOOL:
      w.bool(v === true);
      return;
    case STRING:
      if (v === null) {
        if (!f.nullable) throw notNullable(f);
        if (f.compact) w.uvarint(0);
        else w.int16(-1);
      } else if (f.compact) w.compactString(v as string);
      else w.string(v as string);
      return;
    case BYTES:
    case RECORDS:
      if (v === null) {
        if (!f.nullable) throw notNullable(f);
        if (f.compact) w.uvarint(0);
        else w.int32(-1);
      } else if (f.compact) w.compactBytes(v as Uint8Array);
      else w.bytes(v as Uint8Array);
      return;
    case UUID:
      w.uuid(v as string);
      return;
    case STRUCT:
      if (v === null) {
        if (!f.nullable) throw notNullable(f);
        w.int8(-1);
        return;
      }
      if (f.nullable) w.int8(1);
      writeStruct(w, f.struct!, v as WireBody | undefined);
      return;
    case ARRAY: {
      if (v === null) {
        if (!f.nullable) throw notNullable(f);
        if (f.compact) w.uvarint(0);
        else w.int32(-1);
        return;
      }
      if (!Array.isArray(v)) throw new ProtocolError(`field ${f.name} must be an array`);
      const n = v.length;
      if (f.compact) w.uvarint(n + 1);
      else w.int32(n);
      const elem = f.elem!;
      if (elem.kind === STRUCT) {
        const sp = elem.struct!;
        for (let i = 0; i < n; i++) writeStruct(w, sp, v[i] as WireBody);
      } else {
        for (let i = 0; i < n; i++) {
          if (v[i] === null || v[i] === undefined) throw new ProtocolError(`array ${f.name} has a null element`);
          writeValue(w, elem, v[i]);
        }
      }
      return;
    }
    default:
      throw new Error(`unknown field kind ${f.kind}`);
  }
}

const EMPTY_ARRAY: readonly unknown[] = Object.freeze([]);
const EMPTY_BYTES = Buffer.alloc(0);

// ---------------------------------------------------------------- registry

export type MessageKind = "request" | "response";

interface ApiEntry {
  readonly name: string;
  readonly request: MessageDefinition;
  readonly response: MessageDefinition;
  readonly minVersion: number;
  readonly maxVersion: number;
  /** First flexible version of the request (Infinity when none). */
  readonly firstFlexibleRequest: number;
  readonly firstFlexibleResponse: number;
  readonly requestPlans: (StructPlan | undefined)[];
  readonly responsePlans: (StructPlan | undefined)[];
}

const apis: (ApiEntry | undefined)[] = [];

function commonStructs(def: MessageDefinition): Map<string, readonly FieldDefinition[]> {
  return new Map((def.commonStructs ?? []).map((s) => [s.name, s.fields]));
}

function firstFlexible(def: MessageDefinition): number {
  const r = parseVersions(def.flexibleVersions);
  return r.min > r.max ? Number.POSITIVE_INFINITY : r.min;
}

{
  const byKey = new Map<number, { request?: MessageDefinition; response?: MessageDefinition }>();
  for (const d of definitions) {
    if ((d.type !== "request" && d.type !== "response") || d.apiKey === undefined) continue;
    const e = byKey.get(d.apiKey) ?? {};
    e[d.type] = d;
    byKey.set(d.apiKey, e);
  }
  for (const [key, e] of byKey) {
    if (e.request === undefined || e.response === undefined) throw new Error(`API ${key} lacks a request or response definition`);
    const range = parseVersions(e.request.validVersions);
    apis[key] = {
      name: e.request.name.replace(/Request$/, ""),
      request: e.request,
      response: e.response,
      minVersion: range.min,
      maxVersion: range.max,
      firstFlexibleRequest: firstFlexible(e.request),
      firstFlexibleResponse: firstFlexible(e.response),
      requestPlans: [],
      responsePlans: [],
    };
  }
}

function api(apiKey: number): ApiEntry {
  const e = apis[apiKey];
  if (e === undefined) throw new UnsupportedVersionError(apiKey, -1, `unknown API key ${apiKey}`);
  return e;
}

/** Thrown when asked to encode or decode an API key or version that the definitions do not contain. */
export class UnsupportedVersionError extends ProtocolError {
  constructor(
    readonly apiKey: number,
    readonly apiVersion: number,
    message = `API ${apiKey} version ${apiVersion} is not in the message definitions`,
  ) {
    super(message);
  }
}

function plan(apiKey: number, version: number, kind: MessageKind): StructPlan {
  const e = api(apiKey);
  if (!Number.isInteger(version) || version < e.minVersion || version > e.maxVersion) {
    throw new UnsupportedVersionError(apiKey, version, `${e.name} version ${version} is outside ${e.minVersion}-${e.maxVersion}`);
  }
  const plans = kind === "request" ? e.requestPlans : e.responsePlans;
  let p = plans[version];
  if (p === undefined) {
    const def = kind === "request" ? e.request : e.response;
    const flexible = version >= (kind === "request" ? e.firstFlexibleRequest : e.firstFlexibleResponse);
    p = compileStruct(def.name, def.fields, version, flexible, commonStructs(def));
    plans[version] = p;
  }
  return p;
}

/** The parsed Kafka definition (validVersions, flexibleVersions, fields; without the "about" prose). */
export function messageDefinition(apiKey: number, kind: MessageKind): MessageDefinition {
  const e = api(apiKey);
  return kind === "request" ? e.request : e.response;
}

/** Name of an API ("Produce") or `Unknown(<key>)`. */
export function apiName(apiKey: number): string {
  return apis[apiKey]?.name ?? `Unknown(${apiKey})`;
}

/** The version range in the definitions (validVersions), or null for an unknown key. */
export function apiVersionRange(apiKey: number): { min: number; max: number } | null {
  const e = apis[apiKey];
  return e === undefined ? null : { min: e.minVersion, max: e.maxVersion };
}

/** API keys present in the definitions, ascending. */
export function apiKeys(): number[] {
  const out: number[] = [];
  apis.forEach((e, k) => {
    if (e !== undefined) out.push(k);
  });
  return out;
}

/** Decodes a message body of the given API/version from the reader's position. */
export function decodeBody(apiKey: number, apiVersion: number, kind: MessageKind, r: Reader): WireBody {
  return readStruct(r, plan(apiKey, apiVersion, kind));
}

/** Encodes a message body; absent properties take the definition's default. */
export function encodeBody(apiKey: number, apiVersion: number, kind: MessageKind, w: Writer, body: object): void {
  writeStruct(w, plan(apiKey, apiVersion, kind), body as WireBody);
}

// ---------------------------------------------------------------- headers

/**
 * Request header version: v2 (with tagged fields) from the API's first
 * flexible version, else v1. ControlledShutdown v0 alone used v0 (no client id).
 * Unknown API keys are assumed to use v1.
 */
export function requestHeaderVersion(apiKey: number, apiVersion: number): 0 | 1 | 2 {
  if (apiKey === 7 && apiVersion === 0) return 0;
  const e = apis[apiKey];
  return e !== undefined && apiVersion >= e.firstFlexibleRequest ? 2 : 1;
}

/**
 * Response header version: v1 (with tagged fields) for flexible versions,
 * except ApiVersions, whose responses always use v0 so that a client can
 * parse the header whatever version it asked for.
 */
export function responseHeaderVersion(apiKey: number, apiVersion: number): 0 | 1 {
  if (apiKey === 18) return 0;
  const e = apis[apiKey];
  return e !== undefined && apiVersion >= e.firstFlexibleResponse ? 1 : 0;
}
