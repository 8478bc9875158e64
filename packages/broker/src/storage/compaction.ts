/**
 * Log compaction of one partition's closed segments (cleanup.policy
 * containing compact; Kafka's LogCleaner, simplified to one node): keeps the
 * latest record per key, drops tombstones older than delete.retention.ms,
 * and preserves offsets and producer header fields.
 *
 * Transactions (as Kafka's cleaner): only segments wholly below the last
 * stable offset are given to it, so every transaction in them is decided;
 * records of aborted transactions are removed and never count as a key's
 * latest value; markers (control batches) are kept, so READ_COMMITTED
 * readers of what remains still see every transaction end.
 *
 * Crash safety: each segment that loses records is rewritten to
 * `<base>.log.cleaned`, fsynced, renamed to `.log.swap` and then over the
 * `.log`; the partition's loader drops `.cleaned` and completes `.swap`
 * (see partition-log.ts), so a crash at any point leaves either the old or
 * the new segment, never a mix.
 */
import { createHash } from "node:crypto";
import { open, rename, rm } from "node:fs/promises";
import { ATTR_CONTROL, ATTR_LOG_APPEND_TIME, ATTR_TRANSACTIONAL, UnsupportedCompressionError, decodeRecords, rebuildBatch, type BatchHeader } from "./batch.ts";
import { fsyncDir, writevFully, type FileHandleCache } from "./files.ts";
import type { ReadWriteGate } from "./locks.ts";
import { Segment } from "./segment.ts";

export interface CompactionContext {
  /** The partition directory. */
  dir: string;
  files: FileHandleCache;
  /** The partition's read gate: swaps take it exclusive so no read pairs an old index with a new file. */
  gate: ReadWriteGate;
  indexIntervalBytes: number;
  deleteRetentionMs: number;
  /** Puts the rewritten segment in place of the original (called under the exclusive gate). */
  replaceSegment: (old: Segment, next: Segment) => void;
  /** True when the transactional batch of `producerId` at `offset` belongs to an aborted transaction. */
  isAborted: (producerId: number, offset: number) => boolean;
}

/** Compacts `closed` (the closed segments, oldest first); returns the number of records removed. */
export async function compactSegments(closed: readonly Segment[], ctx: CompactionContext, now: number): Promise<number> {
  if (closed.length === 0) return 0;
  const aborted = (h: BatchHeader): boolean => (h.attributes & (ATTR_TRANSACTIONAL | ATTR_CONTROL)) === ATTR_TRANSACTIONAL && ctx.isAborted(h.producerId, h.baseOffset);

  // Pass 1: latest offset per key over the closed segments (keys by digest to bound memory).
  const latest = new Map<string, number>();
  const digest = (k: Buffer): string => createHash("sha1").update(k).digest().toString("latin1");
  for (const seg of closed) {
    await ctx.gate.shared(() =>
      seg.scan(0, seg.size, true, (h, _pos, bytes) => {
        if (!bytes || (h.attributes & ATTR_CONTROL) !== 0 || aborted(h)) return;
        let recs;
        try {
          recs = decodeRecords(bytes);
        } catch (err) {
          if (err instanceof UnsupportedCompressionError) return;
          throw err;
        }
        for (const r of recs) if (r.key) latest.set(digest(r.key), h.baseOffset + r.offsetDelta);
      }),
    );
  }

  // Pass 2: rewrite each segment that loses records.
  let removed = 0;
  const horizon = now - ctx.deleteRetentionMs;
  for (const seg of closed) {
    const cleanedPath = `${seg.logPath}.cleaned`;
    const swapPath = `${seg.logPath}.swap`;
    const out = await open(cleanedPath, "w");
    let changed = false;
    let position = 0;
    try {
      await ctx.gate.shared(() =>
        seg.scan(0, seg.size, true, async (h, _pos, bytes) => {
          if (!bytes) return;
          if (aborted(h)) {
            changed = true;
            removed += h.recordCount;
            return;
          }
          let batch = bytes;
          if ((h.attributes & ATTR_CONTROL) === 0) {
            let recs;
            try {
              recs = decodeRecords(bytes);
            } catch (err) {
              if (!(err instanceof UnsupportedCompressionError)) throw err;
              recs = null; // kept as is
            }
            if (recs) {
              const logAppend = (h.attributes & ATTR_LOG_APPEND_TIME) !== 0;
              const keep = recs.filter((r) => {
                if (!r.key) return true;
                if (latest.get(digest(r.key)) !== h.baseOffset + r.offsetDelta) return false;
                const ts = logAppend ? h.maxTimestamp : h.baseTimestamp + r.timestampDelta;
                return r.value !== null || ts >= horizon;
              });
              if (keep.length !== recs.length) {
                changed = true;
                removed += recs.length - keep.length;
                if (keep.length === 0) return;
                batch = rebuildBatch(bytes, keep);
              }
            }
          }
          await writevFully(out, [batch], position);
          position += batch.length;
        }),
      );
      await out.sync();
    } finally {
      await out.close();
    }
    if (!changed) {
      await rm(cleanedPath, { force: true });
      continue;
    }
    await rename(cleanedPath, swapPath);
    await fsyncDir(ctx.dir);
    await ctx.gate.exclusive(async () => {
      await rm(seg.indexPath, { force: true });
      await rm(seg.timeIndexPath, { force: true });
      ctx.files.retire(seg.logPath);
      await rename(swapPath, seg.logPath);
      await fsyncDir(ctx.dir);
      const { segment } = await Segment.open(ctx.dir, seg.baseOffset, ctx.files, ctx.indexIntervalBytes, true);
      await segment.writeIndexes();
      ctx.replaceSegment(seg, segment);
    });
  }
  return removed;
}
