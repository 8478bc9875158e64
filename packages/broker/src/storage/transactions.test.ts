// The partition side of transactions (KIP-98): transactional batches, markers,
// the last stable offset, the aborted-transactions index per segment, recovery
// after a crash, compaction and READ_COMMITTED reads.
import { rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ATTR_CONTROL, decodeRecords } from "./batch.ts";
import { LogManager } from "./log-manager.ts";
import type { PartitionLog } from "./partition-log.ts";
import { buildBatch, recordsOf, splitBatches, tempDir } from "./test-helpers.ts";
import { TxnIndex } from "./txn-index.ts";

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

/**
 * Reopens the data dir. `crash` makes it look as after kill -9 before any
 * snapshot: no clean-shutdown marker and no producer snapshot, so the state is
 * replayed from the log; `keepTxnIndex` leaves the active segment's
 * `.txnindex` (written at close) in place, as a crash between writing it and
 * the snapshot would.
 */
async function reopen(opts: { crash?: boolean; keepTxnIndex?: boolean } = {}): Promise<PartitionLog> {
  const active = mgr!.getPartition("t", 0).segmentBaseOffsets.at(-1)!;
  await mgr!.close();
  if (opts.crash) {
    const pdir = join(dir.path, "logs", "t-0");
    await rm(join(dir.path, ".kappa_clean_shutdown"));
    await rm(join(pdir, "producer-state.json"), { force: true });
    if (!opts.keepTxnIndex) await rm(join(pdir, `${String(active).padStart(20, "0")}.txnindex`), { force: true });
  }
  mgr = await LogManager.open(dir.path, { clock });
  return mgr.getPartition("t", 0);
}

/** Transactional batch of producer `pid` (epoch 0) starting at sequence `seq`. */
const txn = (pid: number, seq: number, ...values: string[]) =>
  buildBatch({ producerId: pid, producerEpoch: 0, baseSequence: seq, transactional: true, records: values.map((v) => ({ key: null, value: v })) });
const plain = (...values: string[]) => buildBatch({ records: values.map((v) => ({ key: null, value: v })) });
const marker = (producerId: number, commit: boolean, producerEpoch = 0) => ({ producerId, producerEpoch, commit, coordinatorEpoch: 0 });

/**
 * The values a READ_COMMITTED (or READ_UNCOMMITTED) consumer ends up with:
 * reads to the LSO (or HW), drops the records of transactions the log lists as
 * aborted for each read, and skips markers — what a Kafka client does.
 */
async function values(log: PartitionLog, isolation: "read_committed" | "read_uncommitted"): Promise<string[]> {
  const out: string[] = [];
  let offset = 0n;
  for (;;) {
    const r = await log.read(offset, 1 << 20, { isolation });
    if (r.records.length === 0) return out;
    const batches = splitBatches(r.records);
    const end = batches.at(-1)!.header;
    const aborted = isolation === "read_committed" ? await log.abortedTransactions(offset, BigInt(end.baseOffset + end.lastOffsetDelta + 1)) : [];
    for (const { header, bytes } of batches) {
      offset = BigInt(header.baseOffset + header.lastOffsetDelta + 1);
      if ((header.attributes & ATTR_CONTROL) !== 0) continue;
      if (aborted.some((a) => a.producerId === header.producerId && a.firstOffset <= header.baseOffset && header.baseOffset <= a.lastOffset)) continue;
      out.push(...decodeRecords(bytes).map((rec) => rec.value?.toString() ?? ""));
    }
  }
}

describe("transactional appends and markers", () => {
  it("holds the LSO at an open transaction's first offset and indexes aborts", async () => {
    const log = await openLog();
    await log.append(plain("p0"));
    await log.append(txn(7, 0, "a1", "a2")); // offsets 1-2, pid 7
    await log.append(txn(8, 0, "c3")); // offset 3, pid 8
    expect(log.highWatermark).toBe(4n);
    expect(log.lastStableOffset).toBe(1n);
    // READ_COMMITTED stops before the first batch at the LSO.
    expect(recordsOf((await log.read(0n, 1 << 20, { isolation: "read_committed" })).records).map((r) => r.value)).toEqual(["p0"]);
    await log.appendTxnMarker(marker(7, false)); // offset 4: abort of pid 7
    expect(log.lastStableOffset).toBe(3n);
    await log.appendTxnMarker(marker(8, true)); // offset 5: commit of pid 8
    expect(log.lastStableOffset).toBe(6n);
    expect(await log.abortedTransactions(0n, 6n)).toEqual([{ producerId: 7, firstOffset: 1, lastOffset: 4, lastStableOffset: 3 }]);
    expect(await log.abortedTransactions(5n, 6n)).toEqual([]);
    // Markers are control batches in the log.
    const batches = splitBatches((await log.read(4n, 1 << 20)).records);
    expect(batches.map((b) => [b.header.baseOffset, (b.header.attributes & ATTR_CONTROL) !== 0])).toEqual([
      [4, true],
      [5, true],
    ]);
    expect(log.activeProducers().find((p) => p.producerId === 8)).toMatchObject({ epoch: 0, lastSequence: 0, coordinatorEpoch: 0, currentTxnStartOffset: -1 });
  });

  it("refuses a plain batch from a producer with an open transaction, client markers, and stale marker epochs", async () => {
    const log = await openLog();
    await log.append(txn(7, 0, "a"));
    await expect(log.append(buildBatch({ producerId: 7, producerEpoch: 0, baseSequence: 1, records: [{ key: "x", value: "x" }] }))).rejects.toMatchObject({ code: 48 });
    // A fencing abort (epoch 1) raises the producer's epoch: its epoch-0 writes are refused after it.
    await log.appendTxnMarker(marker(7, false, 1));
    await expect(log.append(txn(7, 1, "late"))).rejects.toMatchObject({ code: 47 });
    await expect(log.appendTxnMarker(marker(7, true, 0))).rejects.toMatchObject({ code: 47 });
    // The producer's next incarnation (epoch 2) starts again at sequence 0.
    await log.append(buildBatch({ producerId: 7, producerEpoch: 2, baseSequence: 0, transactional: true, records: [{ key: "n", value: "n" }] }));
    expect(log.activeProducers().find((p) => p.producerId === 7)).toMatchObject({ epoch: 2, currentTxnStartOffset: 2 });
    // A transactional batch without a producer id is malformed.
    await expect(log.append(buildBatch({ transactional: true, records: [{ key: "z", value: "z" }] }))).rejects.toMatchObject({ code: 87 });
  });
});

describe("the aborted-transactions index on disk", () => {
  it("writes a segment's .txnindex when it rolls and finds aborts whose data began in an earlier segment", async () => {
    const log = await openLog({ "segment.bytes": "300" });
    await log.append(txn(7, 0, "a".repeat(150))); // offset 0, segment 0
    await log.append(plain("b".repeat(150))); // offset 1, segment 1 (two do not fit in 300 bytes)
    await log.append(plain("c".repeat(150))); // offset 2, segment 2
    await log.appendTxnMarker(marker(7, false)); // offset 3, still segment 2
    await log.append(plain("d".repeat(150))); // offset 4, segment 3: segment 2 rolls with its index
    expect(log.segmentCount).toBeGreaterThan(2);
    const markerSegment = log.segmentBaseOffsets.filter((b) => b <= 3n).pop()!;
    const file = join(dir.path, "logs", "t-0", `${String(markerSegment).padStart(20, "0")}.txnindex`);
    expect((await TxnIndex.load(file)).all()).toEqual([{ producerId: 7, firstOffset: 0, lastOffset: 3, lastStableOffset: 4 }]);
    // A fetch of offset 0 (first segment) still learns about the abort recorded two segments later.
    expect(await log.abortedTransactions(0n, 1n)).toEqual([{ producerId: 7, firstOffset: 0, lastOffset: 3, lastStableOffset: 4 }]);
    expect(await values(await reopen(), "read_committed")).toEqual(["b".repeat(150), "c".repeat(150), "d".repeat(150)]);
  });
});

describe("recovery after a crash", () => {
  it("rebuilds open transactions and the active segment's aborts from the log", async () => {
    let log = await openLog();
    await log.append(plain("p0"));
    await log.append(txn(7, 0, "a1"));
    await log.append(txn(8, 0, "o2"));
    await log.appendTxnMarker(marker(7, false));
    await log.append(txn(9, 0, "c4"));
    await log.appendTxnMarker(marker(9, true));
    log = await reopen({ crash: true });
    // pid 8 is still open: the LSO stays at its first offset; pid 7's abort is known again.
    expect(log.lastStableOffset).toBe(2n);
    expect(await log.abortedTransactions(0n, 7n)).toEqual([{ producerId: 7, firstOffset: 1, lastOffset: 3, lastStableOffset: 2 }]);
    expect(log.activeProducers().find((p) => p.producerId === 8)?.currentTxnStartOffset).toBe(2);
    await log.appendTxnMarker(marker(8, true));
    expect(log.lastStableOffset).toBe(log.highWatermark);
    expect(await values(log, "read_committed")).toEqual(["p0", "o2", "c4"]);
    // And once more with a clean close: the snapshot carries the same state.
    log = await reopen();
    expect(await values(log, "read_committed")).toEqual(["p0", "o2", "c4"]);
    expect(await values(log, "read_uncommitted")).toEqual(["p0", "a1", "o2", "c4"]);
  });

  it("does not count an abort twice when the index file is newer than the snapshot", async () => {
    let log = await openLog();
    await log.append(txn(7, 0, "a"));
    await log.appendTxnMarker(marker(7, false));
    log = await reopen({ crash: true, keepTxnIndex: true });
    expect(await log.abortedTransactions(0n, 2n)).toHaveLength(1);
  });
});

describe("compaction", () => {
  it("drops aborted records, keeps committed ones and every marker, and never touches undecided data", async () => {
    const log = await openLog({ "cleanup.policy": "compact", "segment.bytes": "400" });
    await log.append(buildBatch({ records: [{ key: "k", value: "v1" }] }));
    await log.append(buildBatch({ producerId: 7, producerEpoch: 0, baseSequence: 0, transactional: true, records: [{ key: "k", value: "aborted" }] }));
    await log.appendTxnMarker(marker(7, false));
    await log.append(buildBatch({ producerId: 8, producerEpoch: 0, baseSequence: 0, transactional: true, records: [{ key: "j", value: "committed" }] }));
    await log.appendTxnMarker(marker(8, true));
    await log.append(buildBatch({ producerId: 9, producerEpoch: 0, baseSequence: 0, transactional: true, records: [{ key: "j", value: "open" }] }));
    for (let i = 0; i < 6; i++) await log.append(buildBatch({ records: [{ key: `f${i}`, value: "x".repeat(120) }] }));
    await log.forceRoll();
    const removed = await log.compact(now);
    // The aborted "k" record goes, and does not displace v1 as k's latest value; pid 9's open record stays (beyond the LSO).
    expect(removed).toBe(1);
    const all: string[] = [];
    const controls: number[] = [];
    let offset = 0n;
    for (;;) {
      const r = await log.read(offset, 1 << 20);
      if (r.records.length === 0) break;
      for (const b of splitBatches(r.records)) {
        if ((b.header.attributes & ATTR_CONTROL) !== 0) controls.push(b.header.baseOffset);
        else all.push(...recordsOf(b.bytes).map((rec) => `${rec.key}=${rec.value}`));
        offset = BigInt(b.header.baseOffset + b.header.lastOffsetDelta + 1);
      }
    }
    expect(all).toContain("k=v1");
    expect(all).not.toContain("k=aborted");
    expect(all).toContain("j=committed");
    expect(all).toContain("j=open");
    expect(controls).toEqual([2, 4]);
  });
});

describe("files", () => {
  it("removes a segment's .txnindex with the segment", async () => {
    const log = await openLog({ "segment.bytes": "300", "retention.bytes": "1" });
    await log.append(txn(7, 0, "a"));
    await log.appendTxnMarker(marker(7, false));
    await log.append(plain("b".repeat(150))); // does not fit: segment 0 (transaction and abort) rolls
    await log.append(plain("c".repeat(150)));
    const first = join(dir.path, "logs", "t-0", "00000000000000000000.txnindex");
    expect((await TxnIndex.load(first)).size).toBe(1);
    expect(await log.runRetention(now)).toBeGreaterThan(0);
    await expect(stat(first)).rejects.toThrow();
  });
});
