import { ProtocolError } from "./errors.ts";
import { UUID_BYTES, writeUuid } from "./uuid.ts";

/**
 * Writing Kafka wire primitives into a growing buffer: the mirror of
 * reader.ts (see its comment for the encodings). Values are range-checked
 * so that a bad body is a ProtocolError, never a silently wrapped number.
 */

const TWO_POW_32 = 4294967296;

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
    writeUuid(this.buf, this.offset, s);
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
