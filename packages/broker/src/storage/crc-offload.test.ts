import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { OFF_CRC } from "./batch.ts";
import { CRC_OFFLOAD_MIN_BYTES, crcOffload } from "./crc-offload.ts";
import { LogManager } from "./log-manager.ts";
import { buildBatch, recordsOf, tempDir } from "./test-helpers.ts";

/** `bufs` back to back in shared memory, as the broker's frame pool hands out large frames. */
function shared(...bufs: Buffer[]): Buffer {
  const total = bufs.reduce((n, b) => n + b.length, 0);
  const out = Buffer.from(new SharedArrayBuffer(total + 16), 8, total);
  let at = 0;
  for (const b of bufs) at += b.copy(out, at);
  return out;
}

/** A batch of `n` 1 KiB records whose values start with `tag`. */
function bigBatch(tag: string, n = 300): Buffer {
  return buildBatch({ records: Array.from({ length: n }, (_, i) => ({ key: null, value: `${tag}-${i}-`.padEnd(1024, "x") })) });
}

function corrupt(batch: Buffer): Buffer {
  const b = Buffer.from(batch);
  b.writeUInt32BE((b.readUInt32BE(OFF_CRC) ^ 1) >>> 0, OFF_CRC);
  return b;
}

describe("crcOffload (CRC-32C on the helper thread)", () => {
  it("answers one verdict per whole batch, in order, from the shared bytes themselves", async () => {
    const a = buildBatch({ records: [{ key: "k", value: "v" }] });
    const b = buildBatch({ records: [{ key: "k2", value: "v2" }] });
    const data = shared(a, corrupt(b), a, b.subarray(0, 70));
    expect(crcOffload.accepts(data)).toBe(true);
    expect(crcOffload.accepts(Buffer.from(data))).toBe(false);
    expect([...((await crcOffload.verdicts(data)) ?? [])]).toEqual([1, 0, 1]);
  });
});

describe("PartitionLog.append of large shared data", () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  let mgr: LogManager | null = null;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await mgr?.close();
    mgr = null;
    await dir.cleanup();
  });

  it("checks CRCs off the thread, keeps arrival order with inline appends, and refuses a bad CRC with CORRUPT_MESSAGE", async () => {
    mgr = await LogManager.open(dir.path);
    await mgr.createTopic("t", { partitions: 1 });
    const log = mgr.getPartition("t", 0);
    const offloaded = vi.spyOn(crcOffload, "verdicts");
    const first = shared(bigBatch("a"));
    expect(first.length).toBeGreaterThanOrEqual(CRC_OFFLOAD_MIN_BYTES);
    // Pipelined as a connection dispatches them: nothing awaited in between.
    const results = [
      log.append(first),
      log.append(buildBatch({ records: [{ key: null, value: "small" }] })),
      log.append(shared(corrupt(bigBatch("bad")))),
      log.append(shared(bigBatch("c", 10), bigBatch("d"))),
      log.append(buildBatch({ records: [{ key: null, value: "last" }] })),
    ];
    const settled = await Promise.allSettled(results);
    expect(offloaded).toHaveBeenCalledTimes(3);
    expect(settled.map((s) => (s.status === "fulfilled" ? Number(s.value.baseOffset) : s.reason.code))).toEqual([0, 300, 2, 301, 611]);
    expect(settled[2]).toMatchObject({ status: "rejected", reason: { name: "StorageError", message: expect.stringContaining("CRC-32C") } });
    const values = recordsOf((await log.read(0n, 8 << 20)).records).map((r) => r.value?.split("-").slice(0, 2).join("-"));
    expect(values.length).toBe(612);
    expect([values[0], values[299], values[300], values[301], values[311], values[610], values[611]]).toEqual(["a-0", "a-299", "small", "c-0", "d-0", "d-299", "last"]);
  });

  it("falls back to the inline check when the helper cannot answer", async () => {
    mgr = await LogManager.open(dir.path);
    await mgr.createTopic("t", { partitions: 1 });
    const log = mgr.getPartition("t", 0);
    vi.spyOn(crcOffload, "verdicts").mockResolvedValue(null);
    await expect(log.append(shared(corrupt(bigBatch("x"))))).rejects.toMatchObject({ name: "StorageError", code: 2 });
    expect(Number((await log.append(shared(bigBatch("y")))).baseOffset)).toBe(0);
  });
});
