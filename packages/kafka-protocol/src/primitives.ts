import { ProtocolError } from "./errors.ts";

/**
 * Kafka wire primitives (https://kafka.apache.org/protocol#protocol_types).
 *
 * Classic types: big-endian fixed-width integers; STRING = int16 length +
 * UTF-8 (−1 = null when nullable); BYTES = int32 length (−1 = null);
 * ARRAY = int32 count (−1 = null).
 * Flexible ("compact") types, used from an API's first flexible version:
 * COMPACT_STRING / COMPACT_BYTES / COMPACT_ARRAY = unsigned varint (length+1),
 * 0 = null. Every flexible struct ends with TAGGED_FIELDS: uvarint count, then
 * per field uvarint tag, uvarint size, bytes.
 * Zigzag varints/varlongs appear only inside record batches.
 *
 * UUIDs are represented as strings in Kafka's own text form (Uuid.toString):
 * 22 characters of unpadded base64url over the 16 bytes.
 */

const UUID_BYTES = 16;
export const ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA";

const TWO_POW_32 = 4294967296;

export class Reader {
  readonly buf: Buffer;
  offset: number;
  /** Exclusive end of the readable region; reads never go past it. */
  readonly end: number;

  constructor(buf: Buffer, offset = 0, end = buf.length) {
    if (offset < 0 || end > buf.length || offset > end) {
      throw new ProtocolError(`invalid reader window ${offset}..${end} over ${buf.length} bytes`);
    }
    this.buf = buf;
    this.offset = offset;
    this.end = end;
  }

  remaining(): number {
    return this.end - this.offset;
  }

  /** Every read checks this first so that a truncated frame is a ProtocolError, never a RangeError or garbage. */
  need(n: number): void {
    if (this.offset + n > this.end) {
      throw new ProtocolError(`need ${n} bytes at offset ${this.offset}, only ${this.end - this.offset} left`);
    }
  }

  int8(): number {
    this.need(1);
    return this.buf.readInt8(this.offset++);
  }

  bool(): boolean {
    return this.int8() !== 0;
  }

  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.offset);
    this.offset += 2;
    return v;
  }

  uint16(): number {
    this.need(2);
    const v = this.buf.readUInt16BE(this.offset);
    this.offset += 2;
    return v;
  }

  int32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.offset);
    this.offset += 4;
    return v;
  }

  uint32(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.offset);
    this.offset += 4;
    return v;
  }

  int64(): bigint {
    this.need(8);
    const v = this.buf.readBigInt64BE(this.offset);
    this.offset += 8;
    return v;
  }

  float64(): number {
    this.need(8);
    const v = this.buf.readDoubleBE(this.offset);
    this.offset += 8;
    return v;
  }

  /** UNSIGNED_VARINT: at most 5 bytes, value < 2^32 (Kafka's ByteUtils.readUnsignedVarint). */
  uvarint(): number {
    const buf = this.buf;
    let o = this.offset;
    if (o >= this.end) this.need(1);
    let b = buf[o++]!;
    if (b < 0x80) {
      this.offset = o;
      return b;
    }
    let value = b & 0x7f;
    let mul = 128;
    for (let i = 1; i < 5; i++) {
      if (o >= this.end) {
        this.offset = o;
        this.need(1);
      }
      b = buf[o++]!;
      value += (b & 0x7f) * mul;
      if (b < 0x80) {
        if (value >= TWO_POW_32) throw new ProtocolError(`unsigned varint ${value} does not fit in 32 bits`);
        this.offset = o;
        return value;
      }
      mul *= 128;
    }
    throw new ProtocolError(`unsigned varint at offset ${this.offset} is longer than 5 bytes`);
  }

  /** Zigzag-encoded signed 32-bit varint (record fields). */
  varint(): number {
    const u = this.uvarint();
    return (u >>> 1) ^ -(u & 1);
  }

  /**
   * Zigzag varlong as a JS number. Record timestamp deltas fit easily in 2^53;
   * a value that does not is rejected rather than silently rounded.
   */
  varlongNumber(): number {
    const buf = this.buf;
    let o = this.offset;
    let value = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (o >= this.end) {
        this.offset = o;
        this.need(1);
      }
      const b = buf[o++]!;
      value += (b & 0x7f) * mul;
      if (b < 0x80) {
        if (value > Number.MAX_SAFE_INTEGER) throw new ProtocolError("varlong does not fit in a safe JS integer");
        this.offset = o;
        // zigzag: even → value/2, odd → −(value+1)/2
        return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
      }
      mul *= 128;
    }
    throw new ProtocolError(`varlong at offset ${this.offset} is longer than 10 bytes`);
  }

  /** Zigzag varlong as a bigint (full 64-bit range). */
  varlong(): bigint {
    let value = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      this.need(1);
      const b = this.buf[this.offset++]!;
      value |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return (value >> 1n) ^ -(value & 1n);
      shift += 7n;
    }
    throw new ProtocolError(`varlong at offset ${this.offset} is longer than 10 bytes`);
  }

  private utf8(len: number): string {
    this.need(len);
    const start = this.offset;
    this.offset += len;
    return this.buf.toString("utf8", start, start + len);
  }

  string(): string {
    const len = this.int16();
    if (len < 0) throw new ProtocolError(`null or negative length ${len} for a non-nullable string`);
    return this.utf8(len);
  }

  nullableString(): string | null {
    const len = this.int16();
    if (len === -1) return null;
    if (len < 0) throw new ProtocolError(`invalid string length ${len}`);
    return this.utf8(len);
  }

  compactString(): string {
    const n = this.uvarint();
    if (n === 0) throw new ProtocolError("null compact string in a non-nullable field");
    return this.utf8(n - 1);
  }

  compactNullableString(): string | null {
    const n = this.uvarint();
    if (n === 0) return null;
    return this.utf8(n - 1);
  }

  /** Returns a view into the frame (no copy): callers that keep it beyond the frame's lifetime must copy. */
  raw(len: number): Buffer {
    this.need(len);
    const start = this.offset;
    this.offset += len;
    return this.buf.subarray(start, start + len);
  }

  skip(len: number): void {
    this.need(len);
    this.offset += len;
  }

  bytes(): Buffer {
    const len = this.int32();
    if (len < 0) throw new ProtocolError(`null or negative length ${len} for non-nullable bytes`);
    return this.raw(len);
  }

  nullableBytes(): Buffer | null {
    const len = this.int32();
    if (len === -1) return null;
    if (len < 0) throw new ProtocolError(`invalid bytes length ${len}`);
    return this.raw(len);
  }

  compactBytes(): Buffer {
    const n = this.uvarint();
    if (n === 0) throw new ProtocolError("null compact bytes in a non-nullable field");
    return this.raw(n - 1);
  }

  compactNullableBytes(): Buffer | null {
    const n = this.uvarint();
    if (n === 0) return null;
    return this.raw(n - 1);
  }

  uuid(): string {
    this.need(UUID_BYTES);
    const start = this.offset;
    this.offset += UUID_BYTES;
    return this.buf.toString("base64url", start, start + UUID_BYTES);
  }

  /**
   * Classic array count; −1 = null. A count larger than the remaining bytes
   * cannot be honest (every element takes at least one byte), so it is
   * rejected before anything is allocated.
   */
  arrayLength(): number {
    const n = this.int32();
    if (n === -1) return -1;
    if (n < 0) throw new ProtocolError(`invalid array length ${n}`);
    if (n > this.end - this.offset) throw new ProtocolError(`array length ${n} exceeds the ${this.end - this.offset} remaining bytes`);
    return n;
  }

  /** Compact array count (uvarint count+1); −1 = null. */
  compactArrayLength(): number {
    const n = this.uvarint() - 1;
    if (n > this.end - this.offset) throw new ProtocolError(`array length ${n} exceeds the ${this.end - this.offset} remaining bytes`);
    return n;
  }

  array<T>(readElement: (r: Reader) => T): T[] {
    const n = this.arrayLength();
    if (n < 0) throw new ProtocolError("null array in a non-nullable field");
    const out = new Array<T>(n);
    for (let i = 0; i < n; i++) out[i] = readElement(this);
    return out;
  }

  nullableArray<T>(readElement: (r: Reader) => T): T[] | null {
    const n = this.arrayLength();
    if (n < 0) return null;
    const out = new Array<T>(n);
    for (let i = 0; i < n; i++) out[i] = readElement(this);
    return out;
  }

  compactArray<T>(readElement: (r: Reader) => T): T[] {
    const n = this.compactArrayLength();
    if (n < 0) throw new ProtocolError("null compact array in a non-nullable field");
    const out = new Array<T>(n);
    for (let i = 0; i < n; i++) out[i] = readElement(this);
    return out;
  }

  compactNullableArray<T>(readElement: (r: Reader) => T): T[] | null {
    const n = this.compactArrayLength();
    if (n < 0) return null;
    const out = new Array<T>(n);
    for (let i = 0; i < n; i++) out[i] = readElement(this);
    return out;
  }

  /**
   * Reads a TAGGED_FIELDS section. `onField` gets each tag with a Reader
   * limited to that field's bytes; tags it does not handle (returns false) are
   * skipped, as the protocol requires for unknown tags.
   */
  taggedFields(onField?: (tag: number, field: Reader) => boolean): void {
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      const tag = this.uvarint();
      const size = this.uvarint();
      this.need(size);
      if (onField !== undefined) {
        const sub = new Reader(this.buf, this.offset, this.offset + size);
        onField(tag, sub);
      }
      this.offset += size;
    }
  }
}

export class Writer {
  buf: Buffer;
  offset = 0;

  constructor(initialSize = 256) {
    this.buf = Buffer.allocUnsafe(Math.max(16, initialSize));
  }

  ensure(n: number): void {
    if (this.offset + n > this.buf.length) this.grow(n);
  }

  private grow(n: number): void {
    let size = this.buf.length * 2;
    while (size < this.offset + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.offset);
    this.buf = next;
  }

  /** A view of the bytes written so far (no copy). Do not keep writing after handing it out. */
  toBuffer(): Buffer {
    return this.buf.subarray(0, this.offset);
  }

  int8(v: number): this {
    this.ensure(1);
    this.buf.writeInt8(v, this.offset);
    this.offset += 1;
    return this;
  }

  bool(v: boolean): this {
    return this.int8(v ? 1 : 0);
  }

  int16(v: number): this {
    this.ensure(2);
    this.buf.writeInt16BE(v, this.offset);
    this.offset += 2;
    return this;
  }

  uint16(v: number): this {
    this.ensure(2);
    this.buf.writeUInt16BE(v, this.offset);
    this.offset += 2;
    return this;
  }

  int32(v: number): this {
    this.ensure(4);
    this.buf.writeInt32BE(v, this.offset);
    this.offset += 4;
    return this;
  }

  uint32(v: number): this {
    this.ensure(4);
    this.buf.writeUInt32BE(v, this.offset);
    this.offset += 4;
    return this;
  }

  int64(v: bigint): this {
    this.ensure(8);
    this.buf.writeBigInt64BE(v, this.offset);
    this.offset += 8;
    return this;
  }

  float64(v: number): this {
    this.ensure(8);
    this.buf.writeDoubleBE(v, this.offset);
    this.offset += 8;
    return this;
  }

  uvarint(v: number): this {
    if (!(v >= 0 && v < TWO_POW_32 && Number.isInteger(v))) {
      throw new ProtocolError(`unsigned varint out of range: ${v}`);
    }
    this.ensure(5);
    const buf = this.buf;
    let o = this.offset;
    while (v >= 0x80) {
      buf[o++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    buf[o++] = v;
    this.offset = o;
    return this;
  }

  varint(v: number): this {
    return this.uvarint(((v << 1) ^ (v >> 31)) >>> 0);
  }

  /** Zigzag varlong from a safe JS integer. */
  varlongNumber(v: number): this {
    if (!Number.isSafeInteger(v)) throw new ProtocolError(`varlong value is not a safe integer: ${v}`);
    let u = v >= 0 ? v * 2 : -v * 2 - 1;
    this.ensure(10);
    const buf = this.buf;
    let o = this.offset;
    while (u >= 0x80) {
      buf[o++] = (u % 128) | 0x80;
      u = Math.floor(u / 128);
    }
    buf[o++] = u;
    this.offset = o;
    return this;
  }

  varlong(v: bigint): this {
    let u = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
    this.ensure(10);
    while (u >= 0x80n) {
      this.buf[this.offset++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    this.buf[this.offset++] = Number(u);
    return this;
  }

  raw(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.offset);
    this.offset += b.length;
    return this;
  }

  private utf8(s: string, len: number): void {
    this.ensure(len);
    this.offset += this.buf.write(s, this.offset, len, "utf8");
  }

  string(s: string): this {
    const len = Buffer.byteLength(s, "utf8");
    if (len > 0x7fff) throw new ProtocolError(`string of ${len} bytes is too long for an int16 length`);
    this.int16(len);
    this.utf8(s, len);
    return this;
  }

  nullableString(s: string | null): this {
    if (s === null) return this.int16(-1);
    return this.string(s);
  }

  compactString(s: string): this {
    const len = Buffer.byteLength(s, "utf8");
    this.uvarint(len + 1);
    this.utf8(s, len);
    return this;
  }

  compactNullableString(s: string | null): this {
    if (s === null) return this.uvarint(0);
    return this.compactString(s);
  }

  bytes(b: Uint8Array): this {
    this.int32(b.length);
    return this.raw(b);
  }

  nullableBytes(b: Uint8Array | null): this {
    if (b === null) return this.int32(-1);
    return this.bytes(b);
  }

  compactBytes(b: Uint8Array): this {
    this.uvarint(b.length + 1);
    return this.raw(b);
  }

  compactNullableBytes(b: Uint8Array | null): this {
    if (b === null) return this.uvarint(0);
    return this.compactBytes(b);
  }

  uuid(s: string): this {
    this.ensure(UUID_BYTES);
    if (s.length !== 22 || this.buf.write(s, this.offset, UUID_BYTES, "base64url") !== UUID_BYTES) {
      throw new ProtocolError(`invalid uuid ${JSON.stringify(s)}: expected 22 characters of base64url`);
    }
    this.offset += UUID_BYTES;
    return this;
  }

  /** Classic array count; pass −1 for null. */
  arrayLength(n: number): this {
    return this.int32(n);
  }

  /** Compact array count; pass −1 for null. */
  compactArrayLength(n: number): this {
    return this.uvarint(n + 1);
  }

  /** An empty TAGGED_FIELDS section. */
  emptyTaggedFields(): this {
    return this.uvarint(0);
  }

  /**
   * Writes a TAGGED_FIELDS section. Tags must be written in ascending order
   * (Kafka's TaggedFields.java rejects anything else), so they are sorted here.
   */
  taggedFields(fields: ReadonlyArray<{ tag: number; data: Uint8Array }>): this {
    const sorted = [...fields].sort((a, b) => a.tag - b.tag);
    this.uvarint(sorted.length);
    for (const f of sorted) {
      this.uvarint(f.tag);
      this.uvarint(f.data.length);
      this.raw(f.data);
    }
    return this;
  }

  /** Overwrites an int32 at an earlier position (size prefixes). */
  int32At(pos: number, v: number): this {
    this.buf.writeInt32BE(v, pos);
    return this;
  }
}

export function uuidToBytes(s: string): Buffer {
  const w = new Writer(UUID_BYTES);
  w.uuid(s);
  return w.toBuffer();
}

export function uuidFromBytes(b: Uint8Array): string {
  if (b.length !== UUID_BYTES) throw new ProtocolError(`a uuid is 16 bytes, got ${b.length}`);
  return Buffer.from(b.buffer, b.byteOffset, b.length).toString("base64url");
}
