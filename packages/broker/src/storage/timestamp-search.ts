/**
 * The record-level step of a timestamp lookup (ListOffsets by timestamp and
 * MAX_TIMESTAMP), shared by local segments and remote (tiered) segments:
 * indexes find the batch, this finds the record inside it.
 */
import { ATTR_LOG_APPEND_TIME, UnsupportedCompressionError, decodeRecords, type BatchHeader } from "./batch.ts";

export interface RecordTimestamp {
  offset: number;
  timestamp: number;
}

/**
 * First record of the batch at or after `minOffset` whose timestamp is ≥
 * `ts`; null when none is. LogAppendTime batches carry one timestamp for
 * every record (maxTimestamp). Batches whose codec cannot be decoded here
 * (snappy, lz4, zstd) are answered at batch granularity.
 */
export function firstRecordAtOrAfter(h: BatchHeader, batch: Buffer, ts: number, minOffset: number): RecordTimestamp | null {
  if ((h.attributes & ATTR_LOG_APPEND_TIME) !== 0) return { offset: Math.max(h.baseOffset, minOffset), timestamp: h.maxTimestamp };
  let records;
  try {
    records = decodeRecords(batch);
  } catch (err) {
    if (!(err instanceof UnsupportedCompressionError)) throw err;
    return { offset: Math.max(h.baseOffset, minOffset), timestamp: h.maxTimestamp };
  }
  for (const r of records) {
    const off = h.baseOffset + r.offsetDelta;
    const rts = h.baseTimestamp + r.timestampDelta;
    if (off >= minOffset && rts >= ts) return { offset: off, timestamp: rts };
  }
  return null;
}
