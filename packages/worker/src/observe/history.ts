/*
 * In-memory offset history per partition: (time, end offset) samples taken by
 * the observer. Two figures come from it: throughput (records per second over
 * a recent window) and the estimated time lag of a consumer — the age of the
 * record at its committed offset, found by interpolating when the log end
 * passed that offset (the approach of Lightbend's kafka-lag-exporter). Kafka
 * has no API for "when was offset N written" short of fetching the record.
 *
 * Memory is the constraint at scale (60,000 partitions): a series grows only
 * for partitions that move; a plateau costs two samples whatever its length,
 * and a full series is thinned (older half to every other sample) so it
 * stretches back in time at coarser resolution instead of growing.
 */

export interface Sample {
  t: number;
  end: bigint;
}

/**
 * One partition's samples, interleaved `[t0, end0, t1, end1, …]` in one plain
 * array of doubles (V8 stores it unboxed, 8 bytes a number): at 60,000
 * partitions two typed arrays per series cost more in headers than in data.
 * Offsets beyond 2^53 lose precision, which rates and time lags tolerate.
 */
export class OffsetSeries {
  private data: number[] = [];

  constructor(private readonly max: number) {}

  get length(): number {
    return this.data.length >> 1;
  }

  add(t: number, endOffset: bigint): void {
    const end = Number(endOffset);
    const d = this.data;
    const n = d.length;
    // Unchanged end offset: keep the first sample of a plateau (when the
    // offset was reached) and move only the latest one forward.
    if (n >= 4 && d[n - 1] === end && d[n - 3] === end) {
      d[n - 2] = t;
      return;
    }
    if (n >= 2 && end < (d[n - 1] ?? 0)) d.length = 0; // topic re-created: history no longer applies
    if (this.length >= this.max) this.thin();
    d.push(t, end);
  }

  /** Full: keep every other sample of the older half, all of the newer half. */
  private thin(): void {
    const half = Math.floor(this.length / 2);
    const kept: number[] = [];
    for (let i = 0; i < this.length; i++) {
      if (i < half && i % 2 === 1) continue;
      kept.push(this.timeAt(i), this.endAt(i));
    }
    this.data = kept;
  }

  timeAt(i: number): number {
    return this.data[2 * i] ?? 0;
  }

  endAt(i: number): number {
    return this.data[2 * i + 1] ?? 0;
  }

  samples(): Sample[] {
    return Array.from({ length: this.length }, (_, i) => ({ t: this.timeAt(i), end: BigInt(Math.round(this.endAt(i))) }));
  }
}

/** Series keyed by partition (for tests and callers that key by string). */
export class OffsetHistory {
  private readonly series = new Map<string, OffsetSeries>();

  constructor(private readonly max = 120) {}

  add(key: string, t: number, end: bigint): void {
    let s = this.series.get(key);
    if (!s) {
      s = new OffsetSeries(this.max);
      this.series.set(key, s);
    }
    s.add(t, end);
  }

  get(key: string): readonly Sample[] {
    return this.series.get(key)?.samples() ?? [];
  }

  /** Forget partitions no longer observed. */
  retain(keys: ReadonlySet<string>): void {
    for (const k of this.series.keys()) if (!keys.has(k)) this.series.delete(k);
  }
}

/** What the estimators read: a series or a plain sample list. */
type Samples = OffsetSeries | readonly Sample[];

function view(s: Samples): { n: number; t: (i: number) => number; end: (i: number) => number } {
  if (s instanceof OffsetSeries) return { n: s.length, t: (i) => s.timeAt(i), end: (i) => s.endAt(i) };
  return { n: s.length, t: (i) => s[i]?.t ?? 0, end: (i) => Number(s[i]?.end ?? 0n) };
}

/** Records per second over roughly the last `windowMs`; null until two samples exist. */
export function ratePerSecond(samples: Samples, now: number, windowMs = 60_000): number | null {
  const s = view(samples);
  if (s.n < 2) return null;
  const last = s.n - 1;
  let first = 0;
  for (let i = 0; i < s.n; i++) {
    if (now - s.t(i) <= windowMs) {
      first = i;
      break;
    }
  }
  if (first === last) first = last - 1;
  if (s.t(last) <= s.t(first)) return null;
  return (s.end(last) - s.end(first)) / ((s.t(last) - s.t(first)) / 1000);
}

/**
 * Milliseconds between now and the moment the log end passed `committed`,
 * i.e. how old the next record the consumer will read is. 0 when caught up;
 * null without history; a lower bound (now − oldest sample) when the consumer
 * is behind everything we remember.
 */
export function estimateTimeLagMs(samples: Samples, committedOffset: bigint, currentEnd: bigint, now: number): number | null {
  if (committedOffset >= currentEnd) return 0;
  const s = view(samples);
  if (s.n === 0) return null;
  const committed = Number(committedOffset);
  if (s.end(0) > committed) return Math.max(0, now - s.t(0));
  for (let i = 1; i < s.n; i++) {
    if (s.end(i) > committed) {
      // Offset `committed` was written between samples i-1 and i; assume a steady rate in between.
      const fraction = (committed - s.end(i - 1) + 1) / (s.end(i) - s.end(i - 1));
      const writtenAt = s.t(i - 1) + Math.min(1, Math.max(0, fraction)) * (s.t(i) - s.t(i - 1));
      return Math.max(0, Math.round(now - writtenAt));
    }
  }
  // The newest sample is not past `committed` but the live end is: written since then.
  return Math.max(0, now - s.t(s.n - 1));
}
