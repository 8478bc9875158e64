import { ProtocolError } from "./errors.ts";
import { UUID_BYTES, writeUuid } from "./uuid.ts";

/**
 * Writing Kafka wire primitives into a growing buffer: the mirror of
 * reader.ts (see its comment for the encodings). Values are range-checked
 * so that a bad body is a ProtocolError, never a silently wrapped number.
 */

const TWO_POW_32 = 4294967296;

export class Writer {
  /** The part being written; `offset` bytes of it are written. */
  buf: Buffer;
  offset = 0;
  /** Finished parts before `buf` (only when raw bytes are kept by reference: see the constructor). */
  private parts: Buffer[] = [];
  private partsBytes = 0;

  /**
   * `referenceFrom`: raw byte runs of at least this many bytes (a Fetch
   * response's record batches) are not copied in: the written bytes become a
   * list of parts that refers to them (`toBuffers`), so a 4 MiB response is
   * not copied again (and its buffer not regrown by doubling) before it goes
   * to the socket. The caller must not change those bytes until the parts are
   * written. Default: everything is copied into one buffer.
   */
  constructor(
    initialSize = 256,
    private readonly referenceFrom = Number.POSITIVE_INFINITY,
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(16, initialSize));
  }

  /** Bytes written so far, in all parts. */
  get length(): number {
    return this.partsBytes + this.offset;
  }

  ensure(n: number): void {
    if (this.offset + n > this.buf.length) this.grow(n);
  }

  private grow(n: number): void {
    // At least 256: after a referenced run the part goes on in what was left of its buffer, which may be nothing.
    let size = Math.max(256, this.buf.length * 2);
    while (size < this.offset + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.offset);
    this.buf = next;
  }

  /** The bytes written so far: a view (no copy) unless there are several parts. Do not keep writing after handing it out. */
  toBuffer(): Buffer {
    const current = this.buf.subarray(0, this.offset);
    return this.parts.length === 0 ? current : Buffer.concat([...this.parts, current], this.length);
  }

  /** The bytes written so far as parts, in order (views: no copy). Do not keep writing after handing them out. */
  toBuffers(): Buffer[] {
    return this.offset > 0 || this.parts.length === 0 ? [...this.parts, this.buf.subarray(0, this.offset)] : [...this.parts];
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
    if (b.length >= this.referenceFrom) {
      // The part so far is finished; writing goes on in the rest of its buffer.
      if (this.offset > 0) {
        this.parts.push(this.buf.subarray(0, this.offset));
        this.partsBytes += this.offset;
        this.buf = this.buf.subarray(this.offset);
        this.offset = 0;
      }
      this.parts.push(Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));
      this.partsBytes += b.length;
      return this;
    }
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

  /** Overwrites an int32 at an earlier position (size prefixes), counted over all parts. */
  int32At(pos: number, v: number): this {
    let at = pos;
    for (const part of [...this.parts, this.buf]) {
      if (at < part.length) {
        // An int32 is written whole into one part: parts end only where a referenced run begins or ends.
        part.writeInt32BE(v, at);
        return this;
      }
      at -= part.length;
    }
    throw new RangeError(`int32At(${pos}): beyond the ${this.length} bytes written`);
  }
}
