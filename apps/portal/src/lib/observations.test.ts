import { describe, expect, it } from "vitest";
import {
  describeRange,
  estimateOffsetTime,
  formatBytes,
  formatCount,
  formatLagTime,
  formatRate,
  lagSeries,
  parseGroupAssignment,
  parsePartitionLag,
  parsePartitionOffsets,
  partitionReplay,
  provisioningProgress,
  replayWindow,
  storageSplit,
  throughputSeries,
} from "./observations";

describe("formatting", () => {
  it("shows bytes in binary units and unknown as unknown, never 0", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(1023)).toBe("1023 B");
    expect(formatBytes(1536)).toBe("1.5 KiB");
    expect(formatBytes(5 * 1024 * 1024)).toBe("5.0 MiB");
    expect(formatBytes(250 * 1024 ** 3)).toBe("250 GiB");
    expect(formatBytes(null)).toBe("unknown");
    expect(formatBytes(undefined)).toBe("unknown");
  });

  it("formats counts, rates and time lag", () => {
    expect(formatCount(1234567)).toBe("1,234,567");
    expect(formatCount(null)).toBe("unknown");
    expect(formatRate(0)).toBe("0 msg/s");
    expect(formatRate(3.456)).toBe("3.46 msg/s");
    expect(formatRate(1520.4)).toBe("1,520 msg/s");
    expect(formatRate(null)).toBe("unknown");
    expect(formatLagTime(0)).toBe("caught up");
    expect(formatLagTime(45_000)).toBe("45 s");
    expect(formatLagTime(200_000)).toBe("3 min 20 s");
    expect(formatLagTime(7_500_000)).toBe("2 h 5 min");
    expect(formatLagTime(null)).toBe("unknown");
  });

  it("splits bytes between tiers only when both are known", () => {
    expect(storageSplit(250, 750)).toEqual({ localPct: 25, remotePct: 75, total: 1000 });
    expect(storageSplit(1, 2)).toEqual({ localPct: 33.3, remotePct: 66.7, total: 3 });
    expect(storageSplit(0, 0)).toEqual({ localPct: 0, remotePct: 0, total: 0 });
    expect(storageSplit(100, null)).toBeNull();
  });
});

describe("replay window", () => {
  const p = (partition: number, earliest: number | null, earliestLocal: number | null, end: number | null) => ({
    partition,
    earliestOffset: earliest,
    earliestLocalOffset: earliestLocal,
    endOffset: end,
    latestTieredOffset: null,
    localBytes: null,
    remoteBytes: null,
  });

  it("serves the earliest offset up to the earliest local offset from object storage", () => {
    const r = partitionReplay(p(0, 0, 400, 1000));
    expect(r.from).toBe(0);
    expect(r.remote).toEqual({ kind: "range", first: 0, last: 399, count: 400 });
    expect(r.local).toEqual({ kind: "range", first: 400, last: 999, count: 600 });
    expect(describeRange(r.remote)).toBe("0 – 399");
  });

  it("has nothing remote when the earliest local offset is the log start (nothing tiered)", () => {
    const r = partitionReplay(p(1, 120, 120, 130));
    expect(r.remote).toEqual({ kind: "none" });
    expect(describeRange(r.remote)).toBe("none");
    expect(r.local).toEqual({ kind: "range", first: 120, last: 129, count: 10 });
  });

  it("says unknown, not none, when the cluster could not report the earliest local offset", () => {
    const r = partitionReplay(p(0, 0, null, 50));
    expect(r.remote).toEqual({ kind: "unknown" });
    expect(r.local).toEqual({ kind: "unknown" });
    expect(describeRange(r.local)).toBe("unknown");
  });

  it("sums records over partitions; one unknown partition makes the remote total unknown", () => {
    const w = replayWindow([p(1, 10, 10, 30), p(0, 0, 5, 20)]);
    expect(w.partitions.map((x) => x.partition)).toEqual([0, 1]);
    expect(w.records).toBe(40);
    expect(w.remoteRecords).toBe(5);
    const unknown = replayWindow([p(0, 0, 5, 20), p(1, 0, null, 20)]);
    expect(unknown.records).toBe(40);
    expect(unknown.remoteRecords).toBeNull();
  });

  it("estimates when an offset was written from the first minute the end offset passed it", () => {
    const oldest = { bucket: "2025-01-01T10:00:00.000Z", endOffset: 0 };
    expect(estimateOffsetTime(50, oldest, { bucket: "2025-01-01T10:07:00.000Z", endOffset: 80 })).toEqual({ kind: "about", at: "2025-01-01T10:07:00.000Z" });
    // Already past it when the history starts: older than the history.
    expect(estimateOffsetTime(0, { bucket: "2025-01-01T10:00:00.000Z", endOffset: 10 }, { bucket: "2025-01-01T10:00:00.000Z", endOffset: 10 })).toEqual({ kind: "before", at: "2025-01-01T10:00:00.000Z" });
    expect(estimateOffsetTime(50, oldest, null)).toEqual({ kind: "unknown" });
    expect(estimateOffsetTime(null, oldest, oldest)).toEqual({ kind: "unknown" });
  });

  it("parses the worker's partition detail, keeping null as unknown and Kafka's −1 as a value", () => {
    const parsed = parsePartitionOffsets([
      { partition: 0, endOffset: "10", earliestOffset: "0", earliestLocalOffset: null, latestTieredOffset: "-1", localBytes: "2048", remoteBytes: null },
      { nonsense: true },
    ]);
    expect(parsed).toEqual([{ partition: 0, endOffset: 10, earliestOffset: 0, earliestLocalOffset: null, latestTieredOffset: -1, localBytes: 2048, remoteBytes: null }]);
    expect(parsePartitionOffsets("not an array")).toEqual([]);
  });
});

describe("chart series", () => {
  it("pivots lag samples per minute with one column per group, leaving unobserved minutes as gaps", () => {
    const series = lagSeries([
      { groupId: "pay.b", bucket: "2025-01-01T10:01:00.000Z", totalLag: 3 },
      { groupId: "pay.a", bucket: "2025-01-01T10:00:00.000Z", totalLag: 10 },
      { groupId: "pay.a", bucket: "2025-01-01T10:01:00.000Z", totalLag: 0 },
    ]);
    expect(series.groups).toEqual(["pay.a", "pay.b"]);
    const t0 = Date.parse("2025-01-01T10:00:00.000Z");
    expect(series.points).toEqual([
      { t: t0, "pay.a": 10 },
      { t: t0 + 60_000, "pay.a": 0, "pay.b": 3 },
    ]);
    expect("pay.b" in (series.points[0] ?? {})).toBe(false);
  });

  it("orders throughput points by time and keeps unknown rates as null", () => {
    expect(
      throughputSeries([
        { bucket: "2025-01-01T10:01:00.000Z", messagesPerSecond: null },
        { bucket: "2025-01-01T10:00:00.000Z", messagesPerSecond: 2.5 },
      ]),
    ).toEqual([
      { t: Date.parse("2025-01-01T10:00:00.000Z"), rate: 2.5 },
      { t: Date.parse("2025-01-01T10:01:00.000Z"), rate: null },
    ]);
  });

  it("parses per-partition lag, sorted by partition", () => {
    expect(parsePartitionLag([{ partition: 1, committedOffset: null, endOffset: "5", lag: "5" }, { partition: 0, committedOffset: "3", endOffset: "3", lag: "0" }])).toEqual([
      { partition: 0, committedOffset: 3, endOffset: 3, lag: 0 },
      { partition: 1, committedOffset: null, endOffset: 5, lag: 5 },
    ]);
  });

  it("groups a consumer group's partitions by the member that holds them, leaving out unassigned and malformed entries", () => {
    const owner = (memberId: string, clientId: string) => ({ memberId, clientId, clientHost: "/10.0.0.7" });
    expect(
      parseGroupAssignment([
        { partition: 2, committedOffset: "1", endOffset: "1", lag: "0", owner: owner("m-b", "reader-b") },
        { partition: 0, committedOffset: "1", endOffset: "1", lag: "0", owner: owner("m-a", "reader-a") },
        { partition: 1, committedOffset: "1", endOffset: "1", lag: "0", owner: owner("m-a", "reader-a") },
        { partition: 3, committedOffset: "1", endOffset: "1", lag: "0" },
        { partition: 4, owner: { memberId: 7 } },
        "junk",
      ]),
    ).toEqual([
      { memberId: "m-a", clientId: "reader-a", clientHost: "/10.0.0.7", partitions: [0, 1] },
      { memberId: "m-b", clientId: "reader-b", clientHost: "/10.0.0.7", partitions: [2] },
    ]);
    expect(parseGroupAssignment(null)).toEqual([]);
  });
});

describe("provisioning progress", () => {
  it("counts done steps and points at the failed one", () => {
    const steps = [{ status: "DONE" }, { status: "FAILED", step: 2 }, { status: "PENDING" }];
    const p = provisioningProgress(steps);
    expect(p).toMatchObject({ done: 1, total: 3, pct: 33, complete: false });
    expect(p.failed).toBe(steps[1]);
    expect(provisioningProgress([{ status: "DONE" }, { status: "DONE" }])).toMatchObject({ pct: 100, complete: true, failed: null });
    expect(provisioningProgress([])).toMatchObject({ pct: 0, complete: false });
  });
});
