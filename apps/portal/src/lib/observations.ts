/*
 * Pure derivations for what the worker observes on the cluster: byte and
 * offset formatting, the replay window of a topic, chart series. Shared by the
 * server (which derives) and the browser (which formats). A figure the worker
 * could not observe arrives as null and is shown as "unknown", never as 0 —
 * a zero would claim something the cluster never said.
 */
import type { OffsetRange } from "@kappa/catalog/observation-figures";
import { formatNumber, formatUtcClock } from "./format";

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
  return formatNumber(n, 3);
}

/** Messages per second with a precision that suits the size. */
export function formatRate(perSecond: number | null | undefined): string {
  if (perSecond === null || perSecond === undefined || !Number.isFinite(perSecond)) return UNKNOWN;
  const digits = perSecond === 0 || perSecond >= 100 ? 0 : perSecond >= 10 ? 1 : 2;
  return `${formatNumber(perSecond, digits)} msg/s`;
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
// Replay window (computed in the catalog; shown here)

export {
  estimateOffsetTime,
  parseGroupAssignment,
  parsePartitionLag,
  parsePartitionOffsets,
  partitionReplay,
  replayWindow,
  type OffsetRange,
  type GroupMemberAssignment,
  type OffsetSample,
  type PartitionLag,
  type PartitionOffsets,
  type PartitionReplay,
  type ReplayWindow,
  type TimeEstimate,
} from "@kappa/catalog/observation-figures";
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
  return formatUtcClock(epochMs);
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
