/**
 * The parts of RecordBatch v2 the storage engine needs (Kafka's
 * DefaultRecordBatch.java): the fixed 61-byte header, CRC-32C, and a small
 * record codec used by compaction and timestamp lookups.
 *
 * Private to storage: written before @kappa/kafka-protocol's batch functions
 * existed; the offsets below are the ones that module documents too.
 */
import { gunzipSync, gzipSync } from "node:zlib";

export const HEADER_SIZE = 61;
/** baseOffset (8) + batchLength (4): the bytes not counted by batchLength. */
export const LOG_OVERHEAD = 12;

export const OFF_BASE_OFFSET = 0;
export const OFF_LENGTH = 8;
export const OFF_LEADER_EPOCH = 12;
export const OFF_MAGIC = 16;
export const OFF_CRC = 17;
export const OFF_ATTRIBUTES = 21;
export const OFF_LAST_OFFSET_DELTA = 23;
export const OFF_BASE_TIMESTAMP = 27;
export const OFF_MAX_TIMESTAMP = 35;
export const OFF_PRODUCER_ID = 43;
export const OFF_PRODUCER_EPOCH = 51;
export const OFF_BASE_SEQUENCE = 53;
export const OFF_RECORD_COUNT = 57;

export const ATTR_COMPRESSION_MASK = 0x07;
export const ATTR_LOG_APPEND_TIME = 0x08;
export const ATTR_TRANSACTIONAL = 0x10;
export const ATTR_CONTROL = 0x20;

const POLY = 0x82f63b78;
const T = new Int32Array(8 * 256);
for (let i = 0; i < 256; i++) {
  let c = i;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
  T[i] = c;
}
for (let i = 0; i < 256; i++) {
  for (let t = 1; t < 8; t++) {
    const prev = T[(t - 1) * 256 + i]!;
    T[t * 256 + i] = (prev >>> 8) ^ T[prev & 0xff]!;
  }
}

/** CRC-32C (Castagnoli) of buf[start, end), slicing-by-8. */
export function crc32c(buf: Uint8Array, start = 0, end = buf.length): number {
  let c = -1;
  let i = start;
  const fast = end - ((end - start) & 7);
  while (i < fast) {
    c ^= buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24);
    c =
      T[1792 + (c & 0xff)]! ^
      T[1536 + ((c >>> 8) & 0xff)]! ^
      T[1280 + ((c >>> 16) & 0xff)]! ^
      T[1024 + (c >>> 24)]! ^
      T[768 + buf[i + 4]!]! ^
      T[512 + buf[i + 5]!]! ^
      T[256 + buf[i + 6]!]! ^
      T[buf[i + 7]!]!;
    i += 8;
  }
  while (i < end) {
    c = (c >>> 8) ^ T[(c ^ buf[i]!) & 0xff]!;
    i++;
  }
  return ~c >>> 0;
}

/**
 * Header fields as plain numbers. Offsets and timestamps fit in a double for
 * any log this broker will hold (2^53 offsets / milliseconds), and numbers are
 * much cheaper than bigint on the append path; the public API converts.
 */
export interface BatchHeader {
  baseOffset: number;
  /** Whole batch size in bytes, including the 12-byte log overhead. */
  size: number;
  magic: number;
  crc: number;
  attributes: number;
  lastOffsetDelta: number;
  baseTimestamp: number;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
}

export function readHeader(buf: Buffer, pos: number): BatchHeader {
  return {
    baseOffset: Number(buf.readBigInt64BE(pos + OFF_BASE_OFFSET)),
    size: buf.readInt32BE(pos + OFF_LENGTH) + LOG_OVERHEAD,
    magic: buf.readInt8(pos + OFF_MAGIC),
    crc: buf.readUInt32BE(pos + OFF_CRC),
    attributes: buf.readInt16BE(pos + OFF_ATTRIBUTES),
    lastOffsetDelta: buf.readInt32BE(pos + OFF_LAST_OFFSET_DELTA),
    baseTimestamp: Number(buf.readBigInt64BE(pos + OFF_BASE_TIMESTAMP)),
    maxTimestamp: Number(buf.readBigInt64BE(pos + OFF_MAX_TIMESTAMP)),
    producerId: Number(buf.readBigInt64BE(pos + OFF_PRODUCER_ID)),
    producerEpoch: buf.readInt16BE(pos + OFF_PRODUCER_EPOCH),
    baseSequence: buf.readInt32BE(pos + OFF_BASE_SEQUENCE),
    recordCount: buf.readInt32BE(pos + OFF_RECORD_COUNT),
  };
}

export function batchCrcValid(buf: Buffer, pos: number, size: number): boolean {
  return crc32c(buf, pos + OFF_ATTRIBUTES, pos + size) === buf.readUInt32BE(pos + OFF_CRC);
}

export function setBaseOffset(buf: Buffer, pos: number, baseOffset: number): void {
  buf.writeBigInt64BE(BigInt(baseOffset), pos + OFF_BASE_OFFSET);
}

/** LogAppendTime: maxTimestamp and the attribute bit are inside the CRC, so re-CRC. */
export function setLogAppendTime(buf: Buffer, pos: number, size: number, now: number): void {
  buf.writeInt16BE(buf.readInt16BE(pos + OFF_ATTRIBUTES) | ATTR_LOG_APPEND_TIME, pos + OFF_ATTRIBUTES);
  buf.writeBigInt64BE(BigInt(now), pos + OFF_MAX_TIMESTAMP);
  buf.writeUInt32BE(crc32c(buf, pos + OFF_ATTRIBUTES, pos + size), pos + OFF_CRC);
}

// ---- records (zigzag varints), for compaction and timestamp search ----

export interface RecordHeader {
  key: string;
  value: Buffer | null;
}

export interface LogRecord {
  attributes: number;
  timestampDelta: number;
  offsetDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}

export class UnsupportedCompressionError extends Error {
  constructor(readonly codec: number) {
    super(`record batch compression codec ${codec} is not supported by the storage engine (only none and gzip)`);
    this.name = "UnsupportedCompressionError";
  }
}

class VarReader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (this.pos >= this.buf.length) throw new RangeError("varint past end of records");
      const b = this.buf[this.pos++]!;
      // Multiplication instead of << keeps varlongs (timestamp deltas) above 2^31 exact.
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) break;
      shift += 7;
      if (shift > 63) throw new RangeError("varint too long");
    }
    // zigzag decode without 32-bit truncation
    return result % 2 === 0 ? result / 2 : -(result + 1) / 2;
  }
  bytes(len: number): Buffer | null {
    if (len < 0) return null;
    if (this.pos + len > this.buf.length) throw new RangeError("record field past end");
    const b = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return b;
  }
}

function recordsPayload(batch: Buffer): Buffer {
  const codec = batch.readInt16BE(OFF_ATTRIBUTES) & ATTR_COMPRESSION_MASK;
  const body = batch.subarray(HEADER_SIZE);
  if (codec === 0) return body;
  if (codec === 1) return gunzipSync(body);
  throw new UnsupportedCompressionError(codec);
}

/** Decodes the records of one whole batch (none or gzip). */
export function decodeRecords(batch: Buffer): LogRecord[] {
  const count = batch.readInt32BE(OFF_RECORD_COUNT);
  const r = new VarReader(recordsPayload(batch));
  const out: LogRecord[] = [];
  for (let i = 0; i < count; i++) {
    const len = r.varint();
    const end = r.pos + len;
    const attributes = r.buf.readInt8(r.pos);
    r.pos += 1;
    const timestampDelta = r.varint();
    const offsetDelta = r.varint();
    const key = r.bytes(r.varint());
    const value = r.bytes(r.varint());
    const hc = r.varint();
    const headers: RecordHeader[] = [];
    for (let h = 0; h < hc; h++) {
      const hk = r.bytes(r.varint());
      headers.push({ key: hk === null ? "" : hk.toString("utf8"), value: r.bytes(r.varint()) });
    }
    if (r.pos !== end) throw new RangeError("record length does not match its fields");
    out.push({ attributes, timestampDelta, offsetDelta, key, value, headers });
  }
  return out;
}

class VarWriter {
  chunks: Buffer[] = [];
  private scratch = Buffer.alloc(10);
  varint(v: number): void {
    let z = v >= 0 ? v * 2 : -v * 2 - 1;
    let n = 0;
    while (z >= 0x80) {
      this.scratch[n++] = (z % 128) | 0x80;
      z = Math.floor(z / 128);
    }
    this.scratch[n++] = z;
    this.chunks.push(Buffer.from(this.scratch.subarray(0, n)));
  }
  raw(b: Buffer): void {
    this.chunks.push(b);
  }
  nullable(b: Buffer | null): void {
    if (b === null) this.varint(-1);
    else {
      this.varint(b.length);
      this.raw(b);
    }
  }
}

function encodeRecord(rec: LogRecord): Buffer {
  const w = new VarWriter();
  w.raw(Buffer.from([rec.attributes & 0xff]));
  w.varint(rec.timestampDelta);
  w.varint(rec.offsetDelta);
  w.nullable(rec.key);
  w.nullable(rec.value);
  w.varint(rec.headers.length);
  for (const h of rec.headers) {
    w.nullable(Buffer.from(h.key, "utf8"));
    w.nullable(h.value);
  }
  const body = Buffer.concat(w.chunks);
  const lw = new VarWriter();
  lw.varint(body.length);
  return Buffer.concat([...lw.chunks, body]);
}

/**
 * Rebuilds a batch around a subset of its records, keeping the original
 * header (baseOffset, lastOffsetDelta, timestamps, producer fields) so that
 * offsets and producer sequences stay as they were; only the record count,
 * length and CRC change. Used by compaction.
 */
export function rebuildBatch(original: Buffer, records: LogRecord[]): Buffer {
  const codec = original.readInt16BE(OFF_ATTRIBUTES) & ATTR_COMPRESSION_MASK;
  let payload = Buffer.concat(records.map(encodeRecord));
  if (codec === 1) payload = gzipSync(payload);
  else if (codec !== 0) throw new UnsupportedCompressionError(codec);
  const out = Buffer.alloc(HEADER_SIZE + payload.length);
  original.copy(out, 0, 0, HEADER_SIZE);
  payload.copy(out, HEADER_SIZE);
  out.writeInt32BE(out.length - LOG_OVERHEAD, OFF_LENGTH);
  out.writeInt32BE(records.length, OFF_RECORD_COUNT);
  out.writeUInt32BE(crc32c(out, OFF_ATTRIBUTES, out.length), OFF_CRC);
  return out;
}

export interface BuildBatchOptions {
  baseOffset?: number;
  baseTimestamp?: number;
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  compression?: "none" | "gzip";
  records: Array<{ key: Buffer | string | null; value: Buffer | string | null; timestamp?: number }>;
}

const toBuf = (v: Buffer | string | null): Buffer | null => (typeof v === "string" ? Buffer.from(v) : v);

/** Builds a v2 batch the way a producer would (used by tests and the benchmark). */
export function buildBatch(opts: BuildBatchOptions): Buffer {
  const baseTimestamp = opts.baseTimestamp ?? opts.records[0]?.timestamp ?? Date.now();
  let maxTs = -1;
  const recs: LogRecord[] = opts.records.map((r, i) => {
    const ts = r.timestamp ?? baseTimestamp;
    if (ts > maxTs) maxTs = ts;
    return {
      attributes: 0,
      timestampDelta: ts - baseTimestamp,
      offsetDelta: i,
      key: toBuf(r.key),
      value: toBuf(r.value),
      headers: [],
    };
  });
  const codec = opts.compression === "gzip" ? 1 : 0;
  let payload = Buffer.concat(recs.map(encodeRecord));
  if (codec === 1) payload = gzipSync(payload);
  const out = Buffer.alloc(HEADER_SIZE + payload.length);
  out.writeBigInt64BE(BigInt(opts.baseOffset ?? 0), OFF_BASE_OFFSET);
  out.writeInt32BE(out.length - LOG_OVERHEAD, OFF_LENGTH);
  out.writeInt32BE(0, OFF_LEADER_EPOCH);
  out.writeInt8(2, OFF_MAGIC);
  out.writeInt16BE(codec, OFF_ATTRIBUTES);
  out.writeInt32BE(recs.length - 1, OFF_LAST_OFFSET_DELTA);
  out.writeBigInt64BE(BigInt(baseTimestamp), OFF_BASE_TIMESTAMP);
  out.writeBigInt64BE(BigInt(maxTs), OFF_MAX_TIMESTAMP);
  out.writeBigInt64BE(BigInt(opts.producerId ?? -1), OFF_PRODUCER_ID);
  out.writeInt16BE(opts.producerEpoch ?? -1, OFF_PRODUCER_EPOCH);
  out.writeInt32BE(opts.baseSequence ?? -1, OFF_BASE_SEQUENCE);
  out.writeInt32BE(recs.length, OFF_RECORD_COUNT);
  payload.copy(out, HEADER_SIZE);
  out.writeUInt32BE(crc32c(out, OFF_ATTRIBUTES, out.length), OFF_CRC);
  return out;
}
