// Creation's durability model (partition-metadata.ts): no fsync per new
// partition, one of the logs directory per request, and the id made durable
// by the partition's first write. fsyncs are observed through the prototype
// of node's FileHandle (every `sync`/`datasync` of the storage goes through
// it), each named by the path its descriptor points at (/proc/self/fd).
import { readlinkSync } from "node:fs";
import { open, readFile, rm, stat, truncate, writeFile, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { unlockDataDir } from "./data-dir-lock.ts";
import { LogManager } from "./log-manager.ts";
import { PARTITION_METADATA, readPartitionMetadata } from "./partition-metadata.ts";
import { buildBatch, recordsOf, tempDir } from "./test-helpers.ts";

let dir: { path: string; cleanup: () => Promise<void> };
let mgr: LogManager | null = null;
/** Paths fsynced (sync or datasync), in order, relative to the data dir. */
let synced: string[] = [];

beforeEach(async () => {
  dir = await tempDir();
  const h = await open(dir.path, "r");
  const proto = Object.getPrototypeOf(h) as { sync: (this: FileHandle) => Promise<void>; datasync: (this: FileHandle) => Promise<void> };
  await h.close();
  for (const method of ["sync", "datasync"] as const) {
    const original = proto[method];
    vi.spyOn(proto, method).mockImplementation(function (this: FileHandle) {
      const path = readlinkSync(`/proc/self/fd/${this.fd}`);
      synced.push(path.startsWith(dir.path) ? path.slice(dir.path.length + 1) || "." : path);
      return original.call(this);
    });
  }
  synced = [];
});
afterEach(async () => {
  await mgr?.close();
  mgr = null;
  vi.restoreAllMocks();
  await dir.cleanup();
});

describe("creating topics", () => {
  it("fsyncs no file or directory of a new partition, and the logs directory once per request", async () => {
    mgr = await LogManager.open(dir.path);
    synced = [];
    const results = await mgr.createTopics(Array.from({ length: 20 }, (_, i) => ({ name: `t${i}`, partitions: 6 })));
    expect(results.every((r) => !(r instanceof Error))).toBe(true);
    expect(synced.filter((p) => p.startsWith("logs/"))).toEqual([]);
    expect(synced.filter((p) => p === "logs")).toHaveLength(1);
    // The journal: the first topic's entry is written alone, the other 19 queue behind it and share one fsync.
    expect(synced.filter((p) => p.startsWith("meta/")).length).toBeLessThanOrEqual(2);

    synced = [];
    await mgr.createPartitions("t0", 10);
    expect(synced.filter((p) => p.startsWith("logs/"))).toEqual([]);
    expect(synced.filter((p) => p === "logs")).toHaveLength(1);
    for (let p = 0; p < 10; p++) expect(await readPartitionMetadata(join(dir.path, "logs", `t0-${p}`), mgr.getTopic("t0")!.topicId)).toBe("match");
  });

  it("makes the topic id durable before the partition's first record bytes, once", async () => {
    mgr = await LogManager.open(dir.path);
    await mgr.createTopic("orders", { partitions: 2 });
    const log = mgr.getPartition("orders", 1);
    synced = [];
    await log.append(buildBatch({ records: [{ key: "k", value: "v1" }] }), { requireDurable: true });
    expect(synced).toEqual(["logs/orders-1/partition.metadata", "logs/orders-1", "logs/orders-1/00000000000000000000.log"]);
    synced = [];
    await log.append(buildBatch({ records: [{ key: "k", value: "v2" }] }), { requireDurable: true });
    expect(synced).toEqual(["logs/orders-1/00000000000000000000.log"]);
    // The other partition is untouched until its own first write.
    expect(synced.some((p) => p.startsWith("logs/orders-0"))).toBe(false);
  });

  it("arms the guard again after a restart for a partition still without records, and not for one with records", async () => {
    mgr = await LogManager.open(dir.path);
    await mgr.createTopic("t", { partitions: 2 });
    await mgr.getPartition("t", 0).append(buildBatch({ records: [{ key: null, value: "a" }] }), { requireDurable: true });
    await mgr.close();
    // A clean close does not fsync the id of a partition never written to: the next run must.
    mgr = await LogManager.open(dir.path);
    synced = [];
    await mgr.getPartition("t", 0).append(buildBatch({ records: [{ key: null, value: "b" }] }), { requireDurable: true });
    await mgr.getPartition("t", 1).append(buildBatch({ records: [{ key: null, value: "c" }] }), { requireDurable: true });
    expect(synced.filter((p) => p.endsWith(PARTITION_METADATA))).toEqual(["logs/t-1/partition.metadata"]);
  });
});

describe("opening after a crash between creation and first write", () => {
  /** Creates topic `t` (3 partitions) with one record in partition 0, then leaves the data dir as a kill -9 would (no clean close). */
  async function crashAfterCreate(): Promise<{ topicId: string; logs: string }> {
    const m = await LogManager.open(dir.path);
    const { topicId } = await m.createTopic("t", { partitions: 3 });
    await m.getPartition("t", 0).append(buildBatch({ records: [{ key: null, value: "kept" }] }), { requireDurable: true });
    // Leave without close(), as a dead process does (its lock then counts as stale).
    await unlockDataDir(dir.path);
    return { topicId, logs: join(dir.path, "logs") };
  }

  it("adopts partitions without records whose id file is missing, empty or torn, and they are usable", async () => {
    const { topicId, logs } = await crashAfterCreate();
    await rm(join(logs, "t-1", PARTITION_METADATA));
    await writeFile(join(logs, "t-2", PARTITION_METADATA), `topic_id: ${topicId.slice(0, 10)}`);
    const inodes = [(await stat(join(logs, "t-1"))).ino, (await stat(join(logs, "t-2"))).ino];

    mgr = await LogManager.open(dir.path);
    expect(mgr.recoveredFromCrash).toBe(true);
    // Adopted, not removed and re-created.
    expect([(await stat(join(logs, "t-1"))).ino, (await stat(join(logs, "t-2"))).ino]).toEqual(inodes);
    for (const p of [1, 2]) {
      expect(await readFile(join(logs, `t-${p}`, PARTITION_METADATA), "utf8")).toBe(`topic_id: ${topicId}\n`);
      const log = mgr.getPartition("t", p);
      const r = await log.append(buildBatch({ records: [{ key: null, value: `p${p}` }] }), { requireDurable: true });
      expect(r.baseOffset).toBe(0n);
      expect(recordsOf((await log.read(0n, 1 << 20)).records).map((x) => x.value)).toEqual([`p${p}`]);
    }
    expect(recordsOf((await mgr.getPartition("t", 0).read(0n, 1 << 20)).records).map((x) => x.value)).toEqual(["kept"]);
  });

  it("adopts an empty or NUL-filled id file (a write that never reached the disk)", async () => {
    const { topicId, logs } = await crashAfterCreate();
    await truncate(join(logs, "t-1", PARTITION_METADATA), 0);
    await writeFile(join(logs, "t-2", PARTITION_METADATA), Buffer.alloc(48));
    const inodes = [(await stat(join(logs, "t-1"))).ino, (await stat(join(logs, "t-2"))).ino];
    mgr = await LogManager.open(dir.path);
    expect([(await stat(join(logs, "t-1"))).ino, (await stat(join(logs, "t-2"))).ino]).toEqual(inodes);
    for (const p of [1, 2]) expect(await readPartitionMetadata(join(logs, `t-${p}`), topicId)).toBe("match");
  });

  it("still removes a directory whose id is missing when it holds records, and one with another topic's id", async () => {
    const { logs } = await crashAfterCreate();
    await rm(join(logs, "t-0", PARTITION_METADATA));
    await writeFile(join(logs, "t-1", PARTITION_METADATA), "topic_id: 00000000-0000-0000-0000-000000000001\n");
    const inode = (await stat(join(logs, "t-1"))).ino;
    mgr = await LogManager.open(dir.path);
    // Re-created empty, with the right id.
    expect(mgr.getPartition("t", 0).logEndOffset).toBe(0n);
    expect(await readPartitionMetadata(join(logs, "t-0"), mgr.getTopic("t")!.topicId)).toBe("match");
    expect((await stat(join(logs, "t-1"))).ino).not.toBe(inode);
    expect(await readPartitionMetadata(join(logs, "t-1"), mgr.getTopic("t")!.topicId)).toBe("match");
  });
});

describe("closing", () => {
  it("writes no index or producer snapshot for a partition that never held a record, and both for one that did", async () => {
    mgr = await LogManager.open(dir.path);
    await mgr.createTopic("t", { partitions: 3 });
    await mgr.getPartition("t", 2).append(buildBatch({ producerId: 7, producerEpoch: 0, baseSequence: 0, records: [{ key: null, value: "a" }] }), { requireDurable: true });
    synced = [];
    await mgr.close();
    expect(synced.filter((p) => p.startsWith("logs/t-0") || p.startsWith("logs/t-1"))).toEqual([]);
    expect(synced).toEqual(expect.arrayContaining(["logs/t-2/00000000000000000000.index.tmp", "logs/t-2/producer-state.json.tmp"]));
    // The next open finds the same state: empty partitions usable, the producer's sequence kept.
    mgr = await LogManager.open(dir.path);
    expect(mgr.recoveredFromCrash).toBe(false);
    for (const p of [0, 1]) expect((await mgr.getPartition("t", p).append(buildBatch({ records: [{ key: null, value: "b" }] }))).baseOffset).toBe(0n);
    const retry = await mgr.getPartition("t", 2).append(buildBatch({ producerId: 7, producerEpoch: 0, baseSequence: 0, records: [{ key: null, value: "a" }] }));
    expect(retry.duplicate).toBe(true);
  });
});
