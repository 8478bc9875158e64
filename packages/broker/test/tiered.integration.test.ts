// Tiered storage end to end over TCP (kafkajs and raw protocol requests): closed
// segments move to the folder object store and leave local disk, a consumer from
// offset 0 still gets every record intact, ListOffsets -2/-4/-5 and DescribeLogDirs
// agree with what is on disk, everything holds across a restart and across
// SIGKILLs of a child-process broker in the middle of copying, Kafka's config
// validation refuses what it should, and total retention deletes remote segments.
import type { ChildProcess } from "node:child_process";
import { createHash, randomBytes, randomInt } from "node:crypto";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigResourceTypes, type Kafka } from "kafkajs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ApiKey, ErrorCode, decodeRecordBatch, iterateBatches } from "@kappa/kafka-protocol";
import { embeddedOnly, kafkaClient, killHard, newDataDir, RawClient, sleep, startChildBroker, startTestBroker, uniqueName, waitFor, type ChildBroker, type TestBroker } from "./helpers.ts";

const SEGMENT_BYTES = 16 * 1024;
const TIERED_CONFIGS = {
  "remote.storage.enable": "true",
  "segment.bytes": String(SEGMENT_BYTES),
  "local.retention.ms": "300",
};
const cleanups: Array<() => Promise<void>> = [];
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const f of cleanups.reverse()) await f();
});

async function tempDir(prefix: string): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(() => rm(d, { recursive: true, force: true }));
  return d;
}

function tieredOptions(remoteDir: string) {
  return {
    "remote.log.storage.system.enable": true,
    "remote.log.storage.dir": remoteDir,
    "remote.log.manager.task.interval.ms": 50,
    "log.retention.check.interval.ms": 100,
  };
}

/** Base offsets of the local `.log` files of a partition. */
async function localSegments(dataDir: string, topic: string, partition = 0): Promise<number[]> {
  const names = await readdir(join(dataDir, "logs", `${topic}-${partition}`));
  return names.filter((n) => /^\d{20}\.log$/.test(n)).map((n) => Number(n.slice(0, 20))).sort((a, b) => a - b);
}

async function localBytes(dataDir: string, topic: string, partition = 0): Promise<number> {
  let n = 0;
  for (const base of await localSegments(dataDir, topic, partition)) {
    n += (await stat(join(dataDir, "logs", `${topic}-${partition}`, `${String(base).padStart(20, "0")}.log`))).size;
  }
  return n;
}

/** Remote objects of a partition, by extension: base offsets of the `.log` objects and the other files. */
async function remoteObjects(remoteDir: string, topic: string, partition = 0): Promise<{ logBases: number[]; files: string[] }> {
  const dirs = (await readdir(remoteDir)).filter((d) => d.startsWith(`${topic}-${partition}-`));
  const files: string[] = [];
  for (const d of dirs) for (const f of await readdir(join(remoteDir, d))) files.push(f);
  const logBases = files.filter((f) => f.endsWith(".log")).map((f) => Number(f.slice(0, 20))).sort((a, b) => a - b);
  return { logBases, files };
}

async function listOffset(port: number, topic: string, timestamp: bigint, version = 9) {
  const c = await RawClient.connect(port);
  try {
    const r = await c.request(ApiKey.ListOffsets, version, { replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp }] }] });
    return r.body.topics[0]!.partitions[0]!;
  } finally {
    c.close();
  }
}

/** The read-only tiered-usage rows of DescribeConfigs, as the worker reads them (kafkajs admin). */
async function remoteUsage(kafka: Kafka, topic: string): Promise<{ bytes: number[]; segments: number[] }> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const res = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }], includeSynonyms: false });
    const entries = res.resources[0]!.configEntries;
    const get = (n: string): number[] => {
      const e = entries.find((x) => x.configName === n);
      if (!e) throw new Error(`${n} missing from DescribeConfigs`);
      expect(e.readOnly).toBe(true);
      return e.configValue.split(",").map(Number);
    };
    return { bytes: get("kappa.remote.log.size.bytes"), segments: get("kappa.remote.log.segment.count") };
  } finally {
    await admin.disconnect();
  }
}

function makeValues(n: number, tag: string): string[] {
  return Array.from({ length: n }, (_, i) => `${tag}-${i}-${randomBytes(60).toString("hex")}`);
}

function digest(values: readonly string[]): string {
  const h = createHash("sha256");
  for (const v of values) h.update(v).update("\n");
  return h.digest("hex");
}

async function produceAll(kafka: Kafka, topic: string, values: readonly string[], perBatch = 40): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  try {
    for (let i = 0; i < values.length; i += perBatch) {
      await producer.send({ topic, acks: -1, messages: values.slice(i, i + perBatch).map((v) => ({ value: v })) });
    }
  } finally {
    await producer.disconnect();
  }
}

/** Consumes the partition from the beginning with a kafkajs group consumer until `count` records arrived. */
async function consumeFromStart(kafka: Kafka, topic: string, count: number): Promise<{ values: string[]; firstOffset: bigint }> {
  const consumer = kafka.consumer({ groupId: uniqueName("tiered-g"), maxWaitTimeInMs: 200 });
  const values: string[] = [];
  let firstOffset = -1n;
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        if (firstOffset < 0n) firstOffset = BigInt(message.offset);
        values.push(message.value?.toString() ?? "");
      },
    });
    await waitFor(() => values.length >= count, 45_000, `${count} records (got ${values.length})`);
  } finally {
    await consumer.disconnect();
  }
  return { values, firstOffset };
}

/** Reads the whole partition from `from` with raw fetches (CRC-checking every batch). */
async function readAllRaw(port: number, topic: string, from = 0n): Promise<{ values: string[]; errorAt: number | null }> {
  const c = await RawClient.connect(port);
  const values: string[] = [];
  let offset = from;
  try {
    for (;;) {
      const r = await c.request(ApiKey.Fetch, 11, {
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 4 * 1024 * 1024,
        isolationLevel: 0,
        topics: [{ topic, partitions: [{ partition: 0, fetchOffset: offset, partitionMaxBytes: 1024 * 1024 }] }],
      });
      const p = r.body.responses[0]!.partitions[0]!;
      if (p.errorCode !== ErrorCode.NONE) return { values, errorAt: p.errorCode };
      if (offset >= p.highWatermark) break;
      let progressed = false;
      for (const { bytes } of iterateBatches(p.records ?? Buffer.alloc(0))) {
        const b = decodeRecordBatch(bytes, { verifyCrc: true });
        for (const rec of b.records) {
          const o = b.header.baseOffset + BigInt(rec.offsetDelta);
          if (o < offset) continue;
          expect(o).toBe(offset);
          values.push(rec.value?.toString() ?? "");
          offset = o + 1n;
          progressed = true;
        }
      }
      if (!progressed) throw new Error(`no progress at offset ${offset}`);
    }
  } finally {
    c.close();
  }
  return { values, errorAt: null };
}

async function describeLogDirSize(port: number, topic: string): Promise<bigint | undefined> {
  const c = await RawClient.connect(port);
  try {
    const r = await c.request(ApiKey.DescribeLogDirs, 4, { topics: [{ topic, partitions: [0] }] });
    expect(r.body.errorCode).toBe(ErrorCode.NONE);
    return r.body.results[0]?.topics.find((t) => t.name === topic)?.partitions[0]?.partitionSize;
  } finally {
    c.close();
  }
}

embeddedOnly("its remote storage folder and settings").describe("tiered storage (in-process broker)", () => {
  let broker: TestBroker;
  let remoteDir: string;
  let kafka: Kafka;
  const topic = uniqueName("tiered");
  const values = makeValues(3000, "v");

  beforeAll(async () => {
    remoteDir = await tempDir("kappa-remote-");
    broker = await startTestBroker(tieredOptions(remoteDir));
    cleanups.push(() => broker.cleanup());
    kafka = kafkaClient(broker.bootstrap);
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries: Object.entries(TIERED_CONFIGS).map(([name, value]) => ({ name, value })) }] });
    await admin.disconnect();
  });

  it("moves closed segments to the object store and serves every record from offset 0", async () => {
    await produceAll(kafka, topic, values);
    // Wait until copying and local retention have caught up with everything closed: only the
    // active segment is left locally, so no copy can be under way while the store is listed
    // (with a closed segment still local, its copy may have written its .log and not yet its
    // indexes) and nothing moves before the restart test.
    await waitFor(
      async () => {
        const local = await localSegments(broker.dataDir, topic);
        const tiered = await listOffset(broker.port, topic, -5n);
        return local.length === 1 && tiered.offset >= BigInt(local[0]! - 1) && local[0]! > 0;
      },
      30_000,
      "local segments to be copied and deleted",
    );
    const local = await localSegments(broker.dataDir, topic);
    const { logBases, files } = await remoteObjects(remoteDir, topic);
    expect(logBases.length).toBeGreaterThan(20);
    expect(logBases[0]).toBe(0);
    // Each remote segment has its three objects.
    expect(files.filter((f) => f.endsWith(".index")).length).toBe(logBases.length);
    expect(files.filter((f) => f.endsWith(".timeindex")).length).toBe(logBases.length);

    const earliest = await listOffset(broker.port, topic, -2n);
    const earliestLocal = await listOffset(broker.port, topic, -4n);
    const latestTiered = await listOffset(broker.port, topic, -5n);
    const latest = await listOffset(broker.port, topic, -1n);
    expect(earliest.offset).toBe(0n);
    expect(latest.offset).toBe(3000n);
    // -4 is the first local segment; everything below it is in the store, and -5 is the last copied offset.
    expect(earliestLocal.offset).toBe(BigInt(local[0]!));
    expect(latestTiered.offset).toBeGreaterThanOrEqual(earliestLocal.offset - 1n);
    expect(latestTiered.offset).toBeLessThan(latest.offset);
    expect(latestTiered.offset + 1n).toBeLessThanOrEqual(BigInt(local[local.length - 1]!));
    expect(logBases[logBases.length - 1]!).toBeLessThanOrEqual(Number(latestTiered.offset));

    const usage = await remoteUsage(kafka, topic);
    expect(usage.segments).toEqual([logBases.length]);
    expect(usage.bytes[0]).toBeGreaterThan(0);
    expect(await describeLogDirSize(broker.port, topic)).toBe(BigInt(await localBytes(broker.dataDir, topic)));

    const consumed = await consumeFromStart(kafka, topic, values.length);
    expect(consumed.firstOffset).toBe(0n);
    expect(consumed.values.length).toBe(values.length);
    expect(digest(consumed.values)).toBe(digest(values));
  });

  it("answers timestamp lookups that land in remote segments", async () => {
    // Timestamp 0 is before every record: the answer is offset 0, which only the store holds.
    const r = await listOffset(broker.port, topic, 0n);
    expect(r.errorCode).toBe(ErrorCode.NONE);
    expect(r.offset).toBe(0n);
  });

  it("keeps everything across a restart", async () => {
    const before = { e: await listOffset(broker.port, topic, -4n), t: await listOffset(broker.port, topic, -5n) };
    await broker.stop();
    broker = await startTestBroker(tieredOptions(remoteDir), broker.dataDir);
    cleanups.push(() => broker.cleanup());
    kafka = kafkaClient(broker.bootstrap);
    expect((await listOffset(broker.port, topic, -2n)).offset).toBe(0n);
    expect((await listOffset(broker.port, topic, -4n)).offset).toBe(before.e.offset);
    expect((await listOffset(broker.port, topic, -5n)).offset).toBe(before.t.offset);
    const raw = await readAllRaw(broker.port, topic);
    expect(raw.errorAt).toBeNull();
    expect(digest(raw.values)).toBe(digest(values));
    const consumed = await consumeFromStart(kafka, topic, values.length);
    expect(digest(consumed.values)).toBe(digest(values));
  });

  it("refuses what Kafka refuses with INVALID_CONFIG and a message", async () => {
    const c = await RawClient.connect(broker.port);
    const create = async (configs: Record<string, string>) => {
      const r = await c.request(ApiKey.CreateTopics, 4, {
        topics: [{ name: uniqueName("bad"), numPartitions: 1, replicationFactor: 1, configs: Object.entries(configs).map(([name, value]) => ({ name, value })) }],
        timeoutMs: 5000,
      });
      return r.body.topics[0]!;
    };
    try {
      const compacted = await create({ "remote.storage.enable": "true", "cleanup.policy": "compact" });
      expect(compacted.errorCode).toBe(ErrorCode.INVALID_CONFIG);
      expect(compacted.errorMessage).toMatch(/unsupported for the compacted topics/);
      const tooLong = await create({ "remote.storage.enable": "true", "retention.ms": "1000", "local.retention.ms": "2000" });
      expect(tooLong.errorCode).toBe(ErrorCode.INVALID_CONFIG);
      expect(tooLong.errorMessage).toMatch(/must not be more than retention.ms/);
      const tooBig = await create({ "remote.storage.enable": "true", "retention.bytes": "1000", "local.retention.bytes": "-1" });
      expect(tooBig.errorCode).toBe(ErrorCode.INVALID_CONFIG);
      // Turning remote storage off on a tiered topic is refused (both alter APIs).
      const off = await c.request(ApiKey.IncrementalAlterConfigs, 1, {
        resources: [{ resourceType: 2, resourceName: topic, configs: [{ name: "remote.storage.enable", configOperation: 0, value: "false" }] }],
        validateOnly: false,
      });
      expect(off.body.responses[0]!.errorCode).toBe(ErrorCode.INVALID_CONFIG);
      expect(off.body.responses[0]!.errorMessage).toMatch(/Disabling remote storage/);
      const legacy = await c.request(ApiKey.AlterConfigs, 1, {
        resources: [{ resourceType: 2, resourceName: topic, configs: [{ name: "segment.bytes", value: String(SEGMENT_BYTES) }] }],
        validateOnly: false,
      });
      expect(legacy.body.responses[0]!.errorCode).toBe(ErrorCode.INVALID_CONFIG);
      // The usage rows cannot be set.
      const ro = await c.request(ApiKey.IncrementalAlterConfigs, 1, {
        resources: [{ resourceType: 2, resourceName: topic, configs: [{ name: "kappa.remote.log.size.bytes", configOperation: 0, value: "0" }] }],
        validateOnly: false,
      });
      expect(ro.body.responses[0]!.errorCode).toBe(ErrorCode.INVALID_CONFIG);
    } finally {
      c.close();
    }
    // A broker without remote storage refuses remote.storage.enable=true.
    const plain = await startTestBroker();
    cleanups.push(() => plain.cleanup());
    const c2 = await RawClient.connect(plain.port);
    try {
      const r = await c2.request(ApiKey.CreateTopics, 4, {
        topics: [{ name: uniqueName("plain"), numPartitions: 1, replicationFactor: 1, configs: [{ name: "remote.storage.enable", value: "true" }] }],
        timeoutMs: 5000,
      });
      expect(r.body.topics[0]!.errorCode).toBe(ErrorCode.INVALID_CONFIG);
      expect(r.body.topics[0]!.errorMessage).toMatch(/Tiered Storage functionality is disabled in the broker/);
      expect((await listOffset(plain.port, topic, -5n)).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    } finally {
      c2.close();
    }
  });

  it("total retention deletes remote segments and advances the earliest offset (-2)", async () => {
    const usageBefore = await remoteUsage(kafka, topic);
    const admin = kafka.admin();
    await admin.connect();
    // Keep roughly the newest 10 segments' worth of bytes.
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [...Object.entries(TIERED_CONFIGS), ["retention.bytes", String(10 * SEGMENT_BYTES)]].map(([name, value]) => ({ name: name!, value: value! })) }],
    });
    await admin.disconnect();
    // A retention pass moves the log start offset first, then deletes the segments below it one by one:
    // wait until a pass has finished (the oldest remote object starts at the earliest offset), not a fixed time.
    await waitFor(
      async () => {
        const e = (await listOffset(broker.port, topic, -2n)).offset;
        const { logBases } = await remoteObjects(remoteDir, topic);
        return e > 0n && logBases.length > 0 && BigInt(logBases[0]!) === e;
      },
      20_000,
      "remote retention to delete the segments below the new earliest offset",
    );
    const earliest = (await listOffset(broker.port, topic, -2n)).offset;
    const usage = await remoteUsage(kafka, topic);
    expect(usage.segments[0]).toBeLessThan(usageBefore.segments[0]!);
    const { logBases } = await remoteObjects(remoteDir, topic);
    expect(logBases.length).toBe(usage.segments[0]);
    expect(BigInt(logBases[0]!)).toBe(earliest);
    // Below the earliest offset: OFFSET_OUT_OF_RANGE; from it on, everything that is left.
    expect((await readAllRaw(broker.port, topic, 0n)).errorAt).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    const rest = await readAllRaw(broker.port, topic, earliest);
    expect(rest.errorAt).toBeNull();
    expect(digest(rest.values)).toBe(digest(values.slice(Number(earliest))));
  });
});

// ---------------------------------------------------------------- SIGKILL

type Child = ChildBroker;

function startChild(dataDir: string, remoteDir: string): Promise<Child> {
  return startChildBroker(
    [
      "--port",
      "0",
      "--data-dir",
      dataDir,
      "--remote-dir",
      remoteDir,
      "--override",
      "group.initial.rebalance.delay.ms=0",
      "--override",
      "remote.log.manager.task.interval.ms=20",
      "--override",
      "log.retention.check.interval.ms=50",
    ],
    children,
  );
}

embeddedOnly("its crash recovery").describe("tiered storage under SIGKILL", () => {
  it("loses no acknowledged record and exposes no orphan after kills during copying", async () => {
    const dataDir = await newDataDir();
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const remoteDir = await tempDir("kappa-remote-kill-");
    const topic = uniqueName("tiered-kill");
    let child = await startChild(dataDir, remoteDir);
    {
      const admin = kafkaClient(`127.0.0.1:${child.port}`).admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries: Object.entries({ ...TIERED_CONFIGS, "local.retention.ms": "0" }).map(([name, value]) => ({ name, value })) }] });
      await admin.disconnect();
    }
    const acked: string[] = [];
    let recoveryLog = "";
    let round = 0;
    const rounds = 5;
    for (; round < rounds; round++) {
      const kafka = kafkaClient(`127.0.0.1:${child.port}`, { retry: { retries: 0 } });
      const producer = kafka.producer({ retry: { retries: 0 } });
      await producer.connect();
      const killAt = Date.now() + 300 + randomInt(700);
      let i = 0;
      try {
        while (Date.now() < killAt) {
          const batch = makeValues(40, `r${round}-${i++}`);
          await producer.send({ topic, acks: -1, messages: batch.map((v) => ({ value: v })) });
          acked.push(...batch);
        }
        // Kill while the copier is busy with what was just rolled.
        await killHard(child);
        recoveryLog += child.stderr();
      } finally {
        await producer.disconnect().catch(() => undefined);
      }
      child = await startChild(dataDir, remoteDir);
      const raw = await readAllRaw(child.port, topic);
      expect(raw.errorAt).toBeNull();
      expect(raw.values.length).toBe(acked.length);
      expect(digest(raw.values)).toBe(digest(acked));
    }
    // After the last restart: let the copier settle (only the active segment left locally, so no
    // copy is under way), then every object belongs to a readable segment.
    const kafka = kafkaClient(`127.0.0.1:${child.port}`);
    await waitFor(
      async () => {
        const local = await localSegments(dataDir, topic);
        const t = await listOffset(child.port, topic, -5n);
        return local.length === 1 && t.offset >= BigInt(local[0]! - 1);
      },
      20_000,
      "copier to settle",
    );
    await sleep(100);
    const usage = await remoteUsage(kafka, topic);
    const { logBases, files } = await remoteObjects(remoteDir, topic);
    expect(usage.segments[0]).toBe(logBases.length);
    expect(files.length).toBe(3 * logBases.length);
    expect(new Set(logBases).size).toBe(logBases.length);
    expect(logBases[0]).toBe(0);
    const consumed = await consumeFromStart(kafka, topic, acked.length);
    expect(digest(consumed.values)).toBe(digest(acked));
    await killHard(child);
    recoveryLog += child.stderr();
    const interrupted = recoveryLog.match(/removing interrupted copy/g)?.length ?? 0;
    const orphans = recoveryLog.match(/no finished segment record refers to it/g)?.length ?? 0;
    console.log(`tiered kill test: ${acked.length} acked records over ${rounds} SIGKILLs; ${usage.segments[0]} remote segments; interrupted copies cleaned on restart: ${interrupted}; orphan objects deleted: ${orphans}`);
  }, 120_000);
});
