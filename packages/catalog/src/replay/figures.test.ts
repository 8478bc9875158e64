import { describe, expect, it } from "vitest";
import { consumptionRate, partitionReplayFigures, replayTotals } from "./figures.ts";

const base = { partition: 0, earliest: 0n, end: 1000n, localBytesPerRecord: 100, remoteBytesPerRecord: 120 };

describe("replay figures", () => {
  it("splits what is read again into object storage and local disk", () => {
    const f = partitionReplayFigures({ ...base, committed: 1000n, target: 0n, earliestLocal: 600n });
    expect(f).toEqual({ partition: 0, from: "1000", to: "0", end: "1000", records: 1000, rereadRecords: 1000, skippedRecords: 0, remoteRecords: 600, localRecords: 400, remoteBytes: 72_000, localBytes: 40_000 });
  });

  it("counts skipped records when moving forward, and unknown tiers as null", () => {
    const f = partitionReplayFigures({ ...base, committed: 200n, target: 900n, earliestLocal: null });
    expect(f).toMatchObject({ records: 100, rereadRecords: 0, skippedRecords: 700, remoteRecords: null, localRecords: null, remoteBytes: null, localBytes: null });
    // Everything local: no remote part even with unknown remote bytes per record.
    const local = partitionReplayFigures({ ...base, committed: null, target: 500n, earliestLocal: 0n, remoteBytesPerRecord: null });
    expect(local).toMatchObject({ from: null, records: 500, rereadRecords: 0, remoteRecords: 0, remoteBytes: 0, localRecords: 500 });
  });

  it("totals per kind; one unknown partition makes the total unknown", () => {
    const a = partitionReplayFigures({ ...base, committed: 1000n, target: 0n, earliestLocal: 500n });
    const b = partitionReplayFigures({ ...base, partition: 1, committed: 1000n, target: 900n, earliestLocal: null });
    expect(replayTotals([a, b])).toMatchObject({ records: 1100, rereadRecords: 1100, remoteRecords: null });
  });

  it("derives the consumption rate from end-offset and lag samples", () => {
    const t = (m: number) => new Date(Date.UTC(2026, 11, 1, 12, m));
    const rate = consumptionRate(
      [{ bucket: t(0), endOffset: 1000n }, { bucket: t(1), endOffset: 1600n }, { bucket: t(2), endOffset: 2200n }],
      [{ bucket: t(0), totalLag: 500n }, { bucket: t(2), totalLag: 300n }],
    );
    expect(rate).toBeCloseTo((1200 + 200) / 120, 6);
    expect(consumptionRate([], [])).toBeNull();
  });
});
