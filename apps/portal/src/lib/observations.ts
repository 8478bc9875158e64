/*
 * Pure derivations for what the worker observes on the cluster: byte and
 * offset formatting, the replay window of a topic, chart series. Shared by the
 * server (which derives) and the browser (which formats). A figure the worker
 * could not observe arrives as null and is shown as "unknown", never as 0 —
 * a zero would claim something the cluster never said.
 */

export const UNKNOWN = "unknown";

const BYTE_UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

/** 1536 → "1.5 KiB"; null → "unknown". Binary units, as Kafka's segment sizes are. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return UNKNOWN;
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${BYTE_UNITS[unit]}`;
}

/** 1234567 → "1,234,567"; null → "unknown". */
export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return UNKNOWN;
  return n.toLocaleString("en-US");
}

/** Messages per second with a precision that suits the size. */
export function formatRate(perSecond: number | null | undefined): string {
  if (perSecond === null || perSecond === undefined || !Number.isFinite(perSecond)) return UNKNOWN;
  const digits = perSecond === 0 || perSecond >= 100 ? 0 : perSecond >= 10 ? 1 : 2;
  return `${perSecond.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 })} msg/s`;
}

/** "45 s", "3 min 20 s", "2 h 5 min": a time lag estimate. */
export function formatLagTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return UNKNOWN;
  if (ms < 1000) return ms === 0 ? "caught up" : "< 1 s";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}

/** Share of bytes in each tier; null when either side is unknown (no bar then). */
export function storageSplit(localBytes: number | null, remoteBytes: number | null): { localPct: number; remotePct: number; total: number } | null {
  if (localBytes === null || remoteBytes === null) return null;
  const total = localBytes + remoteBytes;
  if (total === 0) return { localPct: 0, remotePct: 0, total: 0 };
  const remotePct = Math.round((remoteBytes / total) * 1000) / 10;
  return { localPct: Math.round((100 - remotePct) * 10) / 10, remotePct, total };
}

// ---------------------------------------------------------------------------
// Replay window

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

export function describeRange(r: OffsetRange): string {
  if (r.kind === "unknown") return UNKNOWN;
  if (r.kind === "none") return "none";
  return r.first === r.last ? `${formatCount(r.first)}` : `${formatCount(r.first)} – ${formatCount(r.last)}`;
}

// ---------------------------------------------------------------------------
// Chart series

export interface LagSample {
  groupId: string;
  bucket: string;
  totalLag: number;
}

export interface LagSeries {
  /** One row per minute: `t` in epoch ms plus one column per group (absent = not observed in that minute). */
  points: ({ t: number } & Record<string, number>)[];
  groups: string[];
}

/**
 * Pivots per-group samples into chart rows. A minute a group was not observed
 * stays a gap (no value), not a zero lag that was never measured.
 */
export function lagSeries(samples: LagSample[]): LagSeries {
  const groups = [...new Set(samples.map((s) => s.groupId))].sort();
  const rows = new Map<number, { t: number } & Record<string, number>>();
  for (const s of samples) {
    const t = new Date(s.bucket).getTime();
    const row = rows.get(t) ?? { t };
    row[s.groupId] = s.totalLag;
    rows.set(t, row);
  }
  return { points: [...rows.values()].sort((a, b) => a.t - b.t), groups };
}

export interface RateSample {
  bucket: string;
  messagesPerSecond: number | null;
}

/** Throughput rows for the chart; unknown rates stay gaps. */
export function throughputSeries(samples: RateSample[]): { t: number; rate: number | null }[] {
  return samples.map((s) => ({ t: new Date(s.bucket).getTime(), rate: s.messagesPerSecond })).sort((a, b) => a.t - b.t);
}

/** "14:05" in UTC, for chart axes (the rest of the portal shows UTC too). */
export function formatClock(epochMs: number): string {
  return new Date(epochMs).toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", timeZone: "UTC" });
}

// ---------------------------------------------------------------------------
// Provisioning progress

export interface StepLike {
  status: string;
}

/** Done steps out of all; the failed step (if any) is what the page explains first. */
export function provisioningProgress<S extends StepLike>(steps: S[]): { done: number; total: number; pct: number; failed: S | null; complete: boolean } {
  const done = steps.filter((s) => s.status === "DONE").length;
  const total = steps.length;
  return {
    done,
    total,
    pct: total === 0 ? 0 : Math.round((done / total) * 100),
    failed: steps.find((s) => s.status === "FAILED") ?? null,
    complete: total > 0 && done === total,
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
