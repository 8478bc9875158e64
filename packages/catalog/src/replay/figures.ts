/*
 * What a replay means per partition, before anything moves: the records the
 * group reads from its new position to the current end, how many of them it
 * had read already (or skips, moving forward), and which part comes from the
 * object store (below the partition's earliest local offset, KIP-405) versus
 * the brokers' disks, with byte estimates from the observed bytes per record
 * of each tier. Offsets count records exactly for topics without gaps; on a
 * compacted topic they are an upper bound.
 */

export interface PartitionReplayInput {
  partition: number;
  earliest: bigint;
  end: bigint;
  /** The group's committed offset (null: none yet, it would start at the log start). */
  committed: bigint | null;
  target: bigint;
  /** Earliest offset still on the brokers' disks; null: unknown (the cluster does not say). */
  earliestLocal: bigint | null;
  /** Observed bytes per record on disk, per tier; null: unknown. */
  localBytesPerRecord: number | null;
  remoteBytesPerRecord: number | null;
}

export interface PartitionReplayFigures {
  partition: number;
  from: string | null;
  to: string;
  end: string;
  records: number;
  rereadRecords: number;
  skippedRecords: number;
  remoteRecords: number | null;
  localRecords: number | null;
  remoteBytes: number | null;
  localBytes: number | null;
}

const n = (v: bigint) => Number(v < 0n ? 0n : v);

export function partitionReplayFigures(p: PartitionReplayInput): PartitionReplayFigures {
  const current = p.committed ?? p.earliest;
  const records = n(p.end - p.target);
  const local = p.earliestLocal === null ? null : p.earliestLocal > p.end ? p.end : p.earliestLocal < p.earliest ? p.earliest : p.earliestLocal;
  const remoteRecords = local === null ? null : n((local < p.end ? local : p.end) - p.target);
  const localRecords = remoteRecords === null ? null : records - remoteRecords;
  return {
    partition: p.partition,
    from: p.committed === null ? null : p.committed.toString(),
    to: p.target.toString(),
    end: p.end.toString(),
    records,
    rereadRecords: n(current - p.target),
    skippedRecords: n(p.target - current),
    remoteRecords,
    localRecords,
    remoteBytes: remoteRecords === null || p.remoteBytesPerRecord === null ? (remoteRecords === 0 ? 0 : null) : Math.round(remoteRecords * p.remoteBytesPerRecord),
    localBytes: localRecords === null || p.localBytesPerRecord === null ? (localRecords === 0 ? 0 : null) : Math.round(localRecords * p.localBytesPerRecord),
  };
}

export interface ReplayTotals {
  records: number;
  rereadRecords: number;
  skippedRecords: number;
  remoteRecords: number | null;
  localRecords: number | null;
  remoteBytes: number | null;
  localBytes: number | null;
}

export function replayTotals(parts: readonly PartitionReplayFigures[]): ReplayTotals {
  const sum = (k: "remoteRecords" | "localRecords" | "remoteBytes" | "localBytes") => (parts.some((p) => p[k] === null) ? null : parts.reduce((a, p) => a + (p[k] ?? 0), 0));
  return {
    records: parts.reduce((a, p) => a + p.records, 0),
    rereadRecords: parts.reduce((a, p) => a + p.rereadRecords, 0),
    skippedRecords: parts.reduce((a, p) => a + p.skippedRecords, 0),
    remoteRecords: sum("remoteRecords"),
    localRecords: sum("localRecords"),
    remoteBytes: sum("remoteBytes"),
    localBytes: sum("localBytes"),
  };
}

/**
 * Records per second the group consumed recently, from per-minute samples of
 * the topic's end offset and the group's lag: consumed = Δend − Δlag.
 * null when fewer than two samples overlap or the group consumed nothing.
 */
export function consumptionRate(topicSamples: readonly { bucket: Date; endOffset: bigint }[], lagSamples: readonly { bucket: Date; totalLag: bigint }[]): number | null {
  const ends = new Map(topicSamples.map((s) => [s.bucket.getTime(), s.endOffset]));
  const joined = lagSamples.filter((l) => ends.has(l.bucket.getTime())).sort((a, b) => a.bucket.getTime() - b.bucket.getTime());
  const first = joined[0];
  const last = joined[joined.length - 1];
  if (!first || !last || first === last) return null;
  const consumed = Number((ends.get(last.bucket.getTime()) ?? 0n) - (ends.get(first.bucket.getTime()) ?? 0n)) - Number(last.totalLag - first.totalLag);
  const seconds = (last.bucket.getTime() - first.bucket.getTime()) / 1000;
  return consumed > 0 && seconds > 0 ? consumed / seconds : null;
}
