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
 * Memory is fixed: each phase is a LatencyHistogram.
 */
import { LatencyHistogram, type PhaseSummary } from "../storage/latency-histogram.ts";


export const REQUEST_PHASES = ["queue", "local", "responseQueue", "send", "total"] as const;
export type RequestPhase = (typeof REQUEST_PHASES)[number];

export type { PhaseSummary } from "../storage/latency-histogram.ts";

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
  /** Also told of every request (the Prometheus metrics, src/metrics.ts); reset() does not touch it. */
  listener: ((api: string, t: RequestTimes, written: number) => void) | null = null;

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
    this.listener?.(api, t, written);
  }

  /** Starts counting afresh (benchmarks measure one phase of their run at a time). */
  reset(): void {
    this.byApi.clear();
  }

  snapshot(): Record<string, ApiTiming> {
    const out: Record<string, ApiTiming> = {};
    for (const [api, h] of this.byApi) {
      const sum = (x: LatencyHistogram): PhaseSummary => x.summary();
      out[api] = {
        count: h.total.count,
        phases: { queue: sum(h.queue), local: sum(h.local), responseQueue: sum(h.responseQueue), send: sum(h.send), total: sum(h.total) },
      };
    }
    return out;
  }
}
