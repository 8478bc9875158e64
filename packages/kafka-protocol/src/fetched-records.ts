/*
 * The records a Fetch response carries for one partition, as a consumer sees
 * them: absolute offsets and timestamps, control batches (transaction
 * markers) left out, and — for READ_COMMITTED — records of aborted
 * transactions left out using the response's aborted_transactions list
 * (Kafka's consumer algorithm: a producer's records are skipped from the
 * aborted transaction's first offset until that producer's abort marker).
 * Batches below `fromOffset` (a fetch starts at the batch containing the
 * offset asked for) are trimmed. Pure: shared by the worker and the portal.
 */
import { compressionName, decodeRecordBatch, iterateBatches, TimestampType, type RecordHeader } from "./record-batch.ts";

export interface FetchedRecord {
  offset: bigint;
  /** Milliseconds since the epoch (CreateTime or LogAppendTime, see timestampType). */
  timestamp: bigint;
  timestampType: "CreateTime" | "LogAppendTime";
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
  /** Compressed size of the batch the record came in, divided by its record count: an estimate of its bytes on disk. */
  sizeEstimate: number;
}

export interface AbortedTransaction {
  producerId: bigint;
  firstOffset: bigint;
}

export interface DecodedFetch {
  records: FetchedRecord[];
  /** Offset to fetch next: one past the last batch seen (even a skipped one), or `fromOffset` when nothing complete came. */
  nextOffset: bigint;
  /** A batch this code cannot decode (e.g. snappy, lz4, zstd): the records before it are returned, reading stops there. */
  undecodable: { offset: bigint; reason: string } | null;
}

export function decodeFetchedRecords(buf: Buffer | null, fromOffset: bigint, aborted: readonly AbortedTransaction[] = []): DecodedFetch {
  const records: FetchedRecord[] = [];
  let nextOffset = fromOffset;
  if (!buf || buf.length === 0) return { records, nextOffset, undecodable: null };
  // Aborted transactions, ordered by first offset; a producer becomes "aborted" once its first offset is reached.
  const pending = [...aborted].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
  const abortedProducers = new Set<bigint>();
  for (const { header, bytes } of iterateBatches(buf)) {
    const last = header.baseOffset + BigInt(header.lastOffsetDelta);
    while (pending.length > 0 && pending[0]!.firstOffset <= last) abortedProducers.add(pending.shift()!.producerId);
    if (last < fromOffset) continue;
    if (header.isControl) {
      // A transaction marker (commit or abort) ends that producer's transaction.
      if (header.isTransactional) abortedProducers.delete(header.producerId);
      nextOffset = last + 1n;
      continue;
    }
    if (header.isTransactional && abortedProducers.has(header.producerId)) {
      nextOffset = last + 1n;
      continue;
    }
    let batch;
    try {
      batch = decodeRecordBatch(bytes);
    } catch (error) {
      const reason =
        header.compression !== 0 && !(error instanceof Error && /CRC|length|count/.test(error.message))
          ? `compressed with ${compressionName(header.compression)}, which this reader cannot decompress`
          : error instanceof Error
            ? error.message
            : String(error);
      return { records, nextOffset, undecodable: { offset: header.baseOffset, reason } };
    }
    const sizeEstimate = Math.ceil(bytes.length / Math.max(1, batch.records.length));
    for (const r of batch.records) {
      const offset = header.baseOffset + BigInt(r.offsetDelta);
      if (offset < fromOffset) continue;
      records.push({
        offset,
        timestamp: header.timestampType === TimestampType.LogAppendTime ? header.maxTimestamp : header.baseTimestamp + BigInt(r.timestampDelta),
        timestampType: header.timestampType === TimestampType.LogAppendTime ? "LogAppendTime" : "CreateTime",
        key: r.key,
        value: r.value,
        headers: r.headers,
        sizeEstimate,
      });
    }
    nextOffset = last + 1n;
  }
  return { records, nextOffset, undecodable: null };
}
