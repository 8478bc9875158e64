/**
 * The storage engine's entry point: opens a data directory, owns the
 * metadata store and one PartitionLog per topic-partition, and implements
 * the topic admin operations (committed group offsets: group-offset-store.ts;
 * the directory lock: data-dir-lock.ts).
 *
 * Layout of the data directory:
 *   .lock                        pid of the process that has it open
 *   .kappa_clean_shutdown        present only between a clean close and the next open
 *   meta/journal.log, meta/snapshot.json    see metadata.ts
 *   logs/<topic>-<partition>/    segments (see segment.ts), partition.metadata
 *                                (the topic id) and producer-state.json
 */
import { randomUUID } from "node:crypto";
import { constants, mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  ConfigTypeCode,
  REMOTE_LOG_SEGMENT_COUNT_CONFIG,
  REMOTE_LOG_SIZE_CONFIG,
  describeTopicConfigs,
  effectiveLogConfig,
  topicConfigDefault,
  validateTopicConfigs,
  type DescribedConfig,
} from "./configs.ts";
import { lockDataDir, unlockDataDir } from "./data-dir-lock.ts";
import { probeDirectIo, StagingPool, TailCache, type DirectIo } from "./direct-io.ts";
import { StorageError } from "./errors.ts";
import { FileHandleCache, fsyncDir } from "./files.ts";
import { FsyncSlots } from "./fsync-slots.ts";
import { GroupOffsetStore } from "./group-offset-store.ts";
import { LatencyHistogram } from "./latency-histogram.ts";
import { SerialQueue } from "./locks.ts";
import { MetadataStore, type TopicRecord } from "./metadata.ts";
import { PartitionLog } from "./partition-log.ts";
import { PARTITION_METADATA, holdsNoRecords, readPartitionMetadata, writePartitionMetadata } from "./partition-metadata.ts";
import { RemoteLogManager, type RemoteLogManagerOptions } from "./tiered/remote-log-manager.ts";

const CLEAN_SHUTDOWN = ".kappa_clean_shutdown";
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;
const PRODUCER_ID_BLOCK = 1000n;
/** Partitions closed side by side on shutdown. */
const CLOSE_CONCURRENCY = 32;

export interface TopicInfo {
  name: string;
  /** Topic id as a UUID string (8-4-4-4-12 hex). */
  topicId: string;
  partitions: number;
  /** Config overrides only (Kafka string map). */
  configs: Record<string, string>;
}

export interface LogManagerOptions {
  /** Maximum cached open segment files (default 512). */
  fileHandleLimit?: number;
  /** Clock used for LogAppendTime, segment.ms and retention (tests inject one). */
  clock?: () => number;
  /**
   * Tiered storage (broker setting remote.log.storage.system.enable): the
   * object store and copier settings. Absent = remote storage off, and topics
   * with remote.storage.enable=true are refused.
   */
  remote?: RemoteLogManagerOptions;
  /** Bound on one produced batch's decompressed records (broker setting message.decompressed.max.bytes). */
  maxDecompressedBytes?: number;
  /** Synced bytes of each active segment left in the page cache (broker setting log.page.cache.window.bytes; −1, the default, keeps all). */
  pageCacheWindowBytes?: number;
  /**
   * Appends bypass the page cache where the data dir's filesystem allows it
   * (broker setting log.direct.io; direct-io.ts). Off by default here; the
   * broker turns it on unless configured otherwise.
   */
  directIo?: boolean;
}

export interface CreateTopicOptions {
  partitions: number;
  configs?: Record<string, string>;
  /** Validate only (CreateTopics validate_only). */
  validateOnly?: boolean;
}

export type AlterConfigOp =
  | { name: string; op: "SET"; value: string }
  | { name: string; op: "DELETE" }
  | { name: string; op: "APPEND" | "SUBTRACT"; value: string };

export class LogManager {
  readonly groups: GroupOffsetStore;
  /** True when the previous run did not close cleanly (recovery ran). */
  readonly recoveredFromCrash: boolean;
  private readonly logs = new Map<string, PartitionLog[]>();
  private readonly admin = new SerialQueue();
  private readonly idAllocator = new SerialQueue();
  private nextPid = 0n;
  private closed = false;
  /** Duration of every fsync of a partition's active segment (Kafka's LogFlushStats LogFlushRateAndTimeMs). */
  readonly flushTimes = new LatencyHistogram();
  /** The partitions' fsyncs, a few at a time (fsync-slots.ts; partition-log.ts `fsyncQueue`). */
  private readonly fsyncQueue = new FsyncSlots();
  /**
   * Existing topics whose names hold '.' or '_', by their name with '.' made '_'
   * (Kafka's topicsWithCollisionChars); built on first use, dropped whenever a
   * topic is created or deleted.
   */
  private collisionIndex: Map<string, string[]> | null = null;

  /** Whether appends bypass the page cache (log.direct.io on and the filesystem allows it). */
  get directIoActive(): boolean {
    return this.directIo !== null;
  }

  private constructor(
    readonly dataDir: string,
    private readonly meta: MetadataStore,
    private readonly files: FileHandleCache,
    private readonly clock: () => number,
    recovered: boolean,
    /** Tiered storage, when the broker has it on. */
    readonly remote: RemoteLogManager | null,
    private readonly maxDecompressedBytes: number | undefined,
    private readonly pageCacheWindowBytes: number | undefined,
    /** Set when appends bypass the page cache (direct-io.ts). */
    private readonly directIo: DirectIo | null,
  ) {
    this.groups = new GroupOffsetStore(meta);
    this.recoveredFromCrash = recovered;
    this.nextPid = BigInt(meta.state.producerIdBlockEnd);
  }

  static async open(dataDir: string, opts: LogManagerOptions = {}): Promise<LogManager> {
    await mkdir(join(dataDir, "logs"), { recursive: true });
    await lockDataDir(dataDir);
    try {
      const cleanMarker = join(dataDir, CLEAN_SHUTDOWN);
      const clean = await stat(cleanMarker).then(
        () => true,
        (err: NodeJS.ErrnoException) => {
          if (err.code === "ENOENT") return false;
          throw err;
        },
      );
      // From here on the data is "in use": a crash before the next clean close must recover.
      await rm(cleanMarker, { force: true });
      await fsyncDir(dataDir);
      const meta = await MetadataStore.open(join(dataDir, "meta"));
      const tiered = Object.values(meta.state.topics).filter((t) => (t.configs["remote.storage.enable"] ?? "").trim().toLowerCase() === "true");
      if (!opts.remote && tiered.length > 0) {
        await meta.close();
        // Kafka refuses the same way (LogConfig.validateRemoteStorageOnlyIfSystemEnabled on startup).
        throw new Error(
          `You have to delete all topics with the property remote.storage.enable=true before disabling tiered storage cluster-wide (${tiered.map((t) => t.name).join(", ")}); start the broker with remote storage on (--remote-dir)`,
        );
      }
      const clock = opts.clock ?? Date.now;
      let remote: RemoteLogManager | null = null;
      try {
        if (opts.remote) {
          const ids = new Set(Object.values(meta.state.topics).map((t) => t.topicId));
          remote = await RemoteLogManager.open(join(dataDir, "meta"), ids, opts.remote, clock);
        }
        const files = new FileHandleCache(opts.fileHandleLimit ?? 512);
        const directIo: DirectIo | null =
          opts.directIo && (await probeDirectIo(dataDir))
            ? { files: new FileHandleCache(opts.fileHandleLimit ?? 512, constants.O_WRONLY | constants.O_DIRECT), staging: new StagingPool(), tails: new TailCache() }
            : null;
        const mgr = new LogManager(dataDir, meta, files, clock, !clean, remote, opts.maxDecompressedBytes, opts.pageCacheWindowBytes, directIo);
        await mgr.openAllLogs(!clean);
        remote?.start(
          () => mgr.partitionsWithTopicIds(),
          () => new Set(Object.values(meta.state.topics).map((t) => t.topicId)),
        );
        return mgr;
      } catch (err) {
        await remote?.close();
        await meta.close();
        throw err;
      }
    } catch (err) {
      await unlockDataDir(dataDir);
      throw err;
    }
  }

  private partitionDir(topic: string, partition: number): string {
    return join(this.dataDir, "logs", `${topic}-${partition}`);
  }

  private async openAllLogs(recover: boolean): Promise<void> {
    const expected = new Map<string, { topic: TopicRecord; partition: number }>();
    for (const t of Object.values(this.meta.state.topics)) {
      for (let p = 0; p < t.partitions; p++) expected.set(`${t.name}-${p}`, { topic: t, partition: p });
    }
    // Directories of deleted topics (crash mid-delete) or of an older topic with the same name
    // are removed. One of this topic whose id never reached the disk (a crash after creation,
    // before the first write made it durable: partition-metadata.ts) holds no records and is
    // adopted: its id is rewritten from the journal, which was durable before the directory existed.
    for (const d of await readdir(join(this.dataDir, "logs"))) {
      const e = expected.get(d);
      const dir = join(this.dataDir, "logs", d);
      const id = e ? await readPartitionMetadata(dir, e.topic.topicId) : "other";
      if (id === "unwritten" && (await holdsNoRecords(dir))) await writePartitionMetadata(dir, e!.topic.topicId);
      else if (id !== "match") await rm(dir, { recursive: true, force: true });
    }
    for (const t of Object.values(this.meta.state.topics)) {
      const logs: PartitionLog[] = [];
      for (let p = 0; p < t.partitions; p++) logs.push(await this.openPartition(t, p, recover));
      this.logs.set(t.name, logs);
    }
    // The entries of directories created, adopted or removed above, once.
    await fsyncDir(join(this.dataDir, "logs"));
  }

  /**
   * New partitions of a topic (CreatePartitions): opened side by side with no
   * fsync each, then the logs directory fsynced once for all of their
   * directory entries before the request is answered and before a Produce can
   * reach them (partition-metadata.ts has the model). One partition after the
   * other, with an fsync of the logs directory each, made CreateTopics cost
   * about four fsyncs per partition in sequence (10,000 topics × 6
   * partitions: most of the worker's convergence time); opened side by side,
   * still three each (id file, its rename, the first segment's entry).
   */
  private async openNewPartitions(t: TopicRecord, from: number, to: number): Promise<PartitionLog[]> {
    const partitions = Array.from({ length: to - from }, (_, i) => from + i);
    const logs = await Promise.all(partitions.map((p) => this.openPartition(t, p, false)));
    await fsyncDir(join(this.dataDir, "logs"));
    return logs;
  }

  /**
   * Opens (creating when new) one partition. Creation does no fsync: the
   * caller fsyncs the logs directory once for all the partitions it opens,
   * and the partition's first write makes its id durable (partition-metadata.ts).
   */
  private async openPartition(t: TopicRecord, partition: number, recover: boolean): Promise<PartitionLog> {
    const dir = this.partitionDir(t.name, partition);
    await mkdir(dir, { recursive: true });
    const exists = await stat(join(dir, PARTITION_METADATA)).then(
      () => true,
      () => false,
    );
    if (!exists) await writePartitionMetadata(dir, t.topicId);
    const name = t.name;
    const topicId = t.topicId;
    return PartitionLog.open({
      dir,
      topic: t.name,
      partition,
      config: effectiveLogConfig(t.configs),
      files: this.files,
      logStartOffset: Number(t.logStartOffsets[String(partition)] ?? "0"),
      persistLogStartOffset: (offset) =>
        this.meta.commit({ op: "logStart", name, topicId, partition, offset: String(offset) }),
      recover,
      clock: this.clock,
      tier: this.remote?.tierFor(t.topicId, partition) ?? null,
      maxDecompressedBytes: this.maxDecompressedBytes,
      onFlush: (ms) => this.flushTimes.record(ms),
      fsyncQueue: this.fsyncQueue,
      pageCacheWindowBytes: this.pageCacheWindowBytes,
      directIo: this.directIo,
    });
  }

  /** Every partition log with its topic id (for the remote log manager). */
  partitionsWithTopicIds(): Array<{ log: PartitionLog; topicId: string }> {
    const out: Array<{ log: PartitionLog; topicId: string }> = [];
    for (const t of Object.values(this.meta.state.topics)) {
      for (const log of this.logs.get(t.name) ?? []) out.push({ log, topicId: t.topicId });
    }
    return out;
  }

  /** True when the broker has tiered storage on (remote.log.storage.system.enable). */
  get remoteStorageSystemEnabled(): boolean {
    return this.remote !== null;
  }

  /** One tiered-storage pass now (copy, remote retention, local retention); the background task does the same. */
  async runRemoteLogTasks(now = this.clock()): Promise<void> {
    if (!this.remote) return;
    await this.remote.runOnce(this.partitionsWithTopicIds(), new Set(Object.values(this.meta.state.topics).map((t) => t.topicId)), now);
  }

  /** Remote bytes and readable remote segment count per partition of a topic (zeros without tiered storage). */
  remoteLogStats(name: string): Array<{ bytes: number; segments: number }> {
    const t = this.meta.state.topics[name];
    if (!t) throw new StorageError("UNKNOWN_TOPIC_OR_PARTITION", `Topic '${name}' does not exist.`);
    const out: Array<{ bytes: number; segments: number }> = [];
    for (let p = 0; p < t.partitions; p++) out.push(this.remote?.stats(t.topicId, p) ?? { bytes: 0, segments: 0 });
    return out;
  }

  private ensureOpen(): void {
    if (this.closed) throw new Error("log manager is closed");
  }

  // ------------------------------------------------------------------ topics

  listTopics(): TopicInfo[] {
    return Object.values(this.meta.state.topics)
      .map((t) => this.info(t))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  getTopic(name: string): TopicInfo | undefined {
    const t = this.meta.state.topics[name];
    return t ? this.info(t) : undefined;
  }

  getTopicById(topicId: string): TopicInfo | undefined {
    const t = Object.values(this.meta.state.topics).find((x) => x.topicId === topicId);
    return t ? this.info(t) : undefined;
  }

  private info(t: TopicRecord): TopicInfo {
    return { name: t.name, topicId: t.topicId, partitions: t.partitions, configs: { ...t.configs } };
  }

  /** Checks a topic name against Kafka's rules; returns an error message or undefined. */
  static validateTopicName(name: string): string | undefined {
    if (name === "." || name === "..") return `Topic name cannot be "." or ".."`;
    if (!TOPIC_NAME.test(name)) {
      return `Topic name "${name}" is illegal, it must be 1 to 249 characters of ASCII alphanumerics, '.', '_' and '-'`;
    }
    return undefined;
  }

  /**
   * The existing topic that `name` collides with once '.' and '_' are equated
   * (Kafka's Topic.hasCollisionChars / unifyCollisionChars: their metric names
   * would be the same), or undefined. A topic of exactly that name is not a
   * collision (that is TOPIC_ALREADY_EXISTS). When several collide, the least
   * name is given, so the message is stable.
   */
  collidingTopic(name: string): string | undefined {
    if (!hasCollisionChars(name)) return undefined;
    if (!this.collisionIndex) {
      const index = new Map<string, string[]>();
      for (const existing of Object.keys(this.meta.state.topics)) {
        if (!hasCollisionChars(existing)) continue;
        const key = unifyCollisionChars(existing);
        const list = index.get(key);
        if (list) list.push(existing);
        else index.set(key, [existing]);
      }
      this.collisionIndex = index;
    }
    const others = (this.collisionIndex.get(unifyCollisionChars(name)) ?? []).filter((n) => n !== name);
    return others.length > 0 ? others.sort()[0] : undefined;
  }

  createTopic(name: string, opts: CreateTopicOptions): Promise<TopicInfo> {
    return this.createTopics([{ name, ...opts }]).then(([result]) => {
      if (result instanceof Error) throw result;
      return result!;
    });
  }

  /**
   * Several topics at once (one CreateTopics request): each is validated on
   * its own and answers its own error (a StorageError, or the I/O error), as Kafka's per-topic results do. The
   * journal entries of all of them are committed together (the metadata
   * store writes concurrent commits with one fsync), then every partition of
   * every topic opens side by side without an fsync of its own, and the logs
   * directory is fsynced once before anything is answered or appended — so a
   * topic answered as created comes back after a crash, its partitions either
   * whole or adopted on open (partition-metadata.ts). Created one at a time,
   * topics cost about one journal fsync, one logs-dir fsync and a partition's
   * chain of fsyncs per topic in sequence (10,000 topics: most of the
   * worker's convergence time).
   */
  createTopics(specs: ReadonlyArray<CreateTopicOptions & { name: string }>): Promise<Array<TopicInfo | Error>> {
    return this.admin.run(async () => {
      this.ensureOpen();
      const results: Array<TopicInfo | Error> = [];
      const creating: Array<{ index: number; name: string; topicId: string; partitions: number; configs: Record<string, string> }> = [];
      const names = new Set<string>();
      for (const [index, spec] of specs.entries()) {
        const { name, partitions } = spec;
        const problem = ((): StorageError | null => {
          const nameError = LogManager.validateTopicName(name);
          if (nameError) return new StorageError("INVALID_TOPIC_EXCEPTION", nameError);
          if (this.meta.state.topics[name] || names.has(name)) return new StorageError("TOPIC_ALREADY_EXISTS", `Topic '${name}' already exists.`);
          // Checked here, inside the admin queue, so concurrent requests cannot both create one of a colliding pair.
          // Against existing topics only, as Kafka's controller does (ReplicationControlManager.validateNewTopicNames):
          // two colliding names in one request are both created, there and here.
          const colliding = this.collidingTopic(name);
          if (colliding !== undefined) return new StorageError("INVALID_TOPIC_EXCEPTION", `Topic '${name}' collides with existing topic: ${colliding}`);
          if (!Number.isInteger(partitions) || partitions <= 0) {
            return new StorageError("INVALID_PARTITIONS", `Number of partitions must be larger than 0 (got ${partitions}).`);
          }
          return null;
        })();
        if (problem) {
          results.push(problem);
          continue;
        }
        const configs = { ...(spec.configs ?? {}) };
        const errors = validateTopicConfigs(configs, { remoteStorageSystemEnabled: this.remoteStorageSystemEnabled });
        if (errors.length > 0) {
          results.push(new StorageError("INVALID_CONFIG", errors.map((e) => e.message).join("; ")));
          continue;
        }
        const topicId = randomUUID();
        results.push({ name, topicId, partitions, configs });
        if (spec.validateOnly) continue;
        names.add(name);
        creating.push({ index, name, topicId, partitions, configs });
      }
      if (creating.length === 0) return results;
      this.collisionIndex = null;
      const committed = await Promise.allSettled(
        creating.map((c) => this.meta.commit({ op: "createTopic", name: c.name, topicId: c.topicId, partitions: c.partitions, configs: c.configs })),
      );
      this.collisionIndex = null; // again: a lookup during the commits may have rebuilt it without them
      const opened = await Promise.allSettled(
        creating.map(async (c, i) => {
          const commit = committed[i]!;
          if (commit.status === "rejected") throw commit.reason;
          const t = this.meta.state.topics[c.name]!;
          const logs = await Promise.all(Array.from({ length: t.partitions }, (_, p) => this.openPartition(t, p, false)));
          return { t, logs };
        }),
      );
      // Before any answer, and before a Produce can reach the new partitions: the directory
      // entries of every new partition directory (their first write relies on it).
      await fsyncDir(join(this.dataDir, "logs"));
      for (const [i, c] of creating.entries()) {
        const o = opened[i]!;
        if (o.status === "fulfilled") this.logs.set(c.name, o.value.logs);
        results[c.index] = o.status === "fulfilled" ? this.info(o.value.t) : o.reason instanceof Error ? o.reason : new Error(String(o.reason));
      }
      return results;
    });
  }

  deleteTopic(name: string): Promise<void> {
    return this.admin.run(async () => {
      this.ensureOpen();
      const t = this.meta.state.topics[name];
      if (!t) throw new StorageError("UNKNOWN_TOPIC_OR_PARTITION", `Topic '${name}' does not exist.`);
      // Journal first: if we crash while removing files, open() removes the leftovers.
      this.collisionIndex = null;
      await this.meta.commit({ op: "deleteTopic", name });
      this.collisionIndex = null;
      const logs = this.logs.get(name) ?? [];
      this.logs.delete(name);
      for (const log of logs) await log.deleteAll();
      await fsyncDir(join(this.dataDir, "logs"));
      // Kafka deletes a deleted topic's remote segments too; a crash here is finished by the next open.
      await this.remote?.deleteTopicData(t.topicId);
    });
  }

  /** CreatePartitions: grows the topic to `totalCount` partitions. */
  createPartitions(name: string, totalCount: number, validateOnly = false): Promise<void> {
    return this.admin.run(async () => {
      this.ensureOpen();
      const t = this.meta.state.topics[name];
      if (!t) throw new StorageError("UNKNOWN_TOPIC_OR_PARTITION", `Topic '${name}' does not exist.`);
      if (!Number.isInteger(totalCount) || totalCount <= t.partitions) {
        throw new StorageError(
          "INVALID_PARTITIONS",
          `Topic currently has ${t.partitions} partitions, ${totalCount} would not be an increase.`,
        );
      }
      if (validateOnly) return;
      const from = t.partitions;
      await this.meta.commit({ op: "setPartitions", name, partitions: totalCount });
      this.logs.get(name)!.push(...(await this.openNewPartitions(t, from, totalCount)));
    });
  }

  /** Legacy AlterConfigs: replaces all overrides of the topic. */
  alterTopicConfigs(name: string, configs: Record<string, string>, validateOnly = false): Promise<void> {
    return this.admin.run(async () => {
      this.ensureOpen();
      if (!this.meta.state.topics[name]) throw new StorageError("UNKNOWN_TOPIC_OR_PARTITION", `Topic '${name}' does not exist.`);
      await this.setConfigs(name, { ...configs }, validateOnly);
    });
  }

  /** IncrementalAlterConfigs for a topic (SET, DELETE, APPEND, SUBTRACT on list configs). */
  incrementalAlterTopicConfigs(name: string, ops: readonly AlterConfigOp[], validateOnly = false): Promise<void> {
    return this.admin.run(async () => {
      this.ensureOpen();
      const t = this.meta.state.topics[name];
      if (!t) throw new StorageError("UNKNOWN_TOPIC_OR_PARTITION", `Topic '${name}' does not exist.`);
      const next = { ...t.configs };
      for (const o of ops) {
        if (o.op === "SET") next[o.name] = o.value;
        else if (o.op === "DELETE") delete next[o.name];
        else {
          if (o.name !== "cleanup.policy") {
            throw new StorageError("INVALID_CONFIG", `Config ${o.name} is not a list: ${o.op} is not allowed`);
          }
          const current = (next[o.name] ?? topicConfigDefault(o.name) ?? "").split(",").map((s) => s.trim()).filter(Boolean);
          const items = o.value.split(",").map((s) => s.trim()).filter(Boolean);
          const result =
            o.op === "APPEND" ? [...current, ...items.filter((i) => !current.includes(i))] : current.filter((c) => !items.includes(c));
          next[o.name] = result.join(",");
        }
      }
      await this.setConfigs(name, next, validateOnly);
    });
  }

  private async setConfigs(name: string, configs: Record<string, string>, validateOnly: boolean): Promise<void> {
    const errors = validateTopicConfigs(configs, {
      remoteStorageSystemEnabled: this.remoteStorageSystemEnabled,
      previous: this.meta.state.topics[name]?.configs ?? {},
    });
    if (errors.length > 0) throw new StorageError("INVALID_CONFIG", errors.map((e) => e.message).join("; "));
    if (validateOnly) return;
    await this.meta.commit({ op: "setConfigs", name, configs });
    const cfg = effectiveLogConfig(configs);
    for (const log of this.logs.get(name) ?? []) log.updateConfig(cfg);
  }

  describeTopicConfigs(name: string, keys?: readonly string[] | null): DescribedConfig[] {
    const t = this.meta.state.topics[name];
    if (!t) throw new StorageError("UNKNOWN_TOPIC_OR_PARTITION", `Topic '${name}' does not exist.`);
    const rows = describeTopicConfigs(t.configs, keys);
    // Tiered-storage usage as read-only rows (one comma-separated value per partition), so
    // that a client without JMX access can read it; see packages/broker/README.md.
    const stats = this.remoteLogStats(name);
    const usage: Array<[string, string, string]> = [
      [REMOTE_LOG_SIZE_CONFIG, stats.map((s) => s.bytes).join(","), "bytes of remote (tiered) log segments per partition, comma-separated in partition order; read-only"],
      [REMOTE_LOG_SEGMENT_COUNT_CONFIG, stats.map((s) => s.segments).join(","), "number of remote (tiered) log segments per partition, comma-separated in partition order; read-only"],
    ];
    for (const [n, value, documentation] of usage) {
      if (keys && keys.length > 0 && !keys.includes(n)) continue;
      rows.push({ name: n, value, isDefault: false, readOnly: true, isSensitive: false, source: 0, type: "STRING", typeCode: ConfigTypeCode.STRING, documentation, synonyms: [] });
    }
    return rows;
  }

  // ------------------------------------------------------------- partitions

  /** The log of a topic-partition, or undefined when it does not exist. */
  partition(topic: string, partition: number): PartitionLog | undefined {
    return this.logs.get(topic)?.[partition];
  }

  /** Like `partition`, but throws UNKNOWN_TOPIC_OR_PARTITION. */
  getPartition(topic: string, partition: number): PartitionLog {
    const log = this.partition(topic, partition);
    if (!log) throw new StorageError("UNKNOWN_TOPIC_OR_PARTITION", `This server does not host ${topic}-${partition}.`);
    return log;
  }

  /** Segment files currently held open by the handle cache. */
  get openFileCount(): number {
    return this.files.size;
  }

  /** All partition logs (e.g. for DescribeLogDirs). */
  allPartitions(): PartitionLog[] {
    return [...this.logs.values()].flat();
  }

  // --------------------------------------------------------------- producers

  /**
   * A producer id never handed out before, even across crashes: ids are
   * reserved in durable blocks of 1000 and a restart starts a new block.
   */
  nextProducerId(): Promise<bigint> {
    return this.idAllocator.run(async () => {
      this.ensureOpen();
      const end = BigInt(this.meta.state.producerIdBlockEnd);
      if (this.nextPid >= end) {
        await this.meta.commit({ op: "producerIdBlock", end: String(this.nextPid + PRODUCER_ID_BLOCK) });
      }
      return this.nextPid++;
    });
  }

  // ----------------------------------------------------------- maintenance

  /** Retention (delete policy) for every partition; returns segments deleted. */
  async runRetention(now = this.clock()): Promise<number> {
    let n = 0;
    for (const log of this.allPartitions()) n += await log.runRetention(now);
    return n;
  }

  /** Compaction (compact policy) for every partition; returns records removed. */
  async runCompaction(now = this.clock()): Promise<number> {
    let n = 0;
    for (const log of this.allPartitions()) n += await log.compact(now);
    return n;
  }

  /** Flushes everything, writes indexes and snapshots, and marks the shutdown clean. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.admin.run(async () => {
      this.closed = true;
    });
    let firstError: { error: unknown } | null = null;
    // Stop copying before the logs it reads from close.
    try {
      await this.remote?.close();
    } catch (err) {
      firstError = { error: err };
    }
    // A log that failed has an unknown tail: leave the shutdown unclean so the next open recovers it.
    let clean = true;
    // Several partitions close at a time (Kafka closes a log dir's logs on a
    // pool of threads, too): each close writes and fsyncs its indexes and its
    // producer snapshot, and one after the other made a shutdown with 60,000
    // partitions take many minutes.
    const logs = this.allPartitions();
    let next = 0;
    const closeNext = async (): Promise<void> => {
      while (next < logs.length) {
        const log = logs[next++]!;
        if (log.failed) clean = false;
        try {
          await log.close();
        } catch (err) {
          firstError ??= { error: err };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CLOSE_CONCURRENCY, logs.length) }, closeNext));
    await this.meta.close();
    await this.files.closeAll();
    await this.directIo?.files.closeAll();
    if (firstError === null && clean) {
      await writeFile(join(this.dataDir, CLEAN_SHUTDOWN), "");
      await fsyncDir(this.dataDir);
    }
    await unlockDataDir(this.dataDir);
    if (firstError !== null) throw firstError.error;
  }
}

/** Kafka's Topic.hasCollisionChars: '.' and '_' map to the same metric name. */
export function hasCollisionChars(name: string): boolean {
  return name.includes(".") || name.includes("_");
}

/** Kafka's Topic.unifyCollisionChars. */
export function unifyCollisionChars(name: string): string {
  return name.replaceAll(".", "_");
}
