import { gunzipSync, gzipSync } from "node:zlib";
import { crc32c } from "./crc32c.ts";
import { ProtocolError, UnsupportedCompressionError } from "./errors.ts";
import { Reader } from "./reader.ts";
import { Writer } from "./writer.ts";

/**
 * RecordBatch v2 (magic 2), Kafka's DefaultRecordBatch.java:
 *
 *   0  baseOffset int64            (rewritten by the broker; outside the CRC)
 *   8  batchLength int32           (bytes after this field: total − 12)
 *   12 partitionLeaderEpoch int32  (rewritten by the broker; outside the CRC)
 *   16 magic int8 = 2
 *   17 crc uint32                  CRC-32C over bytes 21..end
 *   21 attributes int16            bits 0–2 codec, 3 LogAppendTime, 4 transactional,
 *                                  5 control, 6 delete horizon
 *   23 lastOffsetDelta int32
 *   27 baseTimestamp int64
 *   35 maxTimestamp int64
 *   43 producerId int64
 *   51 producerEpoch int16
 *   53 baseSequence int32
 *   57 recordCount int32
 *   61 records (one compressed block when codec ≠ 0)
 *
 * Record: varint length, int8 attributes, varlong timestampDelta, varint
 * offsetDelta, varint keyLength (−1 = null), key, varint valueLength, value,
 * varint headerCount, headers (varint keyLength, key, varint valueLength
 * (−1 = null), value). All varints here are zigzag.
 */

export const BATCH_HEADER_SIZE = 61;
/** batchLength counts everything after the first 12 bytes (baseOffset + batchLength). */
export const BATCH_LOG_OVERHEAD = 12;
const CRC_OFFSET = 17;
const ATTRIBUTES_OFFSET = 21;
const MAX_TIMESTAMP_OFFSET = 35;

export const Compression = {
  none: 0,
  gzip: 1,
  snappy: 2,
  lz4: 3,
  zstd: 4,
} as const;
export type CompressionName = keyof typeof Compression;
export type CompressionCode = (typeof Compression)[CompressionName];

const COMPRESSION_NAMES: readonly string[] = ["none", "gzip", "snappy", "lz4", "zstd"];
export function compressionName(code: number): string {
  return COMPRESSION_NAMES[code] ?? `unknown(${code})`;
}

export const TimestampType = {
  CreateTime: 0,
  LogAppendTime: 1,
} as const;
export type TimestampTypeCode = (typeof TimestampType)[keyof typeof TimestampType];

const ATTR_COMPRESSION_MASK = 0x07;
const ATTR_LOG_APPEND_TIME = 0x08;
const ATTR_TRANSACTIONAL = 0x10;
const ATTR_CONTROL = 0x20;
const ATTR_DELETE_HORIZON = 0x40;

export interface RecordBatchHeader {
  baseOffset: bigint;
  batchLength: number;
  partitionLeaderEpoch: number;
  magic: number;
  /** The CRC stored in the batch (unsigned). */
  crc: number;
  attributes: number;
  compression: number;
  timestampType: TimestampTypeCode;
  isTransactional: boolean;
  isControl: boolean;
  hasDeleteHorizon: boolean;
  lastOffsetDelta: number;
  baseTimestamp: bigint;
  maxTimestamp: bigint;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
}

export interface RecordHeader {
  key: string;
  value: Buffer | null;
}

export interface BatchRecord {
  attributes: number;
  offsetDelta: number;
  timestampDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}

export interface RecordBatch {
  header: RecordBatchHeader;
  records: BatchRecord[];
}

/**
 * Reads the fixed 61-byte v2 header at `pos` without touching the records,
 * so compressed batches (any codec) can be validated and stored as-is.
 * The fields after `magic` are only meaningful when `magic === 2`: callers
 * must check it (Kafka answers CORRUPT_MESSAGE otherwise).
 */
export function readBatchHeader(buf: Buffer, pos = 0): RecordBatchHeader {
  if (pos < 0 || pos + BATCH_HEADER_SIZE > buf.length) {
    throw new ProtocolError(`record batch header needs ${BATCH_HEADER_SIZE} bytes at ${pos}, buffer has ${buf.length}`);
  }
  const attributes = buf.readInt16BE(pos + ATTRIBUTES_OFFSET);
  return {
    baseOffset: buf.readBigInt64BE(pos),
    batchLength: buf.readInt32BE(pos + 8),
    partitionLeaderEpoch: buf.readInt32BE(pos + 12),
    magic: buf.readInt8(pos + 16),
    crc: buf.readUInt32BE(pos + CRC_OFFSET),
    attributes,
    compression: attributes & ATTR_COMPRESSION_MASK,
    timestampType: attributes & ATTR_LOG_APPEND_TIME ? TimestampType.LogAppendTime : TimestampType.CreateTime,
    isTransactional: (attributes & ATTR_TRANSACTIONAL) !== 0,
    isControl: (attributes & ATTR_CONTROL) !== 0,
    hasDeleteHorizon: (attributes & ATTR_DELETE_HORIZON) !== 0,
    lastOffsetDelta: buf.readInt32BE(pos + 23),
    baseTimestamp: buf.readBigInt64BE(pos + 27),
    maxTimestamp: buf.readBigInt64BE(pos + MAX_TIMESTAMP_OFFSET),
    producerId: buf.readBigInt64BE(pos + 43),
    producerEpoch: buf.readInt16BE(pos + 51),
    baseSequence: buf.readInt32BE(pos + 53),
    recordCount: buf.readInt32BE(pos + 57),
  };
}

/** True when the stored CRC matches CRC-32C over bytes 21..end of the batch. */
export function batchCrcMatches(bytes: Buffer): boolean {
  if (bytes.length < BATCH_HEADER_SIZE) return false;
  return bytes.readUInt32BE(CRC_OFFSET) === crc32c(bytes, ATTRIBUTES_OFFSET, bytes.length);
}

/**
 * Splits a `records` field into complete batches. A trailing partial batch
 * (Kafka may cut the last batch of a fetch at the size limit) ends the
 * iteration silently; a length that cannot be a v2 batch throws.
 * Each `bytes` is a view into `buf` (no copy).
 */
export function* iterateBatches(buf: Buffer): Generator<{ header: RecordBatchHeader; bytes: Buffer }> {
  let pos = 0;
  while (pos + BATCH_LOG_OVERHEAD <= buf.length) {
    const batchLength = buf.readInt32BE(pos + 8);
    if (batchLength < BATCH_HEADER_SIZE - BATCH_LOG_OVERHEAD) {
      throw new ProtocolError(`record batch at ${pos} has impossible length ${batchLength}`);
    }
    const total = BATCH_LOG_OVERHEAD + batchLength;
    if (pos + total > buf.length) return;
    yield { header: readBatchHeader(buf, pos), bytes: buf.subarray(pos, pos + total) };
    pos += total;
  }
}

export interface DecodeRecordBatchOptions {
  /** Verify the CRC (default true); a mismatch throws ProtocolError. */
  verifyCrc?: boolean;
  /** Upper bound for the decompressed size, against decompression bombs (default 64 MiB). */
  maxDecompressedBytes?: number;
}

/** Decodes one complete batch, decompressing none and gzip. */
export function decodeRecordBatch(bytes: Buffer, options: DecodeRecordBatchOptions = {}): RecordBatch {
  const header = readBatchHeader(bytes, 0);
  if (header.magic !== 2) throw new ProtocolError(`record batch magic ${header.magic} is not supported (only v2)`);
  const total = BATCH_LOG_OVERHEAD + header.batchLength;
  if (header.batchLength < BATCH_HEADER_SIZE - BATCH_LOG_OVERHEAD || total > bytes.length) {
    throw new ProtocolError(`record batch length ${header.batchLength} does not fit in ${bytes.length} bytes`);
  }
  if (options.verifyCrc !== false) {
    const actual = crc32c(bytes, ATTRIBUTES_OFFSET, total);
    if (actual !== header.crc) {
      throw new ProtocolError(`record batch CRC mismatch: stored ${header.crc.toString(16)}, computed ${actual.toString(16)}`);
    }
  }
  if (header.recordCount < 0) throw new ProtocolError(`negative record count ${header.recordCount}`);
  let body: Buffer;
  switch (header.compression) {
    case Compression.none:
      body = bytes.subarray(BATCH_HEADER_SIZE, total);
      break;
    case Compression.gzip:
      try {
        body = gunzipSync(bytes.subarray(BATCH_HEADER_SIZE, total), {
          maxOutputLength: options.maxDecompressedBytes ?? 64 * 1024 * 1024,
        });
      } catch (err) {
        throw new ProtocolError("cannot gunzip record batch", { cause: err });
      }
      break;
    default:
      throw new UnsupportedCompressionError(
        header.compression,
        `record batch compression ${compressionName(header.compression)} cannot be decompressed by this package`,
      );
  }
  const r = new Reader(body);
  // Each record takes at least 7 bytes; checking first keeps an absurd count from driving the loop.
  if (header.recordCount > r.remaining()) {
    throw new ProtocolError(`record count ${header.recordCount} exceeds the ${r.remaining()} bytes of records`);
  }
  const records: BatchRecord[] = new Array<BatchRecord>(header.recordCount);
  for (let i = 0; i < header.recordCount; i++) records[i] = readRecord(r);
  if (r.remaining() !== 0) throw new ProtocolError(`${r.remaining()} trailing bytes after the last record`);
  return { header, records };
}

function readRecord(outer: Reader): BatchRecord {
  const length = outer.varint();
  if (length < 0) throw new ProtocolError(`negative record length ${length}`);
  outer.need(length);
  const r = new Reader(outer.buf, outer.offset, outer.offset + length);
  outer.offset += length;
  const attributes = r.int8();
  const timestampDelta = r.varlongNumber();
  const offsetDelta = r.varint();
  const key = readVarBytes(r);
  const value = readVarBytes(r);
  const headerCount = r.varint();
  if (headerCount < 0 || headerCount > r.remaining()) throw new ProtocolError(`invalid record header count ${headerCount}`);
  const headers: RecordHeader[] = new Array<RecordHeader>(headerCount);
  for (let i = 0; i < headerCount; i++) {
    const keyLen = r.varint();
    if (keyLen < 0) throw new ProtocolError("record header key is null");
    r.need(keyLen);
    const hk = r.buf.toString("utf8", r.offset, r.offset + keyLen);
    r.offset += keyLen;
    headers[i] = { key: hk, value: readVarBytes(r) };
  }
  if (r.remaining() !== 0) throw new ProtocolError(`record length ${length} does not match its contents`);
  return { attributes, offsetDelta, timestampDelta, key, value, headers };
}

function readVarBytes(r: Reader): Buffer | null {
  const len = r.varint();
  if (len === -1) return null;
  if (len < 0) throw new ProtocolError(`invalid record field length ${len}`);
  return r.raw(len);
}

export interface RecordInput {
  /** Defaults to the record's index in the batch. */
  offsetDelta?: number;
  /** Defaults to 0. */
  timestampDelta?: number;
  key?: Uint8Array | string | null;
  value?: Uint8Array | string | null;
  headers?: ReadonlyArray<{ key: string; value: Uint8Array | string | null }>;
  attributes?: number;
}

export interface EncodeRecordBatchOptions {
  baseOffset?: bigint;
  /** Producers send −1 (no leader epoch); the broker overwrites it. */
  partitionLeaderEpoch?: number;
  baseTimestamp: bigint;
  /** Defaults to baseTimestamp + the largest timestampDelta. */
  maxTimestamp?: bigint;
  producerId?: bigint;
  producerEpoch?: number;
  baseSequence?: number;
  compression?: "none" | "gzip";
  timestampType?: TimestampTypeCode;
  isTransactional?: boolean;
  isControl?: boolean;
  records: ReadonlyArray<RecordInput>;
}

function toBytes(v: Uint8Array | string | null | undefined): Uint8Array | null {
  if (v === null || v === undefined) return null;
  return typeof v === "string" ? Buffer.from(v, "utf8") : v;
}

function zigzagSize(v: number): number {
  let u = v >= 0 ? v * 2 : -v * 2 - 1;
  let n = 1;
  while (u >= 0x80) {
    u = Math.floor(u / 128);
    n++;
  }
  return n;
}

/** Builds a v2 batch with a correct CRC. Records must be non-empty (Kafka rejects empty batches). */
export function encodeRecordBatch(opts: EncodeRecordBatchOptions): Buffer {
  const n = opts.records.length;
  if (n === 0) throw new ProtocolError("a record batch needs at least one record");
  const body = new Writer(256);
  let lastOffsetDelta = 0;
  let maxTsDelta = 0;
  for (let i = 0; i < n; i++) {
    const rec = opts.records[i]!;
    const offsetDelta = rec.offsetDelta ?? i;
    const tsDelta = rec.timestampDelta ?? 0;
    if (offsetDelta > lastOffsetDelta) lastOffsetDelta = offsetDelta;
    if (tsDelta > maxTsDelta) maxTsDelta = tsDelta;
    const key = toBytes(rec.key);
    const value = toBytes(rec.value);
    const headers = (rec.headers ?? []).map((h) => ({ key: Buffer.from(h.key, "utf8"), value: toBytes(h.value) }));
    // The record length prefix comes first, so the size is computed rather than copying a scratch buffer.
    let size = 1 + zigzagSize(tsDelta) + zigzagSize(offsetDelta);
    size += key === null ? 1 : zigzagSize(key.length) + key.length;
    size += value === null ? 1 : zigzagSize(value.length) + value.length;
    size += zigzagSize(headers.length);
    for (const h of headers) {
      size += zigzagSize(h.key.length) + h.key.length;
      size += h.value === null ? 1 : zigzagSize(h.value.length) + h.value.length;
    }
    body.varint(size);
    body.int8(rec.attributes ?? 0);
    body.varlongNumber(tsDelta);
    body.varint(offsetDelta);
    writeVarBytes(body, key);
    writeVarBytes(body, value);
    body.varint(headers.length);
    for (const h of headers) {
      writeVarBytes(body, h.key);
      writeVarBytes(body, h.value);
    }
  }
  const compression = opts.compression ?? "none";
  let records: Buffer = body.toBuffer();
  if (compression === "gzip") records = gzipSync(records);
  else if (compression !== "none") throw new UnsupportedCompressionError(Compression[compression]);

  let attributes: number = Compression[compression];
  if (opts.timestampType === TimestampType.LogAppendTime) attributes |= ATTR_LOG_APPEND_TIME;
  if (opts.isTransactional) attributes |= ATTR_TRANSACTIONAL;
  if (opts.isControl) attributes |= ATTR_CONTROL;

  const total = BATCH_HEADER_SIZE + records.length;
  const out = Buffer.allocUnsafe(total);
  out.writeBigInt64BE(opts.baseOffset ?? 0n, 0);
  out.writeInt32BE(total - BATCH_LOG_OVERHEAD, 8);
  out.writeInt32BE(opts.partitionLeaderEpoch ?? -1, 12);
  out.writeInt8(2, 16);
  out.writeInt16BE(attributes, ATTRIBUTES_OFFSET);
  out.writeInt32BE(lastOffsetDelta, 23);
  out.writeBigInt64BE(opts.baseTimestamp, 27);
  out.writeBigInt64BE(opts.maxTimestamp ?? opts.baseTimestamp + BigInt(maxTsDelta), MAX_TIMESTAMP_OFFSET);
  out.writeBigInt64BE(opts.producerId ?? -1n, 43);
  out.writeInt16BE(opts.producerEpoch ?? -1, 51);
  out.writeInt32BE(opts.baseSequence ?? -1, 53);
  out.writeInt32BE(n, 57);
  records.copy(out, BATCH_HEADER_SIZE);
  out.writeUInt32BE(crc32c(out, ATTRIBUTES_OFFSET, total), CRC_OFFSET);
  return out;
}

function writeVarBytes(w: Writer, b: Uint8Array | null): void {
  if (b === null) {
    w.varint(-1);
    return;
  }
  w.varint(b.length);
  w.raw(b);
}

/** Broker offset assignment: baseOffset is outside the CRC, so no recompute. In place. */
export function setBaseOffset(bytes: Buffer, baseOffset: bigint): void {
  bytes.writeBigInt64BE(baseOffset, 0);
}

/** partitionLeaderEpoch is outside the CRC as well. In place. */
export function setPartitionLeaderEpoch(bytes: Buffer, epoch: number): void {
  bytes.writeInt32BE(epoch, 12);
}

/**
 * For LogAppendTime topics: sets the LogAppendTime attribute bit (unless
 * `logAppendTime: false`) and maxTimestamp, both inside the CRC, then
 * recomputes the CRC. In place.
 */
export function setMaxTimestampAndRecrc(bytes: Buffer, maxTimestamp: bigint, options: { logAppendTime?: boolean } = {}): void {
  if (bytes.length < BATCH_HEADER_SIZE) throw new ProtocolError("buffer is shorter than a record batch header");
  if (options.logAppendTime !== false) {
    bytes.writeInt16BE(bytes.readInt16BE(ATTRIBUTES_OFFSET) | ATTR_LOG_APPEND_TIME, ATTRIBUTES_OFFSET);
  }
  bytes.writeBigInt64BE(maxTimestamp, MAX_TIMESTAMP_OFFSET);
  const end = BATCH_LOG_OVERHEAD + bytes.readInt32BE(8);
  if (end > bytes.length) throw new ProtocolError("record batch is truncated");
  bytes.writeUInt32BE(crc32c(bytes, ATTRIBUTES_OFFSET, end), CRC_OFFSET);
}
