/**
 * Validation of the record batches of one Produce partition before they are
 * queued for the writer (Kafka's LogValidator / LogSegment append checks):
 * magic 2, sizes against max.message.bytes and segment.bytes, CRC-32C,
 * record count against lastOffsetDelta, no client control batches (only
 * the transaction coordinator writes markers), transactional batches only
 * with a producer id and sequence, Produce v3+'s one batch per partition, a
 * known compression codec (0–4, else CORRUPT_MESSAGE), and the records
 * themselves (record-check.ts): compressed batches are decompressed first,
 * bounded by `maxDecompressedBytes` (decompression.ts), so a batch that
 * consumers could not read is refused instead of stored.
 *
 * Runs on the request's own buffer without copying; nothing is written until
 * every batch of the partition passed, so a bad batch never leaves half an
 * append behind.
 */
import {
  ATTR_COMPRESSION_MASK,
  ATTR_CONTROL,
  ATTR_TRANSACTIONAL,
  HEADER_SIZE,
  LOG_OVERHEAD,
  batchCrcValid,
  readHeader,
  type BatchHeader,
} from "./batch.ts";
import type { LogConfig } from "./configs.ts";
import { DecompressedTooLargeError, DecompressionError, decompress } from "./decompression.ts";
import { StorageError } from "./errors.ts";
import { recompressBatch, targetCodec } from "./recompression.ts";
import { checkRecords, type RecordStats } from "./record-check.ts";

/** Default bound on one batch's decompressed records (broker setting message.decompressed.max.bytes). */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 128 * 1024 * 1024;

export interface AppendOptions {
  /** acks=all: resolve only after the batch is fsynced. */
  requireDurable?: boolean;
  /** Produce v3+ allows exactly one batch per partition (INVALID_RECORD otherwise). */
  singleBatch?: boolean;
}

export interface ValidationLimits {
  /** Largest decompressed records section of one batch (a compression bomb costs at most this). */
  maxDecompressedBytes: number;
}

/** A batch that passed validation: its position in the request buffer and its header. */
export interface ValidatedBatch {
  pos: number;
  header: BatchHeader;
}

/** Checks every batch in `data`; throws a StorageError with Kafka's error code for the first bad one. */
export function validateAppendBatches(data: Buffer, config: LogConfig, opts: AppendOptions, limits: ValidationLimits, now = Date.now()): ValidatedBatch[] {
  const out: ValidatedBatch[] = [];
  let pos = 0;
  while (pos < data.length) {
    if (data.length - pos < HEADER_SIZE) {
      throw new StorageError("CORRUPT_MESSAGE", `record batch at byte ${pos} is truncated`);
    }
    const size = data.readInt32BE(pos + 8) + LOG_OVERHEAD;
    if (size < HEADER_SIZE || pos + size > data.length) {
      throw new StorageError("CORRUPT_MESSAGE", `record batch at byte ${pos} has invalid length ${size - LOG_OVERHEAD}`);
    }
    const h = readHeader(data, pos);
    if (h.magic !== 2) throw new StorageError("CORRUPT_MESSAGE", `unsupported record batch magic ${h.magic}`);
    if (size > config.maxMessageBytes || size > config.segmentBytes) {
      throw new StorageError(
        "MESSAGE_TOO_LARGE",
        `record batch of ${size} bytes exceeds max.message.bytes ${config.maxMessageBytes}`,
      );
    }
    if (!batchCrcValid(data, pos, size)) {
      throw new StorageError("CORRUPT_MESSAGE", `record batch at byte ${pos} fails its CRC-32C check`);
    }
    if (h.recordCount <= 0 || h.lastOffsetDelta + 1 !== h.recordCount) {
      throw new StorageError(
        "INVALID_RECORD",
        `record batch has ${h.recordCount} records but lastOffsetDelta ${h.lastOffsetDelta}`,
      );
    }
    if ((h.attributes & ATTR_CONTROL) !== 0) throw new StorageError("INVALID_RECORD", "clients may not write control batches");
    if ((h.attributes & ATTR_TRANSACTIONAL) !== 0 && (h.producerId < 0 || h.baseSequence < 0)) {
      throw new StorageError("INVALID_RECORD", "a transactional record batch needs a producer id and a base sequence");
    }
    const stats = checkBatchRecords(data, pos, size, h, limits);
    if (!config.logAppendTime) checkTimestamps(h, stats, config, now);
    out.push({ pos, header: h });
    pos += size;
  }
  if (out.length === 0) throw new StorageError("INVALID_RECORD", "no record batch in produce data");
  if (out.length > 1 && (opts.singleBatch || out.some((b) => b.header.producerId >= 0))) {
    throw new StorageError("INVALID_RECORD", "exactly one record batch per partition is allowed");
  }
  return out;
}

/**
 * message.timestamp.before.max.ms / after.max.ms on CreateTime topics (Kafka's
 * LogValidator.validateTimestamp): every record's timestamp must lie within
 * [now − before, now + after]; records without a timestamp (−1) are exempt.
 * LogAppendTime topics overwrite timestamps, so nothing is checked there.
 */
function checkTimestamps(h: BatchHeader, stats: RecordStats, config: LogConfig, now: number): void {
  if (stats.maxTimestampDelta < stats.minTimestampDelta) return; // no records
  const oldest = h.baseTimestamp + stats.minTimestampDelta;
  const newest = h.baseTimestamp + stats.maxTimestampDelta;
  if (oldest !== -1 && now - oldest > config.timestampBeforeMaxMs) {
    throw new StorageError(
      "INVALID_TIMESTAMP",
      `Timestamp ${oldest} of message with offset ${h.baseOffset} is out of range. The timestamp should be within [${now - config.timestampBeforeMaxMs}, ${now + Math.min(config.timestampAfterMaxMs, 8.64e15)}]`,
    );
  }
  if (newest !== -1 && newest - now > config.timestampAfterMaxMs) {
    throw new StorageError(
      "INVALID_TIMESTAMP",
      `Timestamp ${newest} of message with offset ${h.baseOffset} is out of range. The timestamp should be within [${now - Math.min(config.timestampBeforeMaxMs, 8.64e15)}, ${now + config.timestampAfterMaxMs}]`,
    );
  }
}

/** The records of one batch, decompressed when needed, checked structurally. */
function checkBatchRecords(data: Buffer, pos: number, size: number, h: BatchHeader, limits: ValidationLimits): RecordStats {
  const codec = h.attributes & ATTR_COMPRESSION_MASK;
  if (codec > 4) throw new StorageError("CORRUPT_MESSAGE", `record batch at byte ${pos} uses unknown compression codec ${codec}`);
  const start = pos + HEADER_SIZE;
  const end = pos + size;
  if (codec === 0) return checkRecords(data, start, end, h.recordCount);
  let records: Buffer;
  try {
    records = decompress(codec, data.subarray(start, end), limits.maxDecompressedBytes);
  } catch (err) {
    if (err instanceof DecompressedTooLargeError) {
      throw new StorageError("CORRUPT_MESSAGE", `record batch at byte ${pos}: ${err.message} (message.decompressed.max.bytes)`);
    }
    if (err instanceof DecompressionError) throw new StorageError("CORRUPT_MESSAGE", `record batch at byte ${pos}: ${err.message}`);
    throw err;
  }
  return checkRecords(records, 0, records.length, h.recordCount);
}

/**
 * The batches of one Produce partition's `records`, validated; with
 * compression.type other than "producer", batches with another codec are
 * rebuilt with the topic's first (recompression.ts) and the result validated.
 */
export function prepareAppend(data: Buffer, config: LogConfig, opts: AppendOptions, limits: ValidationLimits, clock: () => number): { data: Buffer; batches: ValidatedBatch[] } {
  const batches = validateAppendBatches(data, config, opts, limits, clock());
  const codec = targetCodec(config);
  if (codec === null || batches.every((b) => (b.header.attributes & ATTR_COMPRESSION_MASK) === codec)) return { data, batches };
  const rebuilt = Buffer.concat(batches.map((b) => recompressBatch(data.subarray(b.pos, b.pos + b.header.size), codec, config, limits.maxDecompressedBytes)));
  return { data: rebuilt, batches: validateAppendBatches(rebuilt, config, opts, limits, clock()) };
}
