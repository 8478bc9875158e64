import { describe, expect, it } from "vitest";
import { LatencyHistogram } from "../storage/latency-histogram.ts";
import { RequestMetrics } from "./request-metrics.ts";

describe("LatencyHistogram", () => {
  it("gives percentiles within one bucket (9 %) of the true value", () => {
    const h = new LatencyHistogram();
    // 1..1000 ms: p50 = 500, p99 = 990.
    for (let i = 1; i <= 1000; i++) h.record(i);
    expect(h.count).toBe(1000);
    expect(h.percentile(50)).toBeGreaterThanOrEqual(500);
    expect(h.percentile(50)).toBeLessThan(500 * 1.1);
    expect(h.percentile(99)).toBeGreaterThanOrEqual(990);
    expect(h.percentile(99)).toBeLessThanOrEqual(1000);
    expect(h.max).toBe(1000);
  });

  it("keeps sub-millisecond and very long durations apart", () => {
    const h = new LatencyHistogram();
    for (let i = 0; i < 98; i++) h.record(0.05);
    h.record(2_000);
    h.record(90_000_000);
    expect(h.percentile(50)).toBeLessThan(0.06);
    expect(h.percentile(99)).toBeGreaterThan(1_800);
    expect(h.percentile(100)).toBe(90_000_000);
  });

  it("answers 0 with no samples", () => {
    expect(new LatencyHistogram().percentile(99)).toBe(0);
  });
});

describe("RequestMetrics", () => {
  it("splits a request's time into its phases, per api, and starts afresh on reset", () => {
    const m = new RequestMetrics();
    m.record("Produce", { received: 100, started: 102, finished: 112, queuedForSend: 113 }, 113.5);
    const s = m.snapshot().Produce!;
    expect(s.count).toBe(1);
    const near = (v: number, want: number) => expect(Math.abs(v - want) / want).toBeLessThan(0.1);
    near(s.phases.queue.p99, 2);
    near(s.phases.local.p99, 10);
    near(s.phases.responseQueue.p99, 1);
    near(s.phases.send.p99, 0.5);
    near(s.phases.total.p99, 13.5);
    expect(m.snapshot().Fetch).toBeUndefined();
    m.reset();
    expect(m.snapshot()).toEqual({});
  });
});
