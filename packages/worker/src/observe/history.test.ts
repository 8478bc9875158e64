import { describe, expect, it } from "vitest";
import { estimateTimeLagMs, OffsetHistory, ratePerSecond } from "./history.ts";

describe("ratePerSecond", () => {
  it("is null until two samples exist", () => {
    expect(ratePerSecond([{ t: 0, end: 10n }], 0)).toBeNull();
  });
  it("measures records per second over the recent window", () => {
    const s = [
      { t: 0, end: 0n },
      { t: 50_000, end: 500n },
      { t: 60_000, end: 600n },
      { t: 70_000, end: 700n },
    ];
    expect(ratePerSecond(s, 70_000, 30_000)).toBeCloseTo(10);
  });
});

describe("estimateTimeLagMs", () => {
  const s = [
    { t: 1_000, end: 0n },
    { t: 11_000, end: 100n },
    { t: 21_000, end: 200n },
  ];
  it("is 0 when caught up", () => {
    expect(estimateTimeLagMs(s, 200n, 200n, 30_000)).toBe(0);
  });
  it("interpolates when the committed offset was written", () => {
    // Offset 149 was written at about 16 s (between 11 s / 100 and 21 s / 200).
    expect(estimateTimeLagMs(s, 149n, 200n, 30_000)).toBe(14_000);
  });
  it("is at least the age of the oldest sample when the consumer is behind all history", () => {
    const late = [{ t: 5_000, end: 1000n }, { t: 10_000, end: 2000n }];
    expect(estimateTimeLagMs(late, 10n, 2000n, 20_000)).toBe(15_000);
  });
  it("is unknown without history", () => {
    expect(estimateTimeLagMs([], 10n, 20n, 0)).toBeNull();
  });
});

describe("OffsetHistory", () => {
  it("keeps the first and the latest sample of a plateau", () => {
    const h = new OffsetHistory();
    h.add("k", 0, 5n);
    h.add("k", 10, 5n);
    h.add("k", 20, 5n);
    h.add("k", 30, 5n);
    expect(h.get("k")).toEqual([{ t: 0, end: 5n }, { t: 30, end: 5n }]);
  });
  it("thins old samples instead of growing without bound", () => {
    const h = new OffsetHistory(100);
    for (let i = 0; i < 1000; i++) h.add("k", i * 1000, BigInt(i));
    const s = h.get("k");
    expect(s.length).toBeLessThanOrEqual(100);
    expect(s[s.length - 1]).toEqual({ t: 999_000, end: 999n });
    expect(s[0]!.t).toBeLessThan(500_000);
  });
  it("starts over when the end offset goes backwards (topic re-created)", () => {
    const h = new OffsetHistory();
    h.add("k", 0, 100n);
    h.add("k", 10, 5n);
    expect(h.get("k")).toEqual([{ t: 10, end: 5n }]);
  });
});
