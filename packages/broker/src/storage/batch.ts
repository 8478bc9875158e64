/**
 * The parts of RecordBatch v2 the storage engine needs (Kafka's
 * DefaultRecordBatch.java): the fixed 61-byte header, CRC-32C, and a small
 * record codec used by compaction and timestamp lookups.
 *
 * The append path reads headers as plain numbers (not the protocol
 * package's bigint header) because it runs for every produced batch; record
 * (de)coding and CRC-32C come from @kappa/kafka-protocol, except the batch
 * CRC check, which uses the hardware CRC-32C (crc32c-native.ts).
 */
import {
  UnsupportedCompressionError,
  crc32c,
  decodeRecordBatch,
  encodeRecordBatch,
  setMaxTimestampAndRecrc,
  type BatchRecord,
} from "@kappa/kafka-protocol";
import { crc32cRange } from "./crc32c-native.ts";

export { crc32c };

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
  return crc32cRange(buf, pos + OFF_ATTRIBUTES, pos + size) === buf.readUInt32BE(pos + OFF_CRC);
}

export function setBaseOffset(buf: Buffer, pos: number, baseOffset: number): void {
  buf.writeBigInt64BE(BigInt(baseOffset), pos + OFF_BASE_OFFSET);
}

/** LogAppendTime: maxTimestamp and the attribute bit are inside the CRC, so re-CRC. */
export function setLogAppendTime(buf: Buffer, pos: number, size: number, now: number): void {
  setMaxTimestampAndRecrc(buf.subarray(pos, pos + size), BigInt(now), { logAppendTime: true });
}

// ---- records, for compaction and timestamp search ----

export type LogRecord = BatchRecord;
export { UnsupportedCompressionError };

/**
 * Decodes the records of one whole batch (none or gzip; other codecs throw
 * UnsupportedCompressionError). The CRC was checked when the batch was
 * appended or scanned, so it is not re-verified here.
 */
export function decodeRecords(batch: Buffer): LogRecord[] {
  return decodeRecordBatch(batch, { verifyCrc: false }).records;
}

/**
 * Rebuilds a batch around a subset of its records, keeping the original
 * header (baseOffset, lastOffsetDelta, timestamps, producer fields) so that
 * offsets and producer sequences stay as they were, as Kafka's cleaner does;
 * only the record count, length and CRC change. Used by compaction.
 */
export function rebuildBatch(original: Buffer, records: readonly LogRecord[]): Buffer {
  const codec = original.readInt16BE(OFF_ATTRIBUTES) & ATTR_COMPRESSION_MASK;
  if (codec !== 0 && codec !== 1) throw new UnsupportedCompressionError(codec);
  const encoded = encodeRecordBatch({
    baseTimestamp: 0n,
    compression: codec === 1 ? "gzip" : "none",
    records: records.map((r) => ({
      offsetDelta: r.offsetDelta,
      timestampDelta: r.timestampDelta,
      key: r.key,
      value: r.value,
      headers: r.headers,
      attributes: r.attributes,
    })),
  });
  const out = Buffer.allocUnsafe(encoded.length);
  original.copy(out, 0, 0, HEADER_SIZE);
  encoded.copy(out, HEADER_SIZE, HEADER_SIZE);
  out.writeInt32BE(out.length - LOG_OVERHEAD, OFF_LENGTH);
  out.writeInt32BE(records.length, OFF_RECORD_COUNT);
  out.writeUInt32BE(crc32c(out, OFF_ATTRIBUTES, out.length), OFF_CRC);
  return out;
}
