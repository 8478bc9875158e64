/*
 * In-memory offset history per partition: (time, end offset) samples taken by
 * the observer. Two figures come from it: throughput (records per second over
 * a recent window) and the estimated time lag of a consumer — the age of the
 * record at its committed offset, found by interpolating when the log end
 * passed that offset (the approach of Lightbend's kafka-lag-exporter). Kafka
 * has no API for "when was offset N written" short of fetching the record.
 */

export interface Sample {
  t: number;
  end: bigint;
}

/** Keeps at most `max` samples; when full, thins the older half to every other sample, so the window stretches back in time at coarser resolution. */
export class OffsetHistory {
  private readonly series = new Map<string, Sample[]>();

  constructor(private readonly max = 720) {}

  add(key: string, t: number, end: bigint): void {
    let s = this.series.get(key);
    if (!s) {
      s = [];
      this.series.set(key, s);
    }
    const last = s[s.length - 1];
    // Unchanged end offset: move nothing but the newest timestamp would lose
    // when the offset was first reached; keep the first sample of a plateau
    // and the latest one.
    const prev = s[s.length - 2];
    if (last && prev && last.end === end && prev.end === end) {
      last.t = t;
      return;
    }
    if (last && end < last.end) s.length = 0; // topic re-created: history no longer applies
    s.push({ t, end });
    if (s.length > this.max) {
      const half = Math.floor(s.length / 2);
      const thinned = s.slice(0, half).filter((_, i) => i % 2 === 0);
      this.series.set(key, [...thinned, ...s.slice(half)]);
    }
  }

  get(key: string): readonly Sample[] {
    return this.series.get(key) ?? [];
  }

  /** Forget partitions no longer observed. */
  retain(keys: ReadonlySet<string>): void {
    for (const k of this.series.keys()) if (!keys.has(k)) this.series.delete(k);
  }
}

/** Records per second over roughly the last `windowMs`; null until two samples exist. */
export function ratePerSecond(samples: readonly Sample[], now: number, windowMs = 60_000): number | null {
  const last = samples[samples.length - 1];
  if (!last || samples.length < 2) return null;
  let first = samples[0];
  for (const s of samples) {
    if (now - s.t <= windowMs) {
      first = s;
      break;
    }
  }
  if (!first || first === last) first = samples[samples.length - 2];
  if (!first || last.t <= first.t) return null;
  return Number(last.end - first.end) / ((last.t - first.t) / 1000);
}

/**
 * Milliseconds between now and the moment the log end passed `committed`,
 * i.e. how old the next record the consumer will read is. 0 when caught up;
 * null without history; a lower bound (now − oldest sample) when the consumer
 * is behind everything we remember.
 */
export function estimateTimeLagMs(samples: readonly Sample[], committed: bigint, currentEnd: bigint, now: number): number | null {
  if (committed >= currentEnd) return 0;
  if (samples.length === 0) return null;
  const first = samples[0];
  if (!first) return null;
  if (first.end > committed) return Math.max(0, now - first.t);
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1];
    const b = samples[i];
    if (!a || !b) continue;
    if (b.end > committed) {
      // Offset `committed` was written between a.t and b.t; assume a steady rate in between.
      const fraction = Number(committed - a.end + 1n) / Number(b.end - a.end);
      const writtenAt = a.t + Math.min(1, Math.max(0, fraction)) * (b.t - a.t);
      return Math.max(0, Math.round(now - writtenAt));
    }
  }
  // The newest sample is not past `committed` but the live end is: written since then.
  const newest = samples[samples.length - 1];
  return newest ? Math.max(0, now - newest.t) : null;
}
