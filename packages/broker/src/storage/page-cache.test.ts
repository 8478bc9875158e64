/**
 * log.page.cache.window.bytes: what of a partition's synced log stays in the
 * OS page cache, read with util-linux's fincore (mincore(2) over the file).
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LogManager } from "./log-manager.ts";
import { DROP_STEP_BYTES, pageCacheDropIsNative } from "./page-cache.ts";
import { buildBatch, residentBytes, tempDir } from "./test-helpers.ts";

const MiB = 1024 * 1024;
let dir: { path: string; cleanup: () => Promise<void> };

beforeEach(async () => {
  dir = await tempDir("kappa-page-cache-");
});
afterEach(async () => {
  await dir.cleanup();
});


/** Writes `mib` MiB to t-0 in durable 256 KiB batches, closes the broker's logs (which waits for advice in flight) and returns the segment files. */
async function writeDurably(mib: number, opts: { window: number; segmentBytes?: number }): Promise<string[]> {
  const mgr = await LogManager.open(dir.path, { pageCacheWindowBytes: opts.window });
  const configs: Record<string, string> = opts.segmentBytes ? { "segment.bytes": String(opts.segmentBytes) } : {};
  await mgr.createTopic("t", { partitions: 1, configs });
  const log = mgr.getPartition("t", 0);
  const value = "x".repeat(64 * 1024);
  for (let i = 0; i < mib * 4; i++) {
    await log.append(buildBatch({ records: [0, 1, 2, 3].map(() => ({ key: null, value })) }), { requireDurable: true });
  }
  await mgr.close();
  const partitionDir = join(dir.path, "logs", "t-0");
  return (await readdir(partitionDir)).filter((f) => f.endsWith(".log")).sort().map((f) => join(partitionDir, f));
}

describe("the page-cache window", () => {
  it("is available on Linux (posix_fadvise through koffi)", () => {
    expect(pageCacheDropIsNative).toBe(process.platform === "linux");
  });

  it("keeps the window behind the active segment's end cached and drops the synced bytes before it", async () => {
    const [segment] = await writeDurably(12, { window: MiB });
    const cached = residentBytes(segment!);
    // The window, plus at most one step not yet dropped (calls move in DROP_STEP_BYTES), plus alignment.
    expect(cached).toBeLessThanOrEqual(MiB + DROP_STEP_BYTES + 64 * 1024);
    expect(cached).toBeGreaterThanOrEqual(MiB / 2);
  });

  it("keeps everything cached with −1 (Kafka's behaviour)", async () => {
    const [segment] = await writeDurably(12, { window: -1 });
    expect(residentBytes(segment!)).toBeGreaterThanOrEqual(11 * MiB);
  });

  it("drops a rolled segment's synced bytes beyond the window, whatever the step", async () => {
    const segments = await writeDurably(6, { window: 0, segmentBytes: 2 * MiB });
    expect(segments.length).toBeGreaterThanOrEqual(3);
    for (const rolled of segments.slice(0, -1)) expect(residentBytes(rolled)).toBe(0);
  });
});
