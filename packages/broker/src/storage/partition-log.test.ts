import { execFileSync } from "node:child_process";
import { closeSync, constants, openSync, statSync } from "node:fs";
import { open, readdir, readFile, rm, stat, writeFile, appendFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { OFF_ATTRIBUTES, OFF_CRC, OFF_LAST_OFFSET_DELTA, batchCrcValid, crc32c, readHeader } from "./batch.ts";
import { LogManager } from "./log-manager.ts";
import type { PartitionLog } from "./partition-log.ts";
import { buildBatch, recordsOf, splitBatches, tempDir } from "./test-helpers.ts";

let dir: { path: string; cleanup: () => Promise<void> };
let now = 1_700_000_000_000;
const clock = (): number => now;
let mgr: LogManager | null = null;

beforeEach(async () => {
  dir = await tempDir();
  now = 1_700_000_000_000;
});
afterEach(async () => {
  await mgr?.close();
  mgr = null;
  await dir.cleanup();
});

async function openLog(configs: Record<string, string> = {}): Promise<PartitionLog> {
  mgr = await LogManager.open(dir.path, { clock });
  if (!mgr.getTopic("t")) await mgr.createTopic("t", { partitions: 1, configs });
  return mgr.getPartition("t", 0);
}

async function reopen(opts: { crash?: boolean } = {}): Promise<PartitionLog> {
  await mgr!.close();
  if (opts.crash) await rm(join(dir.path, ".kappa_clean_shutdown"));
  mgr = await LogManager.open(dir.path, { clock });
  return mgr.getPartition("t", 0);
}

const kv = (key: string | null, value: string | null, timestamp?: number) => ({ key, value, timestamp });

async function expectCode(p: Promise<unknown>, code: number): Promise<void> {
  await expect(p).rejects.toMatchObject({ name: "StorageError", code });
}

describe("append and read", () => {
  it("assigns consecutive offsets and returns whole batches from the one containing the fetch offset", async () => {
    const log = await openLog();
    for (let i = 0; i < 10; i++) {
      const r = await log.append(buildBatch({ records: [0, 1, 2].map((j) => kv(`k${i}`, `v${i}-${j}`)) }), {
        requireDurable: true,
      });
      expect(r.baseOffset).toBe(BigInt(i * 3));
      expect(r.lastOffset).toBe(BigInt(i * 3 + 2));
      expect(r.logAppendTime).toBe(-1n);
    }
    expect(log.logEndOffset).toBe(30n);
    expect(log.highWatermark).toBe(30n);
    expect(log.lastStableOffset).toBe(30n);

    const all = recordsOf((await log.read(0n, 1 << 20)).records);
    expect(all.map((r) => r.offset)).toEqual([...Array(30).keys()]);
    expect(all[7]!.value).toBe("v2-1");

    // Offset 4 is inside the batch [3, 5]: the whole batch comes back, clients skip 3.
    const mid = await log.read(4n, 1 << 20, { isolation: "read_committed" });
    expect(splitBatches(mid.records)[0]!.header.baseOffset).toBe(3);
    expect(mid.highWatermark).toBe(30n);

    expect((await log.read(30n, 1000)).records.length).toBe(0);
    await expectCode(log.read(31n, 1000), 1);
  });

  it("honours maxBytes with whole batches, but always returns at least one batch", async () => {
    const log = await openLog();
    const big = buildBatch({ records: [kv("k", "x".repeat(5000))] });
    const small = buildBatch({ records: [kv("k", "y")] });
    const bigLen = big.length;
    const smallLen = small.length;
    await log.append(big);
    await log.append(small);
    await log.append(buildBatch({ records: [kv("k", "z")] }));

    const one = await log.read(0n, 100);
    expect(one.records.length).toBe(bigLen);
    expect(splitBatches(one.records)).toHaveLength(1);

    const two = await log.read(1n, smallLen * 2 + 10);
    expect(splitBatches(two.records).map((b) => b.header.baseOffset)).toEqual([1, 2]);
    const cut = await log.read(1n, smallLen * 2 - 1);
    expect(splitBatches(cut.records).map((b) => b.header.baseOffset)).toEqual([1]);
  });

  it("rejects corrupt, oversized and malformed batches without changing the log", async () => {
    const log = await openLog({ "max.message.bytes": "300" });
    await log.append(buildBatch({ records: [kv("a", "b")] }));

    const corrupt = buildBatch({ records: [kv("a", "hello")] });
    corrupt[corrupt.length - 3]! ^= 0xff;
    await expectCode(log.append(corrupt), 2);

    await expectCode(log.append(buildBatch({ records: [kv("a", "x".repeat(500))] })), 10);

    const good = buildBatch({ records: [kv("a", "b")] });
    await expectCode(log.append(good.subarray(0, good.length - 5)), 2);

    const badDelta = buildBatch({ records: [kv("a", "b"), kv("c", "d")] });
    badDelta.writeInt32BE(5, OFF_LAST_OFFSET_DELTA);
    badDelta.writeUInt32BE(crc32c(badDelta, OFF_ATTRIBUTES), OFF_CRC);
    await expectCode(log.append(badDelta), 87);

    await expectCode(log.append(Buffer.concat([good, buildBatch({ records: [kv("a", "b")] })]), { singleBatch: true }), 87);

    expect(log.logEndOffset).toBe(1n);
    expect(recordsOf((await log.read(0n, 10_000)).records)).toHaveLength(1);
  });

  it("stamps LogAppendTime topics with the broker time and a recomputed CRC", async () => {
    const log = await openLog({ "message.timestamp.type": "LogAppendTime" });
    const r = await log.append(buildBatch({ records: [kv("a", "b", 1000), kv("c", "d", 2000)] }));
    expect(r.logAppendTime).toBe(BigInt(now));
    const [b] = splitBatches((await log.read(0n, 10_000)).records);
    expect(b!.header.maxTimestamp).toBe(now);
    expect(b!.header.attributes & 0x08).toBe(0x08);
    expect(batchCrcValid(b!.bytes, 0, b!.bytes.length)).toBe(true);
  });

  it("shares fsyncs between concurrent durable appends (group commit)", async () => {
    const log = await openLog();
    await log.append(buildBatch({ records: [kv("warm", "up")] }));
    const h = await open(join(dir.path, "probe"), "w");
    const proto = Object.getPrototypeOf(h) as { datasync: () => Promise<void> };
    await h.close();
    const spy = vi.spyOn(proto, "datasync");
    try {
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) => log.append(buildBatch({ records: [kv(`k${i}`, "v")] }), { requireDurable: true })),
      );
      const offsets = results.map((r) => Number(r.baseOffset)).sort((a, b) => a - b);
      expect(offsets).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      expect(spy.mock.calls.length).toBeGreaterThan(0);
      expect(spy.mock.calls.length).toBeLessThan(50);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("flush policy", () => {
  it("fsyncs non-durable appends every flush.messages messages and no more often", async () => {
    const log = await openLog({ "flush.messages": "3" });
    const h = await open(join(dir.path, "probe"), "w");
    const proto = Object.getPrototypeOf(h) as { datasync: () => Promise<void> };
    await h.close();
    const spy = vi.spyOn(proto, "datasync");
    try {
      for (let i = 0; i < 2; i++) await log.append(buildBatch({ records: [kv("a", "b")] }), { requireDurable: false });
      expect(spy).not.toHaveBeenCalled();
      await log.append(buildBatch({ records: [kv("a", "b")] }), { requireDurable: false });
      await vi.waitFor(() => expect(spy).toHaveBeenCalledTimes(1));
    } finally {
      spy.mockRestore();
    }
  });

  it("fsyncs within flush.ms when nothing asks for durability", async () => {
    const log = await openLog({ "flush.ms": "20" });
    const h = await open(join(dir.path, "probe"), "w");
    const proto = Object.getPrototypeOf(h) as { datasync: () => Promise<void> };
    await h.close();
    const spy = vi.spyOn(proto, "datasync");
    try {
      await log.append(buildBatch({ records: [kv("a", "b")] }), { requireDurable: false });
      expect(spy).not.toHaveBeenCalled();
      await vi.waitFor(() => expect(spy).toHaveBeenCalledTimes(1), { timeout: 1000 });
    } finally {
      spy.mockRestore();
    }
  });
});

describe("small appends", () => {
  it("are written on the calling thread: with libuv's thread pool busy, the bytes are in the segment file at once", async () => {
    const log = await openLog();
    // The first append opens the segment's handle (on the pool); later ones reuse it.
    await log.append(buildBatch({ records: [kv("a", "first")] }), { requireDurable: true });
    const partitionDir = join(dir.path, "logs", "t-0");
    const segment = join(partitionDir, (await readdir(partitionDir)).find((f) => f.endsWith(".log"))!);
    const before = statSync(segment).size;
    // Every pool thread blocked in open(2) of a FIFO that has no writer yet.
    const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
    const fifos = Array.from({ length: threads }, (_, i) => join(dir.path, `fifo-${i}`));
    for (const f of fifos) execFileSync("mkfifo", [f]);
    const blocked = fifos.map((f) => open(f, "r"));
    let unblocked = false;
    const unblock = async (): Promise<void> => {
      if (unblocked) return;
      unblocked = true;
      // A non-blocking open for writing fails (ENXIO) until the reader's open has started: retried.
      for (const f of fifos) {
        for (;;) {
          try {
            closeSync(openSync(f, constants.O_WRONLY | constants.O_NONBLOCK));
            break;
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== "ENXIO") throw err;
            await new Promise((r) => setTimeout(r, 5));
          }
        }
      }
      for (const h of await Promise.all(blocked)) await h.close();
    };
    try {
      await new Promise((r) => setTimeout(r, 50));
      const batch = buildBatch({ records: [kv("b", "x".repeat(2000))] });
      const appended = log.append(batch, { requireDurable: true });
      // Its fsync waits for a pool thread; its write did not.
      await new Promise((r) => setTimeout(r, 200));
      expect(statSync(segment).size).toBe(before + batch.length);
      await unblock();
      expect((await appended).baseOffset).toBe(1n);
    } finally {
      await unblock();
    }
  });
});

describe("I/O failure", () => {
  // Small groups of appends are written on the event loop's thread (writev(2) on the handle's fd), larger ones on
  // libuv's pool (FileHandle.writev): a failure of either is injected where that path meets node.
  const cases = [
    {
      path: "a small group, written on the event loop's thread",
      value: "b",
      inject: (proto: object) => vi.spyOn(proto as { fd: number }, "fd", "get").mockReturnValueOnce(-1),
    },
    {
      path: "a large group, written on libuv's thread pool",
      value: "b".repeat(70_000),
      inject: (proto: object) => vi.spyOn(proto as { writev: () => Promise<unknown> }, "writev").mockRejectedValueOnce(Object.assign(new Error("EIO: i/o error"), { code: "EIO" })),
    },
  ];
  it.each(cases)("fails the appends of a failed write instead of leaving them pending, and refuses later appends ($path)", async ({ value, inject }) => {
    const log = await openLog();
    await log.append(buildBatch({ records: [kv("a", "b")] }));
    const h = await open(join(dir.path, "probe"), "w");
    const proto = Object.getPrototypeOf(h) as object;
    await h.close();
    const spy = inject(proto);
    try {
      const results = await Promise.allSettled(
        [1, 2, 3].map(() => log.append(buildBatch({ records: [kv("a", value)] }), { requireDurable: true })),
      );
      expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
      await expectCode(log.append(buildBatch({ records: [kv("a", "b")] })), 56);
      await expectCode(log.read(0n, 100), 56);
    } finally {
      spy.mockRestore();
    }
    // The failed log is recovered on the next open: the acknowledged record is there, the failed ones are not.
    const again = await reopen();
    expect(mgr!.recoveredFromCrash).toBe(true);
    expect(again.logEndOffset).toBe(1n);
  });
});

describe("appends racing the topic's deletion", () => {
  it("are answered UNKNOWN_TOPIC_OR_PARTITION, as Kafka answers a produce to a partition it no longer hosts, never KAFKA_STORAGE_ERROR", async () => {
    const log = await openLog();
    // Durable and non-durable appends in every stage: waiting for the writer, written and waiting for the fsync.
    const appends = Array.from({ length: 40 }, (_, i) => log.append(buildBatch({ records: [kv(`k${i}`, "x".repeat(i % 2 === 0 ? 10 : 100_000))] }), { requireDurable: i % 3 !== 0 }));
    await new Promise((r) => setImmediate(r));
    const deleted = mgr!.deleteTopic("t");
    const outcomes = await Promise.allSettled(appends);
    await deleted;
    const codes = outcomes.map((o) => (o.status === "fulfilled" ? 0 : (o.reason as { code?: number }).code));
    expect(codes.filter((c) => c !== 0 && c !== 3)).toEqual([]);
    expect(codes).toContain(3);
    await expectCode(log.append(buildBatch({ records: [kv("late", "x")] }), { requireDurable: true }), 3);
  });
});

describe("segments and indexes", () => {
  it("rolls by segment.bytes and finds every offset through the sparse index, also after reopening", async () => {
    let log = await openLog({ "segment.bytes": "1024", "index.interval.bytes": "150" });
    for (let i = 0; i < 200; i++) await log.append(buildBatch({ records: [kv(`k${i}`, `value-${i}`)] }), { requireDurable: false });
    expect(log.segmentCount).toBeGreaterThan(10);
    const bases = log.segmentBaseOffsets;
    const files = await Promise.all(bases.map((b) => stat(join(dir.path, "logs", "t-0", `${String(b).padStart(20, "0")}.log`))));
    for (const f of files) expect(f.size).toBeLessThanOrEqual(1024);

    const check = async (l: PartitionLog): Promise<void> => {
      for (let o = 0; o < 200; o++) {
        const [first] = recordsOf((await l.read(BigInt(o), 1)).records);
        expect(first).toMatchObject({ offset: o, value: `value-${o}` });
      }
      const all = [];
      let next = 0n;
      while (next < 200n) {
        const recs = recordsOf((await l.read(next, 700)).records);
        all.push(...recs);
        next = BigInt(recs[recs.length - 1]!.offset + 1);
      }
      expect(all.map((r) => r.offset)).toEqual([...Array(200).keys()]);
    };
    await check(log);
    log = await reopen();
    expect(log.segmentBaseOffsets).toEqual(bases);
    const idx = await stat(join(dir.path, "logs", "t-0", "00000000000000000000.index"));
    expect(idx.size).toBeGreaterThan(8); // several entries: the index is sparse, not empty
    await check(log);
  });

  it("rolls by segment.ms measured from the first batch's timestamp", async () => {
    const log = await openLog({ "segment.ms": "1000" });
    await log.append(buildBatch({ records: [kv("a", "1", now)] }));
    now += 500;
    await log.append(buildBatch({ records: [kv("a", "2", now)] }));
    expect(log.segmentCount).toBe(1);
    now += 600;
    await log.append(buildBatch({ records: [kv("a", "3", now)] }));
    expect(log.segmentBaseOffsets).toEqual([0n, 2n]);
  });

  it("finds the first offset at or after a timestamp, and the max-timestamp record", async () => {
    const log = await openLog({ "segment.bytes": "200", "index.interval.bytes": "1" });
    await log.append(buildBatch({ records: [kv("a", "0", 1000), kv("a", "1", 1001), kv("a", "2", 1002)] }));
    await log.append(buildBatch({ records: [kv("a", "3", 1005), kv("a", "4", 1003), kv("a", "5", 1010)] }));
    await log.append(buildBatch({ records: [kv("a", "6", 1004), kv("a", "7", 1006)] }));
    expect(log.segmentCount).toBeGreaterThan(1);
    expect(await log.offsetForTimestamp(0n)).toEqual({ offset: 0n, timestamp: 1000n });
    expect(await log.offsetForTimestamp(1001n)).toEqual({ offset: 1n, timestamp: 1001n });
    expect(await log.offsetForTimestamp(1003n)).toEqual({ offset: 3n, timestamp: 1005n });
    expect(await log.offsetForTimestamp(1006n)).toEqual({ offset: 5n, timestamp: 1010n });
    expect(await log.offsetForTimestamp(1011n)).toBeNull();
    expect(await log.maxTimestampOffset()).toEqual({ offset: 5n, timestamp: 1010n });
  });
});

describe("retention and deletion", () => {
  it("deletes whole old segments by retention.ms, never the active one, and persists the log start offset", async () => {
    let log = await openLog({ "segment.bytes": "200", "retention.ms": "10000" });
    for (let i = 0; i < 6; i++) await log.append(buildBatch({ records: [kv("a", `${i}`, now - 60_000 + i)] }));
    for (let i = 6; i < 9; i++) await log.append(buildBatch({ records: [kv("a", `${i}`, now)] }));
    const segsBefore = log.segmentCount;
    expect(await log.runRetention(now)).toBeGreaterThan(0);
    expect(log.segmentCount).toBeLessThan(segsBefore);
    expect(log.logStartOffset).toBe(6n);
    await expectCode(log.read(0n, 1000), 1);
    expect(recordsOf(await readAll(log)).map((r) => r.value)).toEqual(["6", "7", "8"]);

    // Everything expired: the active segment is rolled so it can go too; the log end stays.
    now += 60_000;
    await log.runRetention(now);
    expect(log.logStartOffset).toBe(9n);
    expect(log.logEndOffset).toBe(9n);

    log = await reopen();
    expect(log.logStartOffset).toBe(9n);
    expect((await log.append(buildBatch({ records: [kv("a", "9")] }))).baseOffset).toBe(9n);
  });

  it("deletes the oldest segments while the partition is over retention.bytes", async () => {
    const log = await openLog({ "segment.bytes": "300", "retention.bytes": "700", "retention.ms": "-1" });
    for (let i = 0; i < 30; i++) await log.append(buildBatch({ records: [kv("a", `value-${i}`)] }));
    const sizeBefore = log.size;
    await log.runRetention(now + 10 ** 12);
    expect(sizeBefore).toBeGreaterThan(700);
    // Kafka's rule: delete the oldest segment only while the rest still holds ≥ retention.bytes.
    expect(log.size).toBeGreaterThanOrEqual(700);
    expect(log.size - log.segmentSizes[0]!).toBeLessThan(700);
    expect(log.logStartOffset).toBe(log.segmentBaseOffsets[0]);
    expect(log.logEndOffset).toBe(30n);
  });

  it("DeleteRecords advances the log start offset durably", async () => {
    let log = await openLog({ "segment.bytes": "200" });
    for (let i = 0; i < 10; i++) await log.append(buildBatch({ records: [kv("a", `${i}`)] }));
    expect(await log.deleteRecordsBefore(7n)).toBe(7n);
    await expectCode(log.read(6n, 1000), 1);
    expect(recordsOf((await log.read(7n, 100_000)).records).map((r) => r.offset)).toContain(7);
    await expectCode(log.deleteRecordsBefore(11n), 1);
    log = await reopen({ crash: true });
    expect(log.logStartOffset).toBe(7n);
    expect(log.segmentBaseOffsets[0]).toBeLessThanOrEqual(7n);
  });
});

describe("compaction", () => {
  it("keeps the latest record per key with its original offset and drops old tombstones", async () => {
    let log = await openLog({ "cleanup.policy": "compact", "segment.bytes": "400", "delete.retention.ms": "1000" });
    const expected = new Map<string, { offset: number; value: string | null }>();
    let offset = 0;
    for (let round = 0; round < 4; round++) {
      for (let k = 0; k < 5; k++) {
        const value = `k${k}-round${round}`;
        // Mixed codecs: gzip batches are decompressed, filtered and recompressed.
        await log.append(buildBatch({ compression: round % 2 ? "gzip" : "none", records: [kv(`k${k}`, value, now), kv("pad", "x", now)] }));
        expected.set(`k${k}`, { offset, value });
        expected.set("pad", { offset: offset + 1, value: "x" }); // only the latest "pad" survives
        offset += 2;
      }
    }
    await log.append(buildBatch({ records: [kv("k1", null, now - 5000)] })); // old tombstone: removed
    expected.delete("k1");
    offset++;
    await log.append(buildBatch({ records: [kv("k2", null, now)] })); // recent tombstone: kept
    expected.set("k2", { offset: offset++, value: null });
    await log.forceRoll();
    expect(log.logEndOffset).toBe(BigInt(offset));

    const removed = await log.compact(now);
    expect(removed).toBe(offset - expected.size);
    const check = async (l: PartitionLog): Promise<void> => {
      const recs = recordsOf((await l.read(0n, 1 << 20)).records.length ? await readAll(l) : Buffer.alloc(0));
      expect(new Map(recs.map((r) => [r.key!, { offset: r.offset, value: r.value }]))).toEqual(expected);
      expect(recs).toHaveLength(expected.size);
      expect(l.logEndOffset).toBe(BigInt(offset));
    };
    await check(log);
    log = await reopen({ crash: true });
    await check(log);
    // Appends continue after the highest offset even though compaction removed records.
    expect((await log.append(buildBatch({ records: [kv("k9", "x")] }))).baseOffset).toBe(BigInt(offset));
  });

  it("a crash mid-compaction leaves either the old or the new segment", async () => {
    let log = await openLog({ "cleanup.policy": "compact", "segment.bytes": "100000" });
    for (let i = 0; i < 10; i++) await log.append(buildBatch({ records: [kv("same", `v${i}`)] }));
    await log.forceRoll();
    const segDir = join(dir.path, "logs", "t-0");
    const original = await readFile(join(segDir, "00000000000000000000.log"));
    // A half-written .cleaned file from an interrupted run is discarded.
    await writeFile(join(segDir, "00000000000000000000.log.cleaned"), original.subarray(0, 30));
    log = await reopen({ crash: true });
    expect(recordsOf(await readAll(log))).toHaveLength(10);
    // A complete .swap (renamed after fsync) wins over the old .log.
    const last = splitBatches(original).at(-1)!.bytes;
    await log.compact(now); // produces the compacted segment
    const compacted = await readFile(join(segDir, "00000000000000000000.log"));
    expect(compacted.equals(last)).toBe(true);
    await mgr!.close();
    await writeFile(join(segDir, "00000000000000000000.log"), original);
    await writeFile(join(segDir, "00000000000000000000.log.swap"), compacted);
    await rm(join(dir.path, ".kappa_clean_shutdown"));
    mgr = await LogManager.open(dir.path, { clock });
    log = mgr.getPartition("t", 0);
    expect(recordsOf(await readAll(log)).map((r) => r.value)).toEqual(["v9"]);
  });
});

async function readAll(log: PartitionLog): Promise<Buffer> {
  const parts: Buffer[] = [];
  let next = log.logStartOffset;
  while (next < log.logEndOffset) {
    const { records } = await log.read(next, 1 << 20);
    if (records.length === 0) break;
    parts.push(records);
    const batches = splitBatches(records);
    const lastB = batches[batches.length - 1]!.header;
    next = BigInt(lastB.baseOffset + lastB.lastOffsetDelta + 1);
  }
  return Buffer.concat(parts);
}

describe("idempotent producers", () => {
  const pb = (seq: number, n: number, epoch = 0, pid = 7) =>
    buildBatch({
      producerId: pid,
      producerEpoch: epoch,
      baseSequence: seq,
      records: Array.from({ length: n }, (_, i) => kv("k", `s${seq + i}`)),
    });

  it("returns the original offsets for a retried batch and rejects gaps and old epochs", async () => {
    let log = await openLog();
    expect((await log.append(pb(0, 3))).baseOffset).toBe(0n);
    expect((await log.append(pb(3, 2))).baseOffset).toBe(3n);
    const dup = await log.append(pb(0, 3));
    expect(dup).toMatchObject({ baseOffset: 0n, lastOffset: 2n, duplicate: true });
    expect(log.logEndOffset).toBe(5n);
    await expectCode(log.append(pb(9, 1)), 45);
    expect((await log.append(pb(0, 1, 1))).baseOffset).toBe(5n); // epoch bump restarts at 0
    await expectCode(log.append(pb(1, 1, 0)), 47);
    await expectCode(log.append(pb(5, 1, 2)), 45); // new epoch must start at sequence 0

    log = await reopen();
    expect(await log.append(pb(0, 1, 1))).toMatchObject({ baseOffset: 5n, duplicate: true });
    await expectCode(log.append(pb(1, 1, 0)), 47);

    // After a crash without a producer snapshot, the state is rebuilt from batch headers.
    await mgr!.close();
    await rm(join(dir.path, "logs", "t-0", "producer-state.json"));
    log = await reopen({ crash: true });
    expect(await log.append(pb(0, 1, 1))).toMatchObject({ baseOffset: 5n, duplicate: true });
    await expectCode(log.append(pb(7, 1, 1)), 45);
    expect((await log.append(pb(1, 1, 1))).baseOffset).toBe(6n);
  });

  it("remembers only the last five batches per producer", async () => {
    const log = await openLog();
    for (let s = 0; s < 7; s++) await log.append(pb(s, 1));
    expect(await log.append(pb(2, 1))).toMatchObject({ baseOffset: 2n, duplicate: true });
    await expectCode(log.append(pb(1, 1)), 45);
  });
});

describe("recovery", () => {
  it("truncates a torn write (half a batch) at the end of the active segment", async () => {
    let log = await openLog();
    for (let i = 0; i < 5; i++) await log.append(buildBatch({ records: [kv("a", `v${i}`)] }));
    await mgr!.close();
    const path = join(dir.path, "logs", "t-0", "00000000000000000000.log");
    const goodSize = (await stat(path)).size;
    const half = buildBatch({ records: [kv("a", "torn".repeat(50))] });
    const cut = Math.floor(half.length / 2);
    await appendFile(path, half.subarray(0, cut));
    await rm(join(dir.path, ".kappa_clean_shutdown"));
    mgr = await LogManager.open(dir.path, { clock });
    log = mgr.getPartition("t", 0);
    expect(mgr.recoveredFromCrash).toBe(true);
    expect(log.recovery.truncatedBytes).toBe(cut);
    expect((await stat(path)).size).toBe(goodSize);
    expect(log.logEndOffset).toBe(5n);
    expect((await log.append(buildBatch({ records: [kv("a", "v5")] }))).baseOffset).toBe(5n);
    expect(recordsOf(await readAll(log)).map((r) => r.value)).toEqual(["v0", "v1", "v2", "v3", "v4", "v5"]);
  });

  it("drops a last batch whose CRC does not match", async () => {
    let log = await openLog();
    for (let i = 0; i < 3; i++) await log.append(buildBatch({ records: [kv("a", `v${i}`)] }));
    await mgr!.close();
    const path = join(dir.path, "logs", "t-0", "00000000000000000000.log");
    const bytes = await readFile(path);
    bytes[bytes.length - 2]! ^= 0x55;
    await writeFile(path, bytes);
    await rm(join(dir.path, ".kappa_clean_shutdown"));
    mgr = await LogManager.open(dir.path, { clock });
    log = mgr.getPartition("t", 0);
    expect(log.logEndOffset).toBe(2n);
    expect(recordsOf(await readAll(log)).map((r) => r.value)).toEqual(["v0", "v1"]);
    expect(readHeader(await readFile(path), 0).baseOffset).toBe(0);
  });
});
