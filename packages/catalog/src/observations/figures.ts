/*
 * Pure figures over what the worker records in TopicObservation and
 * ConsumerGroupObservation: the replay window (what a consumer can still read
 * and what of it is served from object storage) and the parsing of the
 * per-partition JSON detail. No I/O and no server-only imports, so the
 * portal's pages and the catalog's queries compute them the same way.
 */

/** One partition as the worker stores it in TopicObservation.partitionDetail (offsets as strings, null = unknown). */
export interface PartitionOffsets {
  partition: number;
  endOffset: number | null;
  earliestOffset: number | null;
  earliestLocalOffset: number | null;
  latestTieredOffset: number | null;
  localBytes: number | null;
  remoteBytes: number | null;
}

export type OffsetRange = { kind: "range"; first: number; last: number; count: number } | { kind: "none" } | { kind: "unknown" };

export interface PartitionReplay {
  partition: number;
  /** The first offset a consumer can still read (Kafka's log start, EARLIEST). */
  from: number | null;
  /** The next offset to be written (high watermark). */
  end: number | null;
  /** Read from the object store: earliest offset up to the earliest local offset. */
  remote: OffsetRange;
  /** Read from the broker's disk: earliest local offset up to the end. */
  local: OffsetRange;
}

/** When a given offset was written, estimated from the per-minute history. */
export type TimeEstimate =
  | { kind: "about"; at: string }
  /** Already written when the history starts: older than that. */
  | { kind: "before"; at: string }
  | { kind: "unknown" };

export interface ReplayWindow {
  partitions: PartitionReplay[];
  /** Records a consumer can replay, over all partitions. */
  records: number | null;
  /** Of those, how many are served from object storage. */
  remoteRecords: number | null;
  /** When the oldest replayable records were written. */
  from: TimeEstimate;
  /** Records written before this are read from object storage. */
  localFrom: TimeEstimate;
}

function range(first: number | null, endExclusive: number | null): OffsetRange {
  if (first === null || endExclusive === null) return { kind: "unknown" };
  if (endExclusive <= first) return { kind: "none" };
  return { kind: "range", first, last: endExclusive - 1, count: endExclusive - first };
}

/**
 * Per partition, the offsets a consumer can replay and where they are read
 * from. Kafka's EARLIEST_LOCAL (−4) equals the log start when nothing is
 * tiered, so the remote range is then empty rather than unknown; it is
 * unknown only when the cluster could not answer −4 at all.
 */
export function partitionReplay(p: PartitionOffsets): PartitionReplay {
  return {
    partition: p.partition,
    from: p.earliestOffset,
    end: p.endOffset,
    remote: range(p.earliestOffset, p.earliestLocalOffset),
    local: range(p.earliestLocalOffset, p.endOffset),
  };
}

function sum(values: (number | null)[]): number | null {
  let total = 0;
  for (const v of values) {
    if (v === null) return null;
    total += v;
  }
  return total;
}

const countOf = (r: OffsetRange): number | null => (r.kind === "range" ? r.count : r.kind === "none" ? 0 : null);

/**
 * A sample of the topic's history: the bucket and the topic's end offset summed
 * over partitions, as TopicObservationSample stores it.
 */
export interface OffsetSample {
  bucket: string;
  endOffset: number;
}

/**
 * When the records at `offset` (summed over partitions, like the samples) were
 * written: the first minute whose end offset passed it. If the history already
 * starts past it, those records are older than the history. Summing offsets
 * over partitions makes this an estimate, which is how the page labels it.
 */
export function estimateOffsetTime(offset: number | null, oldest: OffsetSample | null, firstPast: OffsetSample | null): TimeEstimate {
  if (offset === null || oldest === null || firstPast === null) return { kind: "unknown" };
  if (firstPast.bucket === oldest.bucket) return { kind: "before", at: oldest.bucket };
  return { kind: "about", at: firstPast.bucket };
}

export function replayWindow(
  partitions: PartitionOffsets[],
  times: { from: TimeEstimate; localFrom: TimeEstimate } = { from: { kind: "unknown" }, localFrom: { kind: "unknown" } },
): ReplayWindow {
  const replays = [...partitions].sort((a, b) => a.partition - b.partition).map(partitionReplay);
  return {
    partitions: replays,
    records: sum(replays.map((r) => (r.from === null || r.end === null ? null : Math.max(0, r.end - r.from)))),
    remoteRecords: sum(replays.map((r) => countOf(r.remote))),
    from: times.from,
    localFrom: times.localFrom,
  };
}


/** Parses the worker's JSON partition detail; a malformed entry is unknown, not zero. */
export function parsePartitionOffsets(detail: unknown): PartitionOffsets[] {
  if (!Array.isArray(detail)) return [];
  const num = (v: unknown): number | null => {
    if (typeof v === "number" && Number.isFinite(v)) return v;
    if (typeof v === "string" && /^-?\d+$/.test(v)) return Number(v);
    return null;
  };
  return detail.flatMap((d: unknown) => {
    if (typeof d !== "object" || d === null || !("partition" in d)) return [];
    const r = d as Record<string, unknown>;
    const partition = num(r.partition);
    if (partition === null) return [];
    return [
      {
        partition,
        endOffset: num(r.endOffset),
        earliestOffset: num(r.earliestOffset),
        earliestLocalOffset: num(r.earliestLocalOffset),
        // Kafka's −1 for LATEST_TIERED means "nothing tiered", a real answer.
        latestTieredOffset: num(r.latestTieredOffset),
        localBytes: num(r.localBytes),
        remoteBytes: num(r.remoteBytes),
      },
    ];
  });
}

export interface PartitionLag {
  partition: number;
  committedOffset: number | null;
  endOffset: number | null;
  lag: number | null;
}

/** Who holds a group's partitions of a topic: one entry per member, as the worker recorded it (`owner` per partition). */
export interface GroupMemberAssignment {
  memberId: string;
  clientId: string;
  clientHost: string;
  partitions: number[];
}

export function parseGroupAssignment(detail: unknown): GroupMemberAssignment[] {
  if (!Array.isArray(detail)) return [];
  const byMember = new Map<string, GroupMemberAssignment>();
  for (const d of detail as unknown[]) {
    if (typeof d !== "object" || d === null) continue;
    const r = d as Record<string, unknown>;
    const o = r.owner as Record<string, unknown> | undefined;
    if (typeof r.partition !== "number" || !Number.isInteger(r.partition) || typeof o !== "object" || o === null) continue;
    if (typeof o.memberId !== "string" || typeof o.clientId !== "string" || typeof o.clientHost !== "string") continue;
    let m = byMember.get(o.memberId);
    if (!m) byMember.set(o.memberId, (m = { memberId: o.memberId, clientId: o.clientId, clientHost: o.clientHost, partitions: [] }));
    m.partitions.push(r.partition);
  }
  for (const m of byMember.values()) m.partitions.sort((a, b) => a - b);
  return [...byMember.values()].sort((a, b) => (a.partitions[0] ?? 0) - (b.partitions[0] ?? 0));
}

export function parsePartitionLag(detail: unknown): PartitionLag[] {
  if (!Array.isArray(detail)) return [];
  const num = (v: unknown): number | null => (typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : typeof v === "number" && Number.isFinite(v) ? v : null);
  return detail
    .flatMap((d: unknown) => {
      if (typeof d !== "object" || d === null) return [];
      const r = d as Record<string, unknown>;
      const partition = num(r.partition);
      return partition === null ? [] : [{ partition, committedOffset: num(r.committedOffset), endOffset: num(r.endOffset), lag: num(r.lag) }];
    })
    .sort((a, b) => a.partition - b.partition);
}
