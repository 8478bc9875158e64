// The maintenance work on one partition's log: DeleteRecords, retention
// (retention.* and, for a tiered partition, local.retention.*) and compaction.
// PartitionLog (partition-log.ts) runs each of these in its maintenance queue,
// one at a time, beside the writer; segment removals and swaps take the read
// gate exclusively, so a read never sees a segment disappear under it.
import { compactSegments } from "./compaction.ts";
import type { LogConfig } from "./configs.ts";
import { fsyncDir, type FileHandleCache } from "./files.ts";
import type { ReadWriteGate, SerialQueue } from "./locks.ts";
import { expiredAfter, segmentsDueForLocalRetention, segmentsDueForRetention } from "./retention.ts";
import type { Segment } from "./segment.ts";
import type { PartitionTier } from "./tiered/types.ts";

/** What maintenance needs of a partition log (its state is the log's; these read and change it). */
export interface MaintainedLog {
  readonly dir: string;
  readonly files: FileHandleCache;
  readonly gate: ReadWriteGate;
  /** The partition's single writer: rolls run in it. */
  readonly writer: SerialQueue;
  config(): LogConfig;
  segments(): Segment[];
  setSegments(segments: Segment[]): void;
  logStartOffset(): number;
  /** Persists `offset` as the log start offset durably, then makes it current. */
  raiseLogStartOffset(offset: number): Promise<void>;
  stableOffset(): number;
  /** Rolls the active segment; must run inside the writer. */
  roll(): Promise<void>;
}

function active(log: MaintainedLog): Segment {
  const segs = log.segments();
  return segs[segs.length - 1]!;
}

/** DeleteRecords: moves the log start offset up to `target` durably and deletes the segments wholly below it. */
export async function deleteRecordsBefore(log: MaintainedLog, target: number): Promise<void> {
  if (target > log.logStartOffset()) await log.raiseLogStartOffset(target);
  await deleteSegmentsBelowLso(log);
}

async function deleteSegmentsBelowLso(log: MaintainedLog): Promise<void> {
  const segments = log.segments();
  const doomed: Segment[] = [];
  while (segments.length - doomed.length > 1 && segments[doomed.length + 1]!.baseOffset <= log.logStartOffset()) {
    doomed.push(segments[doomed.length]!);
  }
  if (doomed.length === 0) return;
  await log.gate.exclusive(async () => {
    log.setSegments(log.segments().slice(doomed.length));
  });
  for (const s of doomed) await s.deleteFiles();
}

/** Deletes whole closed segments by retention.ms and retention.bytes; returns the number deleted. */
export async function runRetention(log: MaintainedLog, now: number): Promise<number> {
  const cfg = log.config();
  const expired = expiredAfter(cfg.retentionMs, now);
  // Kafka rolls an expired active segment so that retention can reach it.
  await log.writer.run(async () => {
    if (active(log).size > 0 && log.segments().every(expired)) await log.roll();
  });
  const segments = log.segments();
  const count = segmentsDueForRetention(segments, cfg, now);
  if (count === 0) return 0;
  const newLso = Math.max(log.logStartOffset(), segments[count]!.baseOffset);
  if (newLso > log.logStartOffset()) await log.raiseLogStartOffset(newLso);
  const before = log.segments().length;
  await deleteSegmentsBelowLso(log);
  return before - log.segments().length;
}

/**
 * Local retention of a tiered partition (KIP-405): deletes the oldest local
 * segments that are both copied to remote storage and past
 * local.retention.ms / local.retention.bytes. Only the local log start
 * offset moves; the data stays readable from remote storage, and total
 * retention (retention.ms / retention.bytes) is applied to remote segments
 * by the remote log manager, which moves the log start offset.
 */
export async function runLocalRetention(log: MaintainedLog, tier: PartitionTier, now: number): Promise<number> {
  const cfg = log.config();
  const expired = expiredAfter(cfg.localRetentionMs, now);
  // Roll an idle, expired active segment so that it can be copied and then leave local disk.
  await log.writer.run(async () => {
    if (active(log).size > 0 && log.segments().every(expired)) await log.roll();
  });
  const count = segmentsDueForLocalRetention(log.segments(), cfg, now, tier.highestOffset());
  if (count === 0) return 0;
  const doomed = log.segments().slice(0, count);
  await log.gate.exclusive(async () => {
    log.setSegments(log.segments().slice(count));
  });
  for (const seg of doomed) await seg.deleteFiles();
  await fsyncDir(log.dir);
  return count;
}

/**
 * Compacts the closed segments (cleanup.policy includes compact): keeps the
 * latest record per key, drops tombstones older than delete.retention.ms;
 * see compaction.ts. Returns records removed.
 */
export function compact(log: MaintainedLog, now: number): Promise<number> {
  const cfg = log.config();
  const segments = log.segments();
  return compactSegments(
    // Only decided data: closed segments wholly below the last stable offset.
    segments.slice(0, -1).filter((s) => s.nextOffset <= log.stableOffset()),
    {
      dir: log.dir,
      files: log.files,
      gate: log.gate,
      indexIntervalBytes: cfg.indexIntervalBytes,
      deleteRetentionMs: cfg.deleteRetentionMs,
      replaceSegment: (old, next) => {
        log.setSegments(log.segments().map((s) => (s === old ? next : s)));
      },
      // An abort's index entry is in the segment of its marker, at or after the data's.
      isAborted: (producerId, offset) => log.segments().some((s) => s.nextOffset > offset && s.txnIndex.isAborted(producerId, offset)),
    },
    now,
  );
}
