/**
 * A fixed-size histogram of durations: logarithmic buckets, 8 per power of
 * two (a percentile is exact to within 9 %), from 1 µs up. Used for the
 * broker's request timing (net/request-metrics.ts) and the log flush times
 * (log-manager.ts), Kafka's RequestMetrics and LogFlushStats.
 */

const BUCKETS_PER_OCTAVE = 8;
/** 2^(BUCKETS / 8) µs ≈ 2^35 µs ≈ 9.5 h: anything longer lands in the last bucket. */
const BUCKETS = 35 * BUCKETS_PER_OCTAVE;
const LOG2_STEP = 1 / BUCKETS_PER_OCTAVE;

export interface PhaseSummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** A fixed-size histogram of durations in ms. */
export class LatencyHistogram {
  private readonly counts = new Float64Array(BUCKETS);
  private n = 0;
  private maxMs = 0;

  record(ms: number): void {
    const us = Math.max(1, ms * 1000);
    const i = Math.min(BUCKETS - 1, Math.floor(Math.log2(us) / LOG2_STEP));
    this.counts[i]!++;
    this.n++;
    if (ms > this.maxMs) this.maxMs = ms;
  }

  get count(): number {
    return this.n;
  }

  /** The upper bound (ms) of the bucket holding the p-th percentile; 0 with no samples. */
  percentile(p: number): number {
    if (this.n === 0) return 0;
    const rank = Math.max(1, Math.ceil((p / 100) * this.n));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!;
      // The last bucket is open-ended: its bound is the largest duration seen.
      if (seen >= rank) return i === BUCKETS - 1 ? this.maxMs : Math.min(this.maxMs, 2 ** ((i + 1) * LOG2_STEP) / 1000);
    }
    return this.maxMs;
  }

  get max(): number {
    return this.maxMs;
  }

  summary(): PhaseSummary {
    return { count: this.n, p50: this.percentile(50), p99: this.percentile(99), max: this.maxMs };
  }

  reset(): void {
    this.counts.fill(0);
    this.n = 0;
    this.maxMs = 0;
  }
}

