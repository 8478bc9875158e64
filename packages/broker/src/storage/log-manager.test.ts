import { appendFile, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LogManager } from "./log-manager.ts";
import { buildBatch, recordsOf, tempDir } from "./test-helpers.ts";
import { topicIdFromBytes, topicIdToBytes } from "./topic-id.ts";

let dir: { path: string; cleanup: () => Promise<void> };
let mgr: LogManager | null = null;

beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await mgr?.close();
  mgr = null;
  await dir.cleanup();
});

async function expectCode(p: Promise<unknown>, code: number, message?: RegExp): Promise<void> {
  await expect(p).rejects.toMatchObject({ name: "StorageError", code });
  if (message) await expect(p).rejects.toThrow(message);
}

describe("topics", () => {
  it("creates, lists, grows, reconfigures and deletes topics", async () => {
    mgr = await LogManager.open(dir.path);
    const t = await mgr.createTopic("orders", { partitions: 2, configs: { "retention.ms": "1000" } });
    expect(t.topicId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(topicIdFromBytes(topicIdToBytes(t.topicId))).toBe(t.topicId);
    await mgr.createTopic("audit.log_v1", { partitions: 1 });
    expect(mgr.listTopics().map((x) => [x.name, x.partitions])).toEqual([
      ["audit.log_v1", 1],
      ["orders", 2],
    ]);
    expect(mgr.getTopicById(t.topicId)?.name).toBe("orders");

    await expectCode(mgr.createTopic("orders", { partitions: 1 }), 36);
    await expectCode(mgr.createTopic("bad/name", { partitions: 1 }), 17);
    await expectCode(mgr.createTopic("..", { partitions: 1 }), 17);
    await expectCode(mgr.createTopic("x".repeat(250), { partitions: 1 }), 17);
    await expectCode(mgr.createTopic("zero", { partitions: 0 }), 37);
    await expectCode(mgr.createTopic("cfg", { partitions: 1, configs: { "retention.ms": "soon" } }), 40, /retention\.ms/);
    expect(mgr.getTopic("cfg")).toBeUndefined();

    await mgr.createPartitions("orders", 4);
    expect(mgr.getTopic("orders")?.partitions).toBe(4);
    expect((await mgr.getPartition("orders", 3).append(buildBatch({ records: [{ key: "k", value: "v" }] }))).baseOffset).toBe(0n);
    await expectCode(mgr.createPartitions("orders", 4), 37);
    await expectCode(mgr.createPartitions("nope", 4), 3);

    await mgr.incrementalAlterTopicConfigs("orders", [
      { name: "cleanup.policy", op: "APPEND", value: "compact" },
      { name: "retention.ms", op: "DELETE" },
      { name: "segment.bytes", op: "SET", value: "4096" },
    ]);
    expect(mgr.getTopic("orders")?.configs).toEqual({ "cleanup.policy": "delete,compact", "segment.bytes": "4096" });
    await expectCode(mgr.alterTopicConfigs("orders", { "segment.bytes": "1" }), 40);
    await mgr.alterTopicConfigs("orders", { "max.message.bytes": "2000" });
    expect(mgr.getTopic("orders")?.configs).toEqual({ "max.message.bytes": "2000" });

    const described = mgr.describeTopicConfigs("orders");
    expect(described.find((c) => c.name === "max.message.bytes")).toMatchObject({
      value: "2000",
      isDefault: false,
      source: 1,
      type: "INT",
    });
    expect(described.find((c) => c.name === "retention.ms")).toMatchObject({ value: "604800000", isDefault: true, source: 5 });
    expect(mgr.describeTopicConfigs("orders", ["cleanup.policy"]).map((c) => c.name)).toEqual(["cleanup.policy"]);

    await mgr.deleteTopic("orders");
    expect(mgr.getTopic("orders")).toBeUndefined();
    expect(mgr.partition("orders", 0)).toBeUndefined();
    expect(await readdir(join(dir.path, "logs"))).toEqual(["audit.log_v1-0"]);
    await expectCode(mgr.deleteTopic("orders"), 3);
    // Same name again: a fresh topic id and an empty log.
    const again = await mgr.createTopic("orders", { partitions: 1 });
    expect(again.topicId).not.toBe(t.topicId);
    expect(mgr.getPartition("orders", 0).logEndOffset).toBe(0n);
  });

  it("keeps topics, configs, log start offsets, data and group offsets across restarts, clean or not", async () => {
    mgr = await LogManager.open(dir.path);
    const t = await mgr.createTopic("events", { partitions: 2, configs: { "cleanup.policy": "compact,delete" } });
    const log = mgr.getPartition("events", 1);
    for (let i = 0; i < 5; i++) await log.append(buildBatch({ records: [{ key: `k${i}`, value: `v${i}` }] }), { requireDurable: true });
    await log.deleteRecordsBefore(2n);
    await mgr.groups.commit("g1", [
      { topic: "events", partition: 0, offset: 0n },
      { topic: "events", partition: 1, offset: 4n, metadata: "meta", leaderEpoch: 0, commitTimestamp: 1234n },
    ]);
    await mgr.groups.commit("g2", [{ topic: "events", partition: 1, offset: 1n }]);
    await mgr.groups.commit("g2", [{ topic: "events", partition: 1, offset: 3n }]);
    const pid = await mgr.nextProducerId();

    for (const crash of [false, true]) {
      await mgr.close();
      if (crash) await rm(join(dir.path, ".kappa_clean_shutdown"));
      mgr = await LogManager.open(dir.path);
      expect(mgr.recoveredFromCrash).toBe(crash);
      expect(mgr.getTopic("events")).toEqual({
        name: "events",
        topicId: t.topicId,
        partitions: 2,
        configs: { "cleanup.policy": "compact,delete" },
      });
      const l = mgr.getPartition("events", 1);
      expect(l.logStartOffset).toBe(2n);
      expect(l.logEndOffset).toBe(5n);
      expect(recordsOf((await l.read(2n, 1 << 20)).records).map((r) => r.value)).toContain("v2");
      expect(mgr.groups.listGroups()).toEqual(["g1", "g2"]);
      expect(mgr.groups.fetch("g1")).toEqual([
        { topic: "events", partition: 0, offset: 0n, leaderEpoch: -1, metadata: "", commitTimestamp: expect.any(BigInt) },
        { topic: "events", partition: 1, offset: 4n, leaderEpoch: 0, metadata: "meta", commitTimestamp: 1234n },
      ]);
      expect(mgr.groups.get("g2", "events", 1)?.offset).toBe(3n);
      expect(mgr.groups.get("g2", "events", 0)).toBeUndefined();
      // Producer ids are never reused, even after a crash.
      expect(await mgr.nextProducerId()).toBeGreaterThan(pid);
    }
  });

  it("survives a torn metadata journal and refuses a second opener", async () => {
    mgr = await LogManager.open(dir.path);
    await mgr.createTopic("a", { partitions: 1 });
    await expect(LogManager.open(dir.path)).rejects.toThrow(/already open/);
    await mgr.groups.commit("g", [{ topic: "a", partition: 0, offset: 9n }]);
    // Simulate a crash: journal left with the commits plus half an entry, no snapshot fold.
    await mgr.close();
    await rm(join(dir.path, ".kappa_clean_shutdown"));
    await appendFile(join(dir.path, "meta", "journal.log"), Buffer.from([0, 0, 0, 50, 1, 2, 3, 4, 123]));
    mgr = await LogManager.open(dir.path);
    expect(mgr.getTopic("a")).toBeDefined();
    expect(mgr.groups.get("g", "a", 0)?.offset).toBe(9n);
    expect((await stat(join(dir.path, "meta", "journal.log"))).size).toBe(0);
  });

  it("removes a deleted topic's leftover directory on open", async () => {
    mgr = await LogManager.open(dir.path);
    await mgr.createTopic("gone", { partitions: 1 });
    await mgr.createTopic("kept", { partitions: 1 });
    await mgr.close();
    // A directory that no topic owns (e.g. a crash in the middle of a delete).
    const { mkdir } = await import("node:fs/promises");
    await mkdir(join(dir.path, "logs", "stale-0"));
    mgr = await LogManager.open(dir.path);
    expect((await readdir(join(dir.path, "logs"))).sort()).toEqual(["gone-0", "kept-0"]);
  });
});

describe("file handles", () => {
  it("keeps at most fileHandleLimit idle segment files open while reading many segments", async () => {
    mgr = await LogManager.open(dir.path, { fileHandleLimit: 4 });
    await mgr.createTopic("many", { partitions: 1, configs: { "segment.bytes": "100" } });
    const log = mgr.getPartition("many", 0);
    for (let i = 0; i < 30; i++) await log.append(buildBatch({ records: [{ key: "k", value: `v${i}` }] }));
    expect(log.segmentCount).toBeGreaterThan(10);
    const seen: string[] = [];
    for (let o = 0n; o < 30n; o++) seen.push(...recordsOf((await log.read(o, 1)).records).map((r) => r.value!));
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => `v${i}`));
    expect(mgr.openFileCount).toBeLessThanOrEqual(4);
  });
});

describe("group offsets", () => {
  it("commits atomically per request, fetches by topic and partition, deletes groups and offsets", async () => {
    mgr = await LogManager.open(dir.path);
    const g = mgr.groups;
    await g.commit("grp", [
      { topic: "a", partition: 0, offset: 10n },
      { topic: "a", partition: 2, offset: 12n },
      { topic: "b", partition: 0, offset: 20n, metadata: null },
    ]);
    expect(g.fetch("grp", [{ topic: "a" }]).map((o) => [o.partition, o.offset])).toEqual([
      [0, 10n],
      [2, 12n],
    ]);
    expect(g.fetch("grp", [{ topic: "a", partitions: [1, 2] }]).map((o) => o.offset)).toEqual([12n]);
    expect(g.fetch("grp", [])).toEqual([]);
    expect(g.fetch("grp").length).toBe(3);
    expect(g.fetch("unknown")).toEqual([]);
    await g.deleteOffsets("grp", "a", [0]);
    expect(g.fetch("grp").map((o) => `${o.topic}-${o.partition}`)).toEqual(["a-2", "b-0"]);
    expect(await g.deleteGroup("grp")).toBe(true);
    expect(await g.deleteGroup("grp")).toBe(false);
    expect(g.listGroups()).toEqual([]);

    // Concurrent commits share journal fsyncs and all land.
    await Promise.all(Array.from({ length: 100 }, (_, i) => g.commit(`c${i % 10}`, [{ topic: "t", partition: i, offset: BigInt(i) }])));
    expect(g.listGroups()).toHaveLength(10);
    expect(g.fetch("c3").map((o) => o.partition)).toEqual([3, 13, 23, 33, 43, 53, 63, 73, 83, 93]);
  });

  it("drops a deleted topic's committed offsets", async () => {
    mgr = await LogManager.open(dir.path);
    await mgr.createTopic("t", { partitions: 1 });
    await mgr.groups.commit("g", [
      { topic: "t", partition: 0, offset: 1n },
      { topic: "other", partition: 0, offset: 2n },
    ]);
    await mgr.deleteTopic("t");
    expect(mgr.groups.fetch("g").map((o) => o.topic)).toEqual(["other"]);
  });
});

describe("maintenance across topics", () => {
  it("runRetention and runCompaction visit every partition", async () => {
    let now = 1_000_000;
    mgr = await LogManager.open(dir.path, { clock: () => now });
    await mgr.createTopic("del", { partitions: 2, configs: { "retention.ms": "100", "segment.bytes": "100" } });
    await mgr.createTopic("cmp", { partitions: 1, configs: { "cleanup.policy": "compact", "segment.bytes": "100" } });
    for (const p of [0, 1]) {
      for (let i = 0; i < 3; i++) await mgr.getPartition("del", p).append(buildBatch({ records: [{ key: "k", value: `${i}`, timestamp: now }] }));
    }
    for (let i = 0; i < 3; i++) await mgr.getPartition("cmp", 0).append(buildBatch({ records: [{ key: "k", value: `${i}`, timestamp: now }] }));
    await mgr.getPartition("cmp", 0).forceRoll();
    now += 1000;
    expect(await mgr.runRetention()).toBeGreaterThanOrEqual(6);
    expect(mgr.getPartition("del", 0).logStartOffset).toBe(3n);
    expect(mgr.getPartition("del", 1).logStartOffset).toBe(3n);
    expect(mgr.getPartition("cmp", 0).logStartOffset).toBe(0n);
    expect(await mgr.runCompaction()).toBe(2);
  });
});
