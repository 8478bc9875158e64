/**
 * Which of a partition's oldest segments retention may delete (Kafka's
 * UnifiedLog.deleteRetentionMsBreachedSegments / deleteRetentionSizeBreachedSegments,
 * and their local-retention twins for tiered topics, KIP-405). Pure
 * decisions over the segment list; the partition log persists the new log
 * start offset and deletes the files.
 *
 * Rules: only closed segments are ever counted (the active one is rolled
 * first when it alone has expired, as Kafka does); by time a segment has
 * expired when its newest record (or, when empty, its creation) is older
 * than the limit; by size the oldest segments go while the rest still holds
 * at least the limit.
 */
import type { LogConfig } from "./configs.ts";
import type { Segment } from "./segment.ts";

/** The predicate "this segment is past `limitMs`" (−1 = never). */
export function expiredAfter(limitMs: number, now: number): (s: Segment) => boolean {
  return (s) => limitMs >= 0 && now - (s.maxTimestamp >= 0 ? s.maxTimestamp : s.createdMs) > limitMs;
}

/**
 * Number of leading segments past `limitMs` or beyond `limitBytes`, counting
 * only segments for which `eligible(i)` holds (closed, and for local
 * retention also copied to remote storage).
 */
function dueCount(
  segments: readonly Segment[],
  expired: (s: Segment) => boolean,
  limitBytes: number,
  eligible: (i: number) => boolean,
): number {
  let count = 0;
  while (eligible(count) && expired(segments[count]!)) count++;
  if (limitBytes >= 0) {
    let diff = segments.reduce((n, s) => n + s.size, 0) - limitBytes;
    let i = 0;
    while (eligible(i) && diff - segments[i]!.size >= 0) {
      diff -= segments[i]!.size;
      i++;
    }
    count = Math.max(count, i);
  }
  return count;
}

/** Leading segments that retention.ms / retention.bytes delete. */
export function segmentsDueForRetention(segments: readonly Segment[], cfg: LogConfig, now: number): number {
  return dueCount(segments, expiredAfter(cfg.retentionMs, now), cfg.retentionBytes, (i) => i < segments.length - 1);
}

/**
 * Leading segments that local.retention.ms / local.retention.bytes remove
 * from local disk: only those wholly at or below `copiedUpTo`, the last
 * offset in remote storage, so no data becomes unreadable.
 */
export function segmentsDueForLocalRetention(segments: readonly Segment[], cfg: LogConfig, now: number, copiedUpTo: number): number {
  const copied = (i: number): boolean => i < segments.length - 1 && segments[i]!.nextOffset - 1 <= copiedUpTo;
  return dueCount(segments, expiredAfter(cfg.localRetentionMs, now), cfg.localRetentionBytes, copied);
}
