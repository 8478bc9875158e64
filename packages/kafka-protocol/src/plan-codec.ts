/**
 * Encoding and decoding a message body by walking its compiled plan
 * (message-plan.ts) with plain loops and a switch on a numeric kind (no
 * per-field closures), so the interpretation cost is paid once per
 * version, not per request.
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

import { ProtocolError } from "./errors.ts";
import {
  INT8,
  INT16,
  UINT16,
  INT32,
  INT64,
  FLOAT64,
  BOOL,
  STRING,
  BYTES,
  RECORDS,
  UUID,
  STRUCT,
  ARRAY,
  freshDefault,
  type FieldPlan,
  type StructPlan,
  type WireBody,
} from "./message-plan.ts";
import { Reader } from "./reader.ts";
import { Writer } from "./writer.ts";

const EMPTY_ARRAY: readonly unknown[] = Object.freeze([]);
const EMPTY_BYTES = Buffer.alloc(0);

// ---------------------------------------------------------------- decoding

export function readStruct(r: Reader, p: StructPlan): WireBody {
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

export function writeStruct(w: Writer, p: StructPlan, obj: WireBody | undefined): void {
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
