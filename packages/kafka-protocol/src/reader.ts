import { ProtocolError } from "./errors.ts";
import { UUID_BYTES } from "./uuid.ts";

/**
 * Reading Kafka wire primitives (https://kafka.apache.org/protocol#protocol_types).
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
