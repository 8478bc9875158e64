/**
 * Structural check of the records inside one v2 batch (Kafka's
 * DefaultRecord.readFrom and the batch iterator, as LogValidator runs them on
 * produce), without allocating per record:
 *
 *   Record => length:varint attributes:int8 timestampDelta:varlong offsetDelta:varint
 *             keyLength:varint key valueLength:varint value headerCount:varint
 *             [headerKeyLength:varint headerKey headerValueLength:varint headerValue]
 *
 * Every record must parse to exactly its declared length, offset deltas must
 * be 0, 1, 2, … (this broker stores batches as produced, so a consumer's
 * offsets come from these deltas), the number of records must be the
 * header's record count and nothing may follow the last record. Kafka
 * answers such batches with INVALID_RECORD (InvalidRecordException).
 */
import { StorageError } from "./errors.ts";

export interface RecordStats {
  /** Smallest and largest timestampDelta seen (record timestamp = baseTimestamp + delta). */
  minTimestampDelta: number;
  maxTimestampDelta: number;
}

class RecordFormatError extends Error {}

/** Checks the records in buf[start, end); throws StorageError(INVALID_RECORD) naming the first problem. */
export function checkRecords(buf: Buffer, start: number, end: number, recordCount: number): RecordStats {
  let pos = start;
  // Zigzag varint (≤ 5 bytes) / varlong (≤ 10 bytes), as plain numbers: deltas beyond 2^53 lose precision, never validity.
  const varint = (maxBytes: number): number => {
    let raw = 0;
    let mul = 1;
    for (let i = 0; i < maxBytes; i++) {
      if (pos >= end) throw new RecordFormatError("a varint runs past the end of the records");
      const b = buf[pos++]!;
      raw += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
      mul *= 128;
    }
    throw new RecordFormatError(`a varint is longer than ${maxBytes} bytes`);
  };
  const skip = (n: number, what: string): void => {
    if (n > end - pos) throw new RecordFormatError(`${what} of ${n} bytes runs past the end of the records`);
    pos += n;
  };
  const stats: RecordStats = { minTimestampDelta: Number.POSITIVE_INFINITY, maxTimestampDelta: Number.NEGATIVE_INFINITY };
  let index = 0;
  try {
    while (pos < end) {
      if (index >= recordCount) throw new RecordFormatError(`more records than the record count ${recordCount}`);
      const length = varint(5);
      if (length < 0 || length > end - pos) throw new RecordFormatError(`record ${index} has invalid length ${length}`);
      const recordEnd = pos + length;
      skip(1, "the attributes");
      const tsDelta = varint(10);
      const offsetDelta = varint(5);
      if (offsetDelta !== index) throw new RecordFormatError(`record ${index} has offset delta ${offsetDelta}`);
      const keyLength = varint(5);
      if (keyLength >= 0) skip(keyLength, "a key");
      else if (keyLength !== -1) throw new RecordFormatError(`record ${index} has key length ${keyLength}`);
      const valueLength = varint(5);
      if (valueLength >= 0) skip(valueLength, "a value");
      else if (valueLength !== -1) throw new RecordFormatError(`record ${index} has value length ${valueLength}`);
      const headers = varint(5);
      if (headers < 0) throw new RecordFormatError(`record ${index} has ${headers} headers`);
      for (let h = 0; h < headers; h++) {
        const hk = varint(5);
        if (hk < 0) throw new RecordFormatError(`record ${index} has a header key of length ${hk}`);
        skip(hk, "a header key");
        const hv = varint(5);
        if (hv >= 0) skip(hv, "a header value");
        else if (hv !== -1) throw new RecordFormatError(`record ${index} has a header value of length ${hv}`);
      }
      if (pos !== recordEnd) {
        throw new RecordFormatError(`Invalid record size: expected to read ${length} bytes in record payload, but instead read ${pos - (recordEnd - length)}`);
      }
      if (tsDelta < stats.minTimestampDelta) stats.minTimestampDelta = tsDelta;
      if (tsDelta > stats.maxTimestampDelta) stats.maxTimestampDelta = tsDelta;
      index++;
    }
  } catch (err) {
    if (err instanceof RecordFormatError) throw new StorageError("INVALID_RECORD", `invalid record batch: ${err.message}`);
    throw err;
  }
  if (index !== recordCount) {
    throw new StorageError("INVALID_RECORD", `invalid record batch: the header says ${recordCount} records but it holds ${index}`);
  }
  return stats;
}
