/**
 * The log of one topic-partition: a directory of segments and the state
 * that ties them together (log start and end offsets, producer state), with
 * the queues that order work on it (one writer, one maintenance task, a
 * read gate). Its methods are the partition's API; the work of each lives in
 * its own module: append-validation.ts and append-writer.ts (appends),
 * group-commit.ts (fsync), partition-reads.ts and segment.ts (reads,
 * timestamp lookups), partition-maintenance.ts with retention.ts and
 * compaction.ts (DeleteRecords, retention, compaction), partition-load.ts
 * with segment-loader.ts and producer-snapshot.ts (start-up and snapshots).
 *
 * Invariants:
 * - Only the last segment (the active one) is ever appended to. Older
 *   segments are fsynced and their indexes written before the next segment
 *   file is created, so after a crash only the active segment can be torn.
 * - `logEndOffset` and a segment's `size` advance only after the bytes are
 *   written, so reads never see a partially written batch.
 * - Appends are applied in arrival order by a single writer; fsyncs run
 *   beside it and each one acknowledges every durable append written before
 *   it started (group commit).
 */
import { rm } from "node:fs/promises";
import { DEFAULT_MAX_DECOMPRESSED_BYTES, prepareAppend, type AppendOptions, type ValidationLimits } from "./append-validation.ts";
import { txnMarkerAppend, writeAppendGroup, type AppendLog, type AppendResult, type PendingAppend, type TxnMarker } from "./append-writer.ts";
import type { LogConfig } from "./configs.ts";
import { DirectAppender, type DirectIo } from "./direct-io.ts";
import { StorageError } from "./errors.ts";
import { byteLength, fsyncDir, readFully, writevFully, writevFullySync, type FileHandleCache } from "./files.ts";
import type { FsyncSlots } from "./fsync-slots.ts";
import { GroupCommit } from "./group-commit.ts";
import { ReadWriteGate, SerialQueue } from "./locks.ts";
import { PageCacheWindow } from "./page-cache.ts";
import { loadPartition } from "./partition-load.ts";
import { compact, deleteRecordsBefore, runLocalRetention, runRetention, type MaintainedLog } from "./partition-maintenance.ts";
import { FirstWriteGuard } from "./partition-metadata.ts";
import {
  abortedTransactions,
  maxTimestampOffset,
  offsetForTimestamp,
  readBatches,
  type LogView,
  type ReadOptions,
  type ReadResult,
  type TimestampAndOffset,
} from "./partition-reads.ts";
import { writeProducerSnapshot } from "./producer-snapshot.ts";
import { ProducerStateTable, type ProducerSummary } from "./producer-state.ts";
import { Segment } from "./segment.ts";
import type { PartitionTier } from "./tiered/types.ts";
import type { AbortedTxn } from "./txn-index.ts";

export type { AppendOptions, AppendResult, ReadOptions, ReadResult, TimestampAndOffset, ProducerSummary, AbortedTxn, TxnMarker };

/**
 * A group of appends written through the page cache that is smaller than
 * this is written on the event loop's thread (write(2) called directly), a
 * larger one on libuv's thread pool. A buffered write of a few KiB is a copy
 * into memory that takes microseconds; handing it to the pool and back cost
 * ~20 µs of the main thread's time on this project's VM (the wake-ups are
 * syscalls a VM prices highly) and put a thread hop between the write and the
 * fsync that acks=all waits for. Kafka, too, writes a request's records on
 * the thread that handles it. The same bound as direct-io.ts
 * DIRECT_WRITE_MIN_BYTES, so with log.direct.io on only the direct writes,
 * which wait for the device, go to the pool.
 */
export const SYNC_WRITE_BELOW_BYTES = 64 * 1024;

export interface PartitionLogOptions {
  dir: string;
  topic: string;
  partition: number;
  config: LogConfig;
  files: FileHandleCache;
  /** Durable log start offset from metadata (0 for a new partition). */
  logStartOffset: number;
  /** Persists a new log start offset durably; awaited before segments are deleted. */
  persistLogStartOffset: (offset: number) => Promise<void>;
  /** True after an unclean shutdown: the active segment is CRC-scanned and truncated. */
  recover: boolean;
  clock?: () => number;
  /**
   * Tiered storage of this partition (present whenever the broker has remote
   * storage on). Offsets in [logStartOffset, localLogStartOffset) are read
   * from it; see tiered/remote-log-manager.ts.
   */
  tier?: PartitionTier | null;
  /** Bound on one batch's decompressed records (default DEFAULT_MAX_DECOMPRESSED_BYTES). */
  maxDecompressedBytes?: number;
  /** Called with each fsync of the active segment's duration in ms (Kafka's LogFlushStats). */
  onFlush?: (ms: number) => void;
  /**
   * Bounds the fsyncs of the active segment together with those of the other
   * partitions (the log manager's FsyncSlots: a few side by side, the rest
   * waiting); an fsync that waited covers what its partition wrote meanwhile.
   */
  fsyncQueue?: FsyncSlots;
  /**
   * Synced bytes of the active segment kept in the OS page cache behind its
   * end; older ones are dropped (page-cache.ts). −1 (the default) keeps all.
   */
  pageCacheWindowBytes?: number;
  /** Appends bypass the page cache (direct-io.ts); null or absent: buffered writes. */
  directIo?: DirectIo | null;
}

export interface RecoveryInfo {
  truncatedBytes: number;
  segmentsOpened: number;
}

export class PartitionLog {
  readonly dir: string;
  readonly topic: string;
  readonly partition: number;
  private config: LogConfig;
  private readonly files: FileHandleCache;
  private readonly clock: () => number;
  private readonly persistLso: (offset: number) => Promise<void>;
  private readonly tier: PartitionTier | null;
  private readonly limits: ValidationLimits;

  private segments: Segment[] = [];
  private leo = 0;
  private lso = 0;
  private producers = new ProducerStateTable();

  private queue: PendingAppend[] = [];
  private drainScheduled = false;
  private readonly writer = new SerialQueue();
  private readonly onFlush: ((ms: number) => void) | undefined;
  /** Retention, DeleteRecords and compaction run one at a time, beside the writer. */
  private readonly maintenance = new SerialQueue();
  private readonly gate = new ReadWriteGate();
  private readonly commit: GroupCommit;
  private readonly pageCache: PageCacheWindow;
  private readonly directIo: DirectIo | null;
  /** The direct writer of the active segment, once something was written to it (direct I/O on). */
  private appender: DirectAppender | null = null;
  /** The state reads see (partition-reads.ts), always the current one. */
  private readonly view: LogView;
  /** The state the writer works on (append-writer.ts). */
  private readonly appendLog: AppendLog;
  /** The state maintenance works on (partition-maintenance.ts). */
  private readonly maintained: MaintainedLog;
  private failure: StorageError | null = null;
  private closed = false;
  /** Set by deleteAll (topic deletion): appends and waits fail UNKNOWN_TOPIC_OR_PARTITION. */
  private deleted = false;
  /** Makes the topic id durable before the first record bytes (partition-metadata.ts); set by load. */
  private firstWrite = new FirstWriteGuard("", false);
  recovery: RecoveryInfo = { truncatedBytes: 0, segmentsOpened: 0 };

  private constructor(opts: PartitionLogOptions) {
    this.dir = opts.dir;
    this.topic = opts.topic;
    this.partition = opts.partition;
    this.config = opts.config;
    this.files = opts.files;
    this.clock = opts.clock ?? Date.now;
    this.persistLso = opts.persistLogStartOffset;
    this.lso = opts.logStartOffset;
    this.tier = opts.tier ?? null;
    this.onFlush = opts.onFlush;
    this.limits = { maxDecompressedBytes: opts.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES };
    this.directIo = opts.directIo ?? null;
    // With direct I/O on, the small groups of appends still go through the page cache (direct-io.ts DIRECT_WRITE_MIN_BYTES).
    this.pageCache = new PageCacheWindow(this.files, opts.pageCacheWindowBytes ?? -1);
    this.view = {
      topic: this.topic,
      partition: this.partition,
      segments: () => this.segments,
      logStartOffset: () => this.lso,
      logEndOffset: () => this.leo,
      lastStableOffset: () => this.stableOffset(),
      tier: this.tier,
      gate: this.gate,
    };
    this.commit = new GroupCommit(0, {
      syncActive: () => (opts.fsyncQueue ? opts.fsyncQueue.run(() => this.syncActive()) : this.syncActive()),
      logEndOffset: () => this.leo,
      policy: () => this.config,
      onSyncError: (err) => this.fail(err),
    });
    this.appendLog = {
      commit: this.commit,
      config: () => this.config,
      clock: this.clock,
      producers: () => this.producers,
      active: () => this.active,
      logStartOffset: () => this.lso,
      logEndOffset: () => this.leo,
      advanceLogEnd: (offset) => {
        this.leo = offset;
      },
      roll: () => this.roll(),
      failure: () => this.failure,
      beforeWrite: () => this.firstWrite.beforeWrite(),
      writeActive: (bufs, position) => this.writeActive(bufs, position),
    };
    this.maintained = {
      dir: this.dir,
      files: this.files,
      gate: this.gate,
      writer: this.writer,
      config: () => this.config,
      segments: () => this.segments,
      setSegments: (segments) => {
        this.segments = segments;
      },
      logStartOffset: () => this.lso,
      raiseLogStartOffset: async (offset) => {
        await this.persistLso(offset);
        this.lso = offset;
      },
      stableOffset: () => this.stableOffset(),
      roll: () => this.roll(),
    };
  }

  static async open(opts: PartitionLogOptions): Promise<PartitionLog> {
    const log = new PartitionLog(opts);
    await log.load(opts.recover);
    return log;
  }

  // ---------------------------------------------------------------- loading

  private async load(recover: boolean): Promise<void> {
    const loaded = await loadPartition({
      dir: this.dir,
      files: this.files,
      indexIntervalBytes: this.config.indexIntervalBytes,
      logStartOffset: this.lso,
      persistLogStartOffset: this.persistLso,
      recover,
      now: this.clock(),
      tier: this.tier,
    });
    this.segments = loaded.segments;
    this.recovery = { truncatedBytes: loaded.truncatedBytes, segmentsOpened: loaded.segmentsOpened };
    this.lso = loaded.logStartOffset;
    this.leo = loaded.logEndOffset;
    this.producers = loaded.producers;
    this.commit.markFlushed(this.leo);
    this.firstWrite = new FirstWriteGuard(this.dir, this.size === 0);
  }

  // ------------------------------------------------------------- accessors

  private get active(): Segment {
    return this.segments[this.segments.length - 1]!;
  }

  get logStartOffset(): bigint {
    return BigInt(this.lso);
  }
  /**
   * Kafka's local log start offset (KIP-405): the first offset still in a
   * local segment. Equals the log start offset unless tiered storage removed
   * older local segments after copying them.
   */
  get localLogStartOffset(): bigint {
    return BigInt(Math.max(this.lso, this.segments[0]!.baseOffset));
  }
  /** Last offset copied to remote storage (ListOffsets −5); −1 when none or tiered storage is off. */
  get highestTieredOffset(): bigint {
    return BigInt(this.tier?.highestOffset() ?? -1);
  }
  /** True when this topic copies closed segments to remote storage. */
  get remoteStorageEnabled(): boolean {
    return this.tier !== null && this.config.remoteStorageEnable;
  }
  /** Closed (rolled) segments, oldest first: what the tiered-storage copier may upload. */
  closedSegments(): readonly Segment[] {
    return this.segments.slice(0, -1);
  }
  get logEndOffset(): bigint {
    return BigInt(this.leo);
  }
  /** Single node: the high watermark is the log end offset. */
  get highWatermark(): bigint {
    return BigInt(this.leo);
  }
  /**
   * The last stable offset: the first offset of an open transaction, else the
   * high watermark; never below the log start offset (Kafka's
   * firstUnstableOffset handling). READ_COMMITTED reads stop here.
   */
  get lastStableOffset(): bigint {
    return BigInt(this.stableOffset());
  }

  private stableOffset(): number {
    const first = this.producers.firstUnstableOffset();
    return first === null ? this.leo : Math.min(this.leo, Math.max(first, this.lso));
  }

  /**
   * Aborted transactions overlapping [fetchOffset, upperBound), by first
   * offset: the transaction indexes of the segment holding `fetchOffset` and
   * those after it, until one shows completeness (txn-index.ts). Offsets in
   * remote storage use the remote segments' indexes first.
   */
  async abortedTransactions(fetchOffset: bigint, upperBound: bigint): Promise<AbortedTxn[]> {
    this.ensureUsable();
    return abortedTransactions(this.view, Number(fetchOffset), Number(upperBound));
  }

  /** The producers with state here, for DescribeProducers. */
  activeProducers(): ProducerSummary[] {
    return this.producers.summaries();
  }
  /** Bytes on disk across all segments. */
  get size(): number {
    return this.segments.reduce((n, s) => n + s.size, 0);
  }
  get segmentCount(): number {
    return this.segments.length;
  }
  /** Sizes in bytes of the segments, oldest first. */
  get segmentSizes(): number[] {
    return this.segments.map((s) => s.size);
  }
  /** Base offsets of the segments, oldest first (for tests and DescribeLogDirs). */
  get segmentBaseOffsets(): bigint[] {
    return this.segments.map((s) => BigInt(s.baseOffset));
  }

  /** True after an I/O error: the log refuses work until reopened (recovery then repairs it). */
  get failed(): boolean {
    return this.failure !== null;
  }

  get logConfig(): LogConfig {
    return this.config;
  }

  updateConfig(config: LogConfig): void {
    this.config = config;
  }

  private ensureUsable(): void {
    if (this.failure) throw this.failure;
    if (this.deleted) throw this.goneError();
    if (this.closed) throw new StorageError("UNKNOWN_TOPIC_OR_PARTITION", `${this.topic}-${this.partition} is closed`);
  }

  // ----------------------------------------------------------------- append

  /**
   * Appends the record batches in `data` (one Produce partition's `records`).
   * The buffer is modified in place (offsets, leader epoch, LogAppendTime)
   * and written as is: callers must not reuse it.
   */
  append(data: Buffer, opts: AppendOptions = {}): Promise<AppendResult> {
    try {
      this.ensureUsable();
      const { data: records, batches } = prepareAppend(data, this.config, opts, this.limits, this.clock);
      return new Promise<AppendResult>((resolve, reject) => {
        this.queue.push({ data: records, batches, durable: opts.requireDurable ?? true, resolve, reject });
        this.scheduleDrain();
      });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Writes a transaction marker (a control batch the coordinator sends; never
   * a client) and resolves once it is durable, as Kafka writes markers with
   * acks=all. The producer's transaction here ends with it.
   */
  appendTxnMarker(marker: TxnMarker): Promise<AppendResult> {
    try {
      this.ensureUsable();
      const pending = txnMarkerAppend(marker, this.clock());
      return new Promise<AppendResult>((resolve, reject) => {
        this.queue.push({ ...pending, resolve, reject });
        this.scheduleDrain();
      });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private scheduleDrain(): void {
    if (this.drainScheduled) return;
    this.drainScheduled = true;
    this.writer
      .run(async () => {
        this.drainScheduled = false;
        while (this.queue.length > 0) {
          const group = this.queue;
          this.queue = [];
          if (this.deleted) {
            // Queued before the deletion, not yet written: the partition is gone.
            for (const r of group) r.reject(this.goneError());
            continue;
          }
          try {
            await writeAppendGroup(this.appendLog, group);
          } catch (err) {
            // A failed write leaves the file in an unknown state: stop taking appends
            // (recovery on the next open truncates it) and fail every request of the
            // group; settling an already-resolved promise is a no-op.
            this.fail(err);
            for (const r of group) r.reject(this.failure);
          }
        }
      })
      .catch((err: unknown) => this.fail(err));
  }

  /**
   * What an append or a flush wait gets once the topic is deleted: Kafka answers a
   * produce to a partition it no longer hosts UNKNOWN_TOPIC_OR_PARTITION
   * (ReplicaManager.getPartitionOrError), not a storage error.
   */
  private goneError(): StorageError {
    return new StorageError("UNKNOWN_TOPIC_OR_PARTITION", `This server does not host this topic-partition (${this.topic}-${this.partition} was deleted).`);
  }

  private fail(err: unknown): void {
    // A write or fsync that fails because the partition is being deleted is not a storage failure.
    if (this.deleted && !this.failure) this.failure = this.goneError();
    if (!this.failure) {
      this.failure = new StorageError(
        "KAFKA_STORAGE_ERROR",
        `log ${this.topic}-${this.partition} failed: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
    for (const r of this.queue) r.reject(this.failure);
    this.queue = [];
    this.commit.fail(this.failure);
  }

  // ------------------------------------------------------------------ flush

  /** fsyncs everything appended so far (used at close and by tests). */
  async flush(): Promise<void> {
    this.ensureUsable();
    await this.writer.run(async () => undefined);
    await this.commit.waitFlushed(this.leo);
  }

  /**
   * fdatasync of the active segment; returns the log end offset read as it
   * began, which it covers (the log end advances only after a write completed;
   * the segment and the offset are read together, and a roll syncs the old
   * segment before anything is written to the new one).
   */
  private async syncActive(): Promise<number> {
    const covers = this.leo;
    if (covers <= this.commit.flushedOffset) return covers; // a roll synced it while this one waited
    // Deleted while this sync waited for its turn: its waiters fail, as appends to a deleted log do.
    if (this.closed) throw new StorageError("UNKNOWN_TOPIC_OR_PARTITION", `${this.topic}-${this.partition} is closed`);
    const started = performance.now();
    const { logPath, size } = this.active; // the bytes this sync covers, read with `covers`
    const lease = await this.files.acquire(logPath);
    try {
      await lease.handle.datasync();
    } finally {
      lease.release();
    }
    this.onFlush?.(performance.now() - started);
    this.pageCache.afterSync(logPath, size);
    return covers;
  }

  /** Writes `bufs` at `position` (the end) of the active segment; must run inside the writer queue. */
  private async writeActive(bufs: Buffer[], position: number): Promise<void> {
    const seg = this.active;
    if (this.directIo) {
      if (this.appender?.path !== seg.logPath) {
        this.appender = new DirectAppender(this.directIo, seg.logPath, seg.size, {
          read: (from, to) => this.readActive(seg.logPath, from, to),
          write: (b, at) => this.writeBuffered(seg.logPath, b, at),
        });
      }
      await this.appender.write(bufs, position);
      return;
    }
    await this.writeBuffered(seg.logPath, bufs, position);
  }

  private async writeBuffered(path: string, bufs: Buffer[], position: number): Promise<void> {
    const lease = await this.files.acquire(path);
    try {
      if (byteLength(bufs) < SYNC_WRITE_BELOW_BYTES) writevFullySync(lease.handle.fd, bufs, position);
      else await writevFully(lease.handle, bufs, position);
    } finally {
      lease.release();
    }
  }

  private async readActive(path: string, from: number, to: number): Promise<Buffer> {
    const buf = Buffer.alloc(to - from);
    const lease = await this.files.acquire(path);
    try {
      const n = await readFully(lease.handle, buf, from);
      if (n !== buf.length) throw new StorageError("KAFKA_STORAGE_ERROR", `${path}: read ${n} of the ${buf.length} bytes before its end at ${to}`);
    } finally {
      lease.release();
    }
    return buf;
  }

  /**
   * The active segment stops being written (roll, close): the padding a
   * direct write left past its end is cut off, and its direct descriptor closed.
   * The caller syncs the file afterwards.
   */
  private async finishDirectWrites(seg: Segment): Promise<void> {
    const appender = this.appender;
    if (!appender || appender.path !== seg.logPath) return;
    this.appender = null;
    appender.retire();
    if (!appender.padded) return;
    const lease = await this.files.acquire(seg.logPath);
    try {
      await lease.handle.truncate(seg.size);
    } finally {
      lease.release();
    }
  }

  private async syncFile(path: string): Promise<void> {
    const lease = await this.files.acquire(path);
    try {
      await lease.handle.datasync();
    } finally {
      lease.release();
    }
  }

  /** Must run inside the writer queue. */
  private async roll(): Promise<void> {
    const old = this.active;
    await this.finishDirectWrites(old);
    await this.syncFile(old.logPath);
    this.commit.markFlushed(this.leo);
    this.pageCache.afterSync(old.logPath, old.size, true);
    await old.writeIndexes();
    await writeProducerSnapshot(this.dir, this.leo, this.producers);
    const seg = await Segment.create(this.dir, this.leo, this.files, this.config.indexIntervalBytes, this.clock());
    await fsyncDir(this.dir);
    this.segments = [...this.segments, seg];
  }

  /** Rolls the active segment now (if it has data). */
  async forceRoll(): Promise<void> {
    this.ensureUsable();
    await this.writer.run(async () => {
      if (this.active.size > 0) await this.roll();
    });
  }

  // ------------------------------------------------------------ reads

  /**
   * Whole batches from the one containing `fetchOffset`, at most `maxBytes`
   * unless the first batch alone is larger (KIP-74: always make progress).
   */
  async read(fetchOffset: bigint, maxBytes: number, opts: ReadOptions = {}): Promise<ReadResult> {
    this.ensureUsable();
    return readBatches(this.view, fetchOffset, maxBytes, opts);
  }

  /** First offset whose record timestamp is ≥ ts (ListOffsets); null when none. */
  async offsetForTimestamp(ts: bigint): Promise<TimestampAndOffset | null> {
    this.ensureUsable();
    return offsetForTimestamp(this.view, ts);
  }

  /** The record with the largest timestamp (ListOffsets MAX_TIMESTAMP, −3); null when empty. */
  async maxTimestampOffset(): Promise<TimestampAndOffset | null> {
    this.ensureUsable();
    return maxTimestampOffset(this.view);
  }

  // -------------------------------------------------------------- deletion

  /** DeleteRecords: moves the log start offset up to `offset` (≤ HW) durably. */
  async deleteRecordsBefore(offset: bigint): Promise<bigint> {
    this.ensureUsable();
    const target = Number(offset);
    if (target > this.leo || target < 0) {
      throw new StorageError("OFFSET_OUT_OF_RANGE", `cannot delete records before ${target}: high watermark is ${this.leo}`);
    }
    await this.maintenance.run(() => deleteRecordsBefore(this.maintained, target));
    return BigInt(this.lso);
  }

  /**
   * Deletes whole closed segments by retention.ms and retention.bytes (when
   * cleanup.policy includes delete). Returns the number of segments deleted.
   */
  async runRetention(now = this.clock()): Promise<number> {
    this.ensureUsable();
    if (!this.config.deleteRetention) return 0;
    if (this.remoteStorageEnabled) return this.runLocalRetention(now);
    return this.maintenance.run(() => runRetention(this.maintained, now));
  }

  /** Local retention of a tiered partition (KIP-405; partition-maintenance.ts). */
  async runLocalRetention(now = this.clock()): Promise<number> {
    this.ensureUsable();
    const tier = this.tier;
    if (!tier || !this.config.remoteStorageEnable) return 0;
    return this.maintenance.run(() => runLocalRetention(this.maintained, tier, now));
  }

  /** Compacts the closed segments when cleanup.policy includes compact; returns records removed (partition-maintenance.ts). */
  async compact(now = this.clock()): Promise<number> {
    this.ensureUsable();
    if (!this.config.compact) return 0;
    return this.maintenance.run(() => compact(this.maintained, now));
  }

  // ------------------------------------------------------------------ close

  /**
   * Flushes, writes the active segment's indexes and a producer snapshot —
   * except for a partition that never held a record (log end 0): its indexes
   * are empty and it has no producers, which is what the next open finds
   * without the files. Those writes cost six fsyncs a partition and made a
   * clean shutdown after creating 60,000 partitions take 38–51 s.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.commit.stop();
    if (!this.failure) {
      await this.writer.run(async () => undefined);
      await this.commit.waitFlushed(this.leo);
      await this.writer.run(async () => {
        if (this.appender) {
          await this.finishDirectWrites(this.active);
          await this.syncFile(this.active.logPath);
        }
        if (this.leo > 0) {
          await this.active.writeIndexes();
          await writeProducerSnapshot(this.dir, this.leo, this.producers);
        }
      });
    }
    this.appender?.retire();
    this.appender = null;
    this.closed = true;
    await this.pageCache.settled();
    for (const s of this.segments) this.files.retire(s.logPath);
  }

  /** Closes and removes the partition directory (topic deletion). */
  async deleteAll(): Promise<void> {
    this.closed = true;
    this.deleted = true;
    this.commit.stop();
    // Nothing written after this point becomes durable or readable: fail the fsync waiters now.
    this.commit.fail(this.goneError());
    await this.writer.run(async () => undefined);
    await this.pageCache.settled();
    this.appender?.retire();
    this.appender = null;
    for (const s of this.segments) this.files.retire(s.logPath);
    await rm(this.dir, { recursive: true, force: true });
  }
}
