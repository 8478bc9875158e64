// Tiered storage at the storage-engine level, with an injected clock so that each
// crash window of the copy protocol can be set up exactly: leftovers of an
// interrupted copy, orphan objects, a torn journal tail, a segment copied but not
// yet deleted locally; then remote reads, timestamp lookups and topic deletion.
import { randomUUID } from "node:crypto";
import { appendFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LogManager } from "../log-manager.ts";
import { buildBatch, recordsOf, tempDir } from "../test-helpers.ts";
import { RemoteLogMetadataStore } from "./remote-log-metadata.ts";
import { remoteObjectKey } from "./remote-object-keys.ts";
import { FolderRemoteStorage, RemoteObjectNotFoundError } from "./remote-storage.ts";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function dirs() {
  const data = await tempDir("kappa-tiered-data-");
  const remote = await tempDir("kappa-tiered-remote-");
  cleanups.push(data.cleanup, remote.cleanup);
  return { data: data.path, remote: remote.path };
}

async function openManager(data: string, remote: string, clock: () => number): Promise<LogManager> {
  return LogManager.open(data, { clock, remote: { storage: await FolderRemoteStorage.open(remote), taskIntervalMs: 1e9, chunkBytes: 700, cacheBytes: 4096, log: () => undefined } });
}

async function readAllValues(mgr: LogManager, topic: string): Promise<string[]> {
  const log = mgr.getPartition(topic, 0);
  const out: string[] = [];
  let offset = log.logStartOffset;
  while (offset < log.highWatermark) {
    const r = await log.read(offset, 500);
    const recs = recordsOf(r.records).filter((x) => x.offset >= Number(offset));
    expect(recs.length).toBeGreaterThan(0);
    expect(recs[0]!.offset).toBe(Number(offset));
    for (const x of recs) out.push(x.value ?? "");
    offset = BigInt(recs[recs.length - 1]!.offset + 1);
  }
  return out;
}

describe("FolderRemoteStorage", () => {
  it("puts atomically, reads ranges, lists and deletes idempotently", async () => {
    const { remote } = await dirs();
    const s = await FolderRemoteStorage.open(remote);
    await s.put("a-0-x/one.log", Buffer.from("hello world"));
    async function* chunks() {
      yield Buffer.from("abc");
      yield Buffer.from("def");
    }
    await s.put("a-0-x/two.log", chunks());
    expect((await s.get("a-0-x/two.log")).toString()).toBe("abcdef");
    expect((await s.getRange("a-0-x/one.log", 6, 100)).toString()).toBe("world");
    expect((await s.list("a-0-x/")).sort()).toEqual(["a-0-x/one.log", "a-0-x/two.log"]);
    expect(await s.list("b")).toEqual([]);
    await s.delete("a-0-x/one.log");
    await s.delete("a-0-x/one.log");
    await expect(s.get("a-0-x/one.log")).rejects.toBeInstanceOf(RemoteObjectNotFoundError);
    await expect(s.put("../escape", Buffer.alloc(1))).rejects.toThrow(/invalid remote object key/);
    // Temporary files of interrupted puts never show up as objects.
    expect(await readdir(join(remote, ".tmp"))).toEqual([]);
  });
});

describe("RemoteLogManager", () => {
  it("survives every crash window of the copy protocol and serves offset 0 from the store", async () => {
    const { data, remote } = await dirs();
    let now = 1_000_000;
    const clock = () => now;
    let mgr = await openManager(data, remote, clock);
    await mgr.createTopic("t", { partitions: 1, configs: { "remote.storage.enable": "true", "segment.bytes": "1024", "local.retention.ms": "1000" } });
    const values: string[] = [];
    for (let i = 0; i < 60; i++) {
      const batch = [0, 1, 2].map((j) => `v${i}-${j}-${"x".repeat(40)}`);
      values.push(...batch);
      await mgr.getPartition("t", 0).append(buildBatch({ baseTimestamp: now + i, records: batch.map((v) => ({ key: null, value: v, timestamp: now + i })) }));
    }
    const log = mgr.getPartition("t", 0);
    const closed = log.closedSegments().length;
    expect(closed).toBeGreaterThan(10);

    // Copied, but not yet past local retention: the state a crash between the
    // metadata write and the local delete leaves behind.
    await mgr.runRemoteLogTasks(now);
    expect(mgr.remoteLogStats("t")[0]!.segments).toBe(closed);
    expect(log.localLogStartOffset).toBe(0n);
    expect(log.highestTieredOffset).toBe(BigInt(log.closedSegments()[closed - 1]!.nextOffset - 1));
    await mgr.close();

    // Leftovers of a copy interrupted between upload and COPY_SEGMENT_FINISHED,
    // an object no record refers to, and a torn journal tail.
    const meta = await RemoteLogMetadataStore.open(join(data, "meta"));
    const finished = meta.all();
    const topicId = finished[0]!.topicId;
    const interrupted = { ...finished[finished.length - 1]!, id: randomUUID(), state: "COPY_SEGMENT_STARTED" as const };
    await meta.update(interrupted);
    await meta.close();
    const store = await FolderRemoteStorage.open(remote);
    await store.put(remoteObjectKey(interrupted, "log"), Buffer.from("partial upload"));
    await store.put(remoteObjectKey(interrupted, "index"), Buffer.alloc(0));
    const orphan = remoteObjectKey({ ...interrupted, id: randomUUID() }, "log");
    await store.put(orphan, Buffer.from("orphan"));
    await appendFile(join(data, "meta", "remote-log-segments.journal"), Buffer.from([0, 0, 1, 0, 9, 9]));

    mgr = await openManager(data, remote, clock);
    expect(mgr.remote!.counters.recoveredCopies).toBe(1);
    expect(mgr.remote!.counters.orphansDeleted).toBe(1);
    const liveIds = new Set(finished.map((f) => f.id));
    const keys = await store.list("");
    expect(keys.length).toBe(3 * closed);
    for (const k of keys) expect(liveIds.has(/-([0-9a-f-]{36})\.\w+$/.exec(k)![1]!)).toBe(true);
    expect(mgr.remoteLogStats("t")[0]!.segments).toBe(closed);

    // Past local retention: local segments go, the log start offset stays at 0.
    now += 5000;
    // The first pass also rolls the idle, expired active segment; the second copies and drops it.
    await mgr.runRemoteLogTasks(now);
    await mgr.runRemoteLogTasks(now);
    const log2 = mgr.getPartition("t", 0);
    expect(log2.segmentCount).toBe(1);
    expect(log2.logStartOffset).toBe(0n);
    expect(log2.localLogStartOffset).toBe(log2.highestTieredOffset + 1n);
    expect(await readAllValues(mgr, "t")).toEqual(values);
    expect(mgr.remote!.cacheStats.bytes).toBeLessThanOrEqual(4096);
    // Timestamp lookups and max timestamp reach into the store.
    expect(await log2.offsetForTimestamp(BigInt(1_000_000 + 5))).toEqual({ offset: 15n, timestamp: BigInt(1_000_000 + 5) });
    expect((await log2.maxTimestampOffset())?.offset).toBe(BigInt(values.length - 3));

    // Restart: still all there, and the log start offset was not raised to the first local segment.
    await mgr.close();
    mgr = await openManager(data, remote, clock);
    expect(mgr.getPartition("t", 0).logStartOffset).toBe(0n);
    expect(await readAllValues(mgr, "t")).toEqual(values);

    // Deleting the topic deletes its remote segments.
    await mgr.deleteTopic("t");
    expect(await store.list("")).toEqual([]);
    expect(mgr.remote!.stats(topicId, 0).segments).toBe(0);
    await mgr.close();
  });

  it("refuses to open a data dir with tiered topics when remote storage is off", async () => {
    const { data, remote } = await dirs();
    const mgr = await openManager(data, remote, Date.now);
    await mgr.createTopic("t", { partitions: 1, configs: { "remote.storage.enable": "true" } });
    await mgr.close();
    await expect(LogManager.open(data)).rejects.toThrow(/before disabling tiered storage cluster-wide/);
  });

  it("copies only decided segments, carries their transaction index, and answers aborted transactions from the store", async () => {
    const { data, remote } = await dirs();
    let now = 1_000_000;
    const clock = () => now;
    const mgr = await openManager(data, remote, clock);
    cleanups.push(() => mgr.close());
    await mgr.createTopic("t", { partitions: 1, configs: { "remote.storage.enable": "true", "segment.bytes": "300", "local.retention.ms": "1000" } });
    const log = mgr.getPartition("t", 0);
    const txn = (pid: number, v: string) => buildBatch({ baseTimestamp: now, producerId: pid, producerEpoch: 0, baseSequence: 0, transactional: true, records: [{ key: null, value: v }] });
    const plain = (v: string) => buildBatch({ baseTimestamp: now, records: [{ key: null, value: v }] });
    await log.append(txn(7, "a".repeat(120))); // offset 0: an aborted transaction, segment 0
    await log.appendTxnMarker({ producerId: 7, producerEpoch: 0, commit: false, coordinatorEpoch: 0 }); // offset 1
    await log.append(plain("p".repeat(200))); // offset 2, segment 1
    await log.append(txn(8, "o".repeat(200))); // offset 3, segment 2: still open
    await log.append(plain("q".repeat(200))); // offset 4, segment 3
    await log.append(plain("r".repeat(200))); // offset 5, segment 4 (active)
    expect(log.lastStableOffset).toBe(3n);
    await mgr.runRemoteLogTasks(now);
    // Segments 0 and 1 are below the LSO; segment 2 holds the open transaction, so nothing from it on is copied.
    expect(log.highestTieredOffset).toBe(2n);
    const keys = await (await FolderRemoteStorage.open(remote)).list("");
    expect(keys.filter((k) => k.endsWith(".txnindex"))).toHaveLength(1);
    now += 5000;
    await mgr.runRemoteLogTasks(now);
    expect(log.localLogStartOffset).toBe(3n);
    // Offset 0 now lives only in the store; its abort is still reported.
    expect(await log.abortedTransactions(0n, 1n)).toEqual([{ producerId: 7, firstOffset: 0, lastOffset: 1, lastStableOffset: 2 }]);
    await log.appendTxnMarker({ producerId: 8, producerEpoch: 0, commit: true, coordinatorEpoch: 0 });
    await log.forceRoll();
    await mgr.runRemoteLogTasks(now);
    expect(log.highestTieredOffset).toBe(6n);
  });
});
