/**
 * log.direct.io: appends bypass the page cache, and the log reads, rolls,
 * closes and recovers exactly as with buffered writes.
 */
import { constants, readdir, readFile, stat, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { alignedBuffer, DIRECT_IO_BLOCK, DIRECT_WRITE_MIN_BYTES, DirectAppender, probeDirectIo, StagingPool, TailCache, type DirectIo } from "./direct-io.ts";
import { FileHandleCache, readFully } from "./files.ts";
import { LogManager } from "./log-manager.ts";
import { buildBatch, recordsOf, residentBytes, tempDir } from "./test-helpers.ts";

let dir: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  dir = await tempDir("kappa-direct-io-");
});
afterEach(async () => {
  await dir.cleanup();
});


/** Values of every record from offset 0 to the end. */
async function readAll(mgr: LogManager, topic: string): Promise<string[]> {
  const log = mgr.getPartition(topic, 0);
  const out: string[] = [];
  let offset = 0;
  for (;;) {
    const r = await log.read(BigInt(offset), 1024 * 1024);
    if (r.records.length === 0) return out;
    for (const rec of recordsOf(r.records)) {
      if (rec.offset < offset) continue;
      out.push(rec.value ?? "");
      offset = rec.offset + 1;
    }
  }
}

/** Record values of odd, block-unaligned sizes, so that most appends end inside a block. */
function values(n: number, seed: number): string[] {
  return Array.from({ length: n }, (_, i) => `${seed}-${i}-` + "v".repeat((i * 7919 + seed * 31) % 3001));
}

/**
 * Appends `vals` one batch of `perBatch` records at a time. The default makes
 * batches of ~100 KB, above DIRECT_WRITE_MIN_BYTES: each is written directly.
 */
async function appendAll(mgr: LogManager, topic: string, vals: string[], durable: boolean, perBatch = 64): Promise<void> {
  const log = mgr.getPartition(topic, 0);
  for (let i = 0; i < vals.length; i += perBatch) {
    await log.append(buildBatch({ records: vals.slice(i, i + perBatch).map((value) => ({ key: null, value })) }), { requireDurable: durable });
  }
}

async function segmentFiles(topic: string): Promise<string[]> {
  const d = join(dir.path, "logs", `${topic}-0`);
  return (await readdir(d)).filter((f) => f.endsWith(".log")).sort().map((f) => join(d, f));
}

describe("direct I/O appends", () => {
  it("is available on Linux for the data dir's filesystem, with block-aligned memory", async () => {
    expect(await probeDirectIo(dir.path)).toBe(process.platform === "linux");
    const buf = alignedBuffer(10_000);
    expect(buf.length).toBe(10_000);
  });

  it("leaves the appended bytes out of the page cache, and the log reads them back exactly", async () => {
    const mgr = await LogManager.open(dir.path, { directIo: true });
    expect(mgr.directIoActive).toBe(true);
    await mgr.createTopic("t", { partitions: 1 });
    const vals = values(3000, 1);
    await appendAll(mgr, "t", vals, true);
    const [segment] = await segmentFiles("t");
    const size = (await stat(segment!)).size;
    expect(size).toBeGreaterThan(4 * 1024 * 1024);
    // Buffered appends would leave all of it cached (page-cache.test.ts): direct ones none of it,
    // bar the pages reads brought in (none yet).
    expect(residentBytes(segment!)).toBeLessThan(256 * 1024);
    expect(await readAll(mgr, "t")).toEqual(vals);
    await mgr.close();
    // Closed: the padding of the last block is cut off, so the file ends at the log's end.
    const after = (await stat(segment!)).size;
    expect(after % DIRECT_IO_BLOCK).not.toBe(0);
    expect(after).toBeLessThanOrEqual(size);
  });

  it("continues a segment whose end is inside a block after a restart, and rolls to files of exact size", async () => {
    const first = values(500, 2);
    const second = values(700, 3);
    let mgr = await LogManager.open(dir.path, { directIo: true });
    await mgr.createTopic("t", { partitions: 1, configs: { "segment.bytes": String(600 * 1024) } });
    await appendAll(mgr, "t", first, false);
    await mgr.close();
    mgr = await LogManager.open(dir.path, { directIo: true });
    await appendAll(mgr, "t", second, true);
    expect(await readAll(mgr, "t")).toEqual([...first, ...second]);
    const files = await segmentFiles("t");
    expect(files.length).toBeGreaterThan(2);
    // Rolled segments were truncated to their last batch: a buffered open of each scans clean.
    await mgr.close();
    mgr = await LogManager.open(dir.path, { directIo: false });
    expect(await readAll(mgr, "t")).toEqual([...first, ...second]);
    expect(mgr.getPartition("t", 0).recovery.truncatedBytes).toBe(0);
    await mgr.close();
  });

  it("writes a group of appends larger than a staging chunk, from a start inside a block, byte for byte", async () => {
    const mgr = await LogManager.open(dir.path, { directIo: true });
    await mgr.createTopic("t", { partitions: 1 });
    const log = mgr.getPartition("t", 0);
    const head = values(7, 7);
    await appendAll(mgr, "t", head, true);
    // 48 appends of ~100 KB sent at once: they queue while the first writes, and are written as one group.
    const big = Array.from({ length: 48 }, (_, i) => `big-${i}-` + String.fromCharCode(97 + (i % 26)).repeat(100_000 + i * 37));
    await Promise.all(big.map((value) => log.append(buildBatch({ records: [{ key: null, value }] }), { requireDurable: true })));
    const expected = [...head, ...big];
    expect(await readAll(mgr, "t")).toEqual(expected);
    await mgr.close();
    const reopened = await LogManager.open(dir.path, { directIo: false });
    expect(await readAll(reopened, "t")).toEqual(expected);
    await reopened.close();
  });

  it("recovers a segment left with the zeros of a direct write's last block (a crash before the roll or close cut them)", async () => {
    const vals = values(400, 4);
    let mgr = await LogManager.open(dir.path, { directIo: true });
    await mgr.createTopic("t", { partitions: 1 });
    await appendAll(mgr, "t", vals, true);
    await mgr.close();
    const [segment] = await segmentFiles("t");
    const exact = (await stat(segment!)).size;
    // What a kill -9 leaves: the file as long as the last direct write's whole blocks.
    await truncate(segment!, Math.ceil(exact / DIRECT_IO_BLOCK) * DIRECT_IO_BLOCK);
    mgr = await LogManager.open(dir.path, { directIo: true });
    expect(await readAll(mgr, "t")).toEqual(vals);
    expect(mgr.getPartition("t", 0).recovery.truncatedBytes).toBe(Math.ceil(exact / DIRECT_IO_BLOCK) * DIRECT_IO_BLOCK - exact);
    const more = values(50, 5);
    await appendAll(mgr, "t", more, true);
    expect(await readAll(mgr, "t")).toEqual([...vals, ...more]);
    await mgr.close();
  });

  it("keeps the partial last blocks of the most recently written segments only, and reads a dropped one back from its file", async () => {
    const io: DirectIo = {
      files: new FileHandleCache(16, constants.O_WRONLY | constants.O_DIRECT),
      staging: new StagingPool(),
      tails: new TailCache(2),
    };
    const buffered = new FileHandleCache(16);
    const readBacks: string[] = [];
    const files = Array.from({ length: 5 }, (_, i) => join(dir.path, `segment-${i}.log`));
    const expected = files.map(() => Buffer.alloc(0));
    const appenders = await Promise.all(
      files.map(async (path) => {
        await writeFile(path, "");
        return new DirectAppender(io, path, 0, {
          read: async (from, to) => {
            readBacks.push(path);
            const buf = Buffer.alloc(to - from);
            const lease = await buffered.acquire(path);
            try {
              expect(await readFully(lease.handle, buf, from)).toBe(buf.length);
            } finally {
              lease.release();
            }
            return buf;
          },
          write: () => Promise.reject(new Error("every write here is large enough to go direct")),
        });
      }),
    );
    // Round-robin appends of odd sizes: every append ends inside a block, and with 5 segments
    // and room for 2 blocks each segment's block was dropped before its next append.
    for (let round = 0; round < 8; round++) {
      for (let i = 0; i < files.length; i++) {
        const bytes = Buffer.alloc(DIRECT_WRITE_MIN_BYTES + 1000 + ((round * 7 + i * 13) % 5) * 777, 97 + ((round + i) % 26));
        await appenders[i]!.write([bytes], expected[i]!.length);
        expected[i] = Buffer.concat([expected[i]!, bytes]);
        expect(io.tails.size).toBeLessThanOrEqual(2);
      }
    }
    // The first round read nothing back (empty files); every later append of the 5 had to.
    expect(readBacks.length).toBe(7 * files.length);
    for (const a of appenders) a.retire();
    await io.files.closeAll();
    await buffered.closeAll();
    for (let i = 0; i < files.length; i++) {
      const onDisk = await readFile(files[i]!);
      expect(onDisk.length).toBe(Math.ceil(expected[i]!.length / DIRECT_IO_BLOCK) * DIRECT_IO_BLOCK);
      expect(onDisk.subarray(0, expected[i]!.length).equals(expected[i]!)).toBe(true);
      expect(onDisk.subarray(expected[i]!.length).every((b) => b === 0)).toBe(true);
    }
  });

  it("writes small groups of appends through the page cache, mixed with direct ones, byte for byte", async () => {
    const mgr = await LogManager.open(dir.path, { directIo: true });
    await mgr.createTopic("t", { partitions: 1 });
    const small = values(90, 8);
    const large = values(300, 9);
    // Small (3 records, a few KB: buffered), large (64 records: direct), small again, large again —
    // each direct write starts inside a block the buffered ones left in the page cache.
    await appendAll(mgr, "t", small.slice(0, 45), true, 3);
    const [segment] = await segmentFiles("t");
    const afterSmall = (await stat(segment!)).size;
    expect(afterSmall).toBeGreaterThan(0);
    // Buffered: what they wrote is in the page cache (Kafka's behaviour for every write).
    expect(residentBytes(segment!)).toBeGreaterThanOrEqual(afterSmall - DIRECT_IO_BLOCK);
    await appendAll(mgr, "t", large.slice(0, 150), true);
    await appendAll(mgr, "t", small.slice(45), true, 3);
    await appendAll(mgr, "t", large.slice(150), true);
    const expected = [...small.slice(0, 45), ...large.slice(0, 150), ...small.slice(45), ...large.slice(150)];
    expect(await readAll(mgr, "t")).toEqual(expected);
    await mgr.close();
    const reopened = await LogManager.open(dir.path, { directIo: false });
    expect(await readAll(reopened, "t")).toEqual(expected);
    expect(reopened.getPartition("t", 0).recovery.truncatedBytes).toBe(0);
    await reopened.close();
  });

  it("writes through the page cache when turned off (Kafka's behaviour)", async () => {
    const mgr = await LogManager.open(dir.path, { directIo: false });
    expect(mgr.directIoActive).toBe(false);
    await mgr.createTopic("t", { partitions: 1 });
    await appendAll(mgr, "t", values(1000, 6), true);
    const [segment] = await segmentFiles("t");
    expect(residentBytes(segment!)).toBeGreaterThan((await stat(segment!)).size / 2);
    await mgr.close();
  });
});
