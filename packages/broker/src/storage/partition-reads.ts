/**
 * Reads of one partition log: Fetch's whole batches and ListOffsets'
 * timestamp lookups, over local segments and, below the first local
 * segment, remote (tiered) storage.
 *
 * Reads hold the partition's gate shared while they pick a segment and read
 * its file, so segment deletion and compaction swaps (which take it
 * exclusive) never pull a file from under a read or pair an old index with
 * a new file. Only whole, written batches are visible: `logEndOffset` and a
 * segment's size advance after the bytes are written.
 */
import { LOG_OVERHEAD } from "./batch.ts";
import { StorageError } from "./errors.ts";
import type { ReadWriteGate } from "./locks.ts";
import type { Segment } from "./segment.ts";
import type { PartitionTier } from "./tiered/types.ts";
import { firstRecordAtOrAfter } from "./timestamp-search.ts";
import { collectAbortedTransactions, type AbortedTxn } from "./txn-index.ts";

/** What a read needs of the partition log; the functions return its current state. */
export interface LogView {
  readonly topic: string;
  readonly partition: number;
  /** Oldest first; the list is replaced (never mutated) when segments are added or removed. */
  segments(): readonly Segment[];
  logStartOffset(): number;
  logEndOffset(): number;
  /** First offset of an open transaction, else the log end offset. */
  lastStableOffset(): number;
  readonly tier: PartitionTier | null;
  readonly gate: ReadWriteGate;
}

export interface ReadOptions {
  /** READ_COMMITTED reads stop before the first batch at or after the LSO. */
  isolation?: "read_uncommitted" | "read_committed";
}

export interface ReadResult {
  /** Whole batches starting with the one containing fetchOffset; empty at the log end. */
  records: Buffer;
  highWatermark: bigint;
  lastStableOffset: bigint;
  logStartOffset: bigint;
}

export interface TimestampAndOffset {
  offset: bigint;
  timestamp: bigint;
}

/**
 * Whole batches from the one containing `fetchOffset`, at most `maxBytes`
 * unless the first batch alone is larger (KIP-74: always make progress).
 */
export async function readBatches(log: LogView, fetchOffset: bigint, maxBytes: number, opts: ReadOptions = {}): Promise<ReadResult> {
  const off = Number(fetchOffset);
  const hw = log.logEndOffset();
  const lso = log.lastStableOffset();
  const committedOnly = opts.isolation === "read_committed";
  // The LSO is the base offset of an open transaction's first batch, so no batch straddles it.
  const result = (records: Buffer): ReadResult => ({
    records: committedOnly ? batchesBelow(records, lso) : records,
    highWatermark: BigInt(hw),
    lastStableOffset: BigInt(lso),
    logStartOffset: BigInt(log.logStartOffset()),
  });
  if (off < log.logStartOffset() || off > hw) {
    throw new StorageError(
      "OFFSET_OUT_OF_RANGE",
      `fetch offset ${off} is outside [${log.logStartOffset()}, ${hw}] for ${log.topic}-${log.partition}`,
    );
  }
  if (off === hw || (committedOnly && off >= lso)) return result(Buffer.alloc(0));
  const local = await log.gate.shared(async () => {
    const segs = log.segments();
    // Below the first local segment: the data is in remote storage (checked
    // under the gate, so a segment deleted meanwhile is never skipped over).
    if (log.tier && off < segs[0]!.baseOffset) return null;
    for (let i = segmentIndexFor(off, segs); i < segs.length; i++) {
      const seg = segs[i]!;
      if (seg.nextOffset <= off) continue;
      const found = await seg.readBatches(off, Math.max(1, maxBytes));
      if (found) return result(found);
    }
    return result(Buffer.alloc(0));
  });
  if (local) return local;
  const remote = await log.tier!.read(off, Math.max(1, maxBytes)).catch((err: unknown) => {
    // Remote retention may have deleted the segment while we read it.
    if (off < log.logStartOffset()) return null;
    throw err;
  });
  if (off < log.logStartOffset()) {
    throw new StorageError("OFFSET_OUT_OF_RANGE", `fetch offset ${off} is below the log start offset ${log.logStartOffset()} of ${log.topic}-${log.partition}`);
  }
  if (!remote) {
    throw new StorageError("KAFKA_STORAGE_ERROR", `offset ${off} of ${log.topic}-${log.partition} is neither local nor in remote storage`);
  }
  return result(remote);
}

/** The leading whole batches of `records` whose base offset is below `end`. */
export function batchesBelow(records: Buffer, end: number): Buffer {
  let pos = 0;
  while (pos + LOG_OVERHEAD <= records.length) {
    if (Number(records.readBigInt64BE(pos)) >= end) return records.subarray(0, pos);
    pos += records.readInt32BE(pos + 8) + LOG_OVERHEAD;
  }
  return records;
}

function segmentIndexFor(offset: number, segs: readonly Segment[]): number {
  let lo = 0;
  let hi = segs.length - 1;
  let ans = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (segs[mid]!.baseOffset <= offset) {
      ans = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return ans;
}

/** First offset whose record timestamp is ≥ ts (ListOffsets); null when none. */
export async function offsetForTimestamp(log: LogView, ts: bigint): Promise<TimestampAndOffset | null> {
      const target = Number(ts);
  if (log.tier && log.tier.highestOffset() >= log.logStartOffset()) {
    const hit = await log.tier.offsetForTimestamp(target, log.logStartOffset());
    if (hit && hit.offset < Math.max(log.logStartOffset(), log.segments()[0]!.baseOffset)) return { offset: BigInt(hit.offset), timestamp: BigInt(hit.timestamp) };
  }
  return log.gate.shared(async () => {
    for (const seg of log.segments()) {
      if (seg.maxTimestamp < target || seg.nextOffset <= log.logStartOffset()) continue;
      const from = Math.max(seg.timeLookup(target), log.logStartOffset());
      let hit: TimestampAndOffset | null = null;
      await seg.scan(seg.lookup(from), seg.size, true, (h, _pos, bytes) => {
        if (h.baseOffset + h.lastOffsetDelta < from || h.maxTimestamp < target || !bytes) return false;
        hit = toBigints(firstRecordAtOrAfter(h, bytes, target, from));
        return hit !== null;
      });
      if (hit) return hit;
    }
    return null;
  });
}

/** The record with the largest timestamp (ListOffsets MAX_TIMESTAMP, −3); null when empty. */
export async function maxTimestampOffset(log: LogView): Promise<TimestampAndOffset | null> {
      let best: Segment | null = null;
  for (const seg of log.segments()) {
    if (seg.nextOffset <= log.logStartOffset() || seg.maxTimestamp < 0) continue;
    if (!best || seg.maxTimestamp > best.maxTimestamp) best = seg;
  }
  if (log.tier && log.tier.highestOffset() >= log.logStartOffset()) {
    const remote = await log.tier.maxTimestamp(log.logStartOffset());
    // Ties go to the earlier (remote) record, as Kafka returns the first record with the max timestamp.
    if (remote && (!best || remote.timestamp >= best.maxTimestamp)) {
      return { offset: BigInt(remote.offset), timestamp: BigInt(remote.timestamp) };
    }
  }
  if (!best) return null;
  const seg = best;
  const maxTs = seg.maxTimestamp;
  // The index remembers the batch; find the exact record inside it (KAFKA-16310).
  return log.gate.shared(async () => {
    let hit: TimestampAndOffset | null = null;
    await seg.scan(seg.lookup(seg.offsetOfMaxTimestamp), seg.size, true, (h, _pos, bytes) => {
      if (h.maxTimestamp !== maxTs || !bytes) return false;
      hit = toBigints(firstRecordAtOrAfter(h, bytes, maxTs, log.logStartOffset()));
      return hit !== null;
    });
    return hit ?? { offset: BigInt(seg.offsetOfMaxTimestamp), timestamp: BigInt(maxTs) };
  });
}

function toBigints(hit: { offset: number; timestamp: number } | null): TimestampAndOffset | null {
  return hit === null ? null : { offset: BigInt(hit.offset), timestamp: BigInt(hit.timestamp) };
}

/**
 * Aborted transactions overlapping [from, to), by first offset: the
 * transaction indexes of the segment holding `from` and those after it
 * (txn-index.ts), the remote segments' indexes first for offsets in remote storage.
 */
export async function abortedTransactions(log: LogView, from: number, to: number): Promise<AbortedTxn[]> {
  const segs = log.segments();
  const local = segs.filter((s, i) => s.nextOffset > from || i === segs.length - 1).map((s) => s.txnIndex);
  const remote = log.tier && from < segs[0]!.baseOffset ? await log.tier.txnIndexesFrom(from) : [];
  return collectAbortedTransactions([...remote, ...local], from, to);
}
