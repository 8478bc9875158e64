/**
 * Per-API request timing, the broker's counterpart of Kafka's RequestMetrics
 * (kafka.network:type=RequestMetrics,name=TotalTimeMs|RequestQueueTimeMs|
 * LocalTimeMs|ResponseQueueTimeMs|ResponseSendTimeMs,request=<api>). Kafka
 * exposes them over JMX; here `RunningBroker.requestMetrics()` returns a
 * snapshot (the benchmark reads it to tell the broker's own latency from the
 * client's).
 *
 * Phases of one request, measured on the broker's thread:
 *  - queue: the frame was complete → its handler started (waiting for a free
 *    in-flight slot of the connection, queued.max.requests.per.connection);
 *  - local: handler started → handler finished (for acks=all Produce this
 *    includes the wait for the fsync, Kafka's LocalTime + RemoteTime);
 *  - responseQueue: handler finished → response handed to the socket (waiting
 *    behind an earlier response of the same connection: answers go in order);
 *  - send: handed to the socket → written to the kernel (the write callback);
 *  - total: frame complete → written.
 *
 * Memory is fixed: each phase is a histogram of logarithmic buckets (8 per
 * power of two, so a percentile is exact to within 9 %), from 1 µs up.
 */

const BUCKETS_PER_OCTAVE = 8;
/** 2^(BUCKETS / 8) µs ≈ 2^35 µs ≈ 9.5 h: anything longer lands in the last bucket. */
const BUCKETS = 35 * BUCKETS_PER_OCTAVE;
const LOG2_STEP = 1 / BUCKETS_PER_OCTAVE;

export const REQUEST_PHASES = ["queue", "local", "responseQueue", "send", "total"] as const;
export type RequestPhase = (typeof REQUEST_PHASES)[number];

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
}

export interface PhaseSummary {
  p50: number;
  p99: number;
  max: number;
}

export interface ApiTiming {
  count: number;
  /** Milliseconds per phase. */
  phases: Record<RequestPhase, PhaseSummary>;
}

/** Timestamps (performance.now(), ms) of one request as it passes the connection. */
export interface RequestTimes {
  received: number;
  started: number;
  finished: number;
  queuedForSend: number;
}

export class RequestMetrics {
  private readonly byApi = new Map<string, Record<RequestPhase, LatencyHistogram>>();

  /** One request written at `written` (ms, performance.now()). */
  record(api: string, t: RequestTimes, written: number): void {
    let h = this.byApi.get(api);
    if (!h) {
      h = { queue: new LatencyHistogram(), local: new LatencyHistogram(), responseQueue: new LatencyHistogram(), send: new LatencyHistogram(), total: new LatencyHistogram() };
      this.byApi.set(api, h);
    }
    h.queue.record(t.started - t.received);
    h.local.record(t.finished - t.started);
    h.responseQueue.record(t.queuedForSend - t.finished);
    h.send.record(written - t.queuedForSend);
    h.total.record(written - t.received);
  }

  /** Starts counting afresh (benchmarks measure one phase of their run at a time). */
  reset(): void {
    this.byApi.clear();
  }

  snapshot(): Record<string, ApiTiming> {
    const out: Record<string, ApiTiming> = {};
    for (const [api, h] of this.byApi) {
      const sum = (x: LatencyHistogram): PhaseSummary => ({ p50: x.percentile(50), p99: x.percentile(99), max: x.max });
      out[api] = {
        count: h.total.count,
        phases: { queue: sum(h.queue), local: sum(h.local), responseQueue: sum(h.responseQueue), send: sum(h.send), total: sum(h.total) },
      };
    }
    return out;
  }
}
