/**
 * The log of one topic-partition: a directory of segments, the append path
 * (validation, offset assignment, idempotent-producer checks, group-committed
 * fsync), fetch reads of whole batches, timestamp lookups, retention and
 * compaction.
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
import { createHash } from "node:crypto";
import { open, readdir, readFile, rename, rm, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import {
  ATTR_CONTROL,
  ATTR_LOG_APPEND_TIME,
  ATTR_TRANSACTIONAL,
  HEADER_SIZE,
  LOG_OVERHEAD,
  OFF_ATTRIBUTES,
  OFF_LEADER_EPOCH,
  UnsupportedCompressionError,
  batchCrcValid,
  decodeRecords,
  readHeader,
  rebuildBatch,
  setBaseOffset,
  setLogAppendTime,
  type BatchHeader,
} from "./batch.ts";
import type { LogConfig } from "./configs.ts";
import { StorageError } from "./errors.ts";
import { fsyncDir, readFully, writeFileAtomic, writevFully, type FileHandleCache } from "./files.ts";
import { ReadWriteGate, SerialQueue } from "./locks.ts";
import { ProducerStateTable, lastSequence, type BatchMetadata } from "./producer-state.ts";
import { Segment } from "./segment.ts";
import type { PartitionTier } from "./tiered/types.ts";

const INT32_MAX = 2147483647;
const PRODUCER_SNAPSHOT = "producer-state.json";

export interface AppendOptions {
  /** acks=all: resolve only after the batch is fsynced. */
  requireDurable?: boolean;
  /** Produce v3+ allows exactly one batch per partition (INVALID_RECORD otherwise). */
  singleBatch?: boolean;
}

export interface AppendResult {
  baseOffset: bigint;
  lastOffset: bigint;
  /** The broker time stamped on LogAppendTime topics, −1 for CreateTime. */
  logAppendTime: bigint;
  logStartOffset: bigint;
  /** True when this was a retry of one of the producer's last 5 batches (nothing appended). */
  duplicate: boolean;
}

export interface ReadOptions {
  /** READ_COMMITTED reads stop at the LSO, which equals the LEO here (no transactions). */
  isolation?: "read_uncommitted" | "read_committed";
}

export interface ReadResult {
  /** Whole batches starting with the one containing fetchOffset; empty at the log end. */
  records: Buffer;
  highWatermark: bigint;
  lastStableOffset: bigint;
  logStartOffset: bigint;
}

export interface TimestampAndOffset {
  offset: bigint;
  timestamp: bigint;
}

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
}

interface ValidatedBatch {
  pos: number;
  header: BatchHeader;
}

interface PendingAppend {
  data: Buffer;
  batches: ValidatedBatch[];
  durable: boolean;
  resolve: (r: AppendResult) => void;
  reject: (e: unknown) => void;
}

interface FlushWaiter {
  endOffset: number;
  resolve: () => void;
  reject: (e: unknown) => void;
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

  private segments: Segment[] = [];
  private leo = 0;
  private lso = 0;
  private flushedOffset = 0;
  private producers = new ProducerStateTable();

  private queue: PendingAppend[] = [];
  private drainScheduled = false;
  private readonly writer = new SerialQueue();
  /** Retention, DeleteRecords and compaction run one at a time, beside the writer. */
  private readonly maintenance = new SerialQueue();
  private readonly gate = new ReadWriteGate();
  private flushWaiters: FlushWaiter[] = [];
  private flushing = false;
  private flushRequested = false;
  private messagesSinceFlush = 0;
  private flushTimer: NodeJS.Timeout | null = null;
  private failure: StorageError | null = null;
  private closed = false;
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
  }

  static async open(opts: PartitionLogOptions): Promise<PartitionLog> {
    const log = new PartitionLog(opts);
    await log.load(opts.recover);
    return log;
  }

  // ---------------------------------------------------------------- loading

  private async load(recover: boolean): Promise<void> {
    const names = await readdir(this.dir);
    // A crash during compaction: `.cleaned` is incomplete (drop it); `.swap`
    // was fully written and fsynced before being renamed, so finish the swap.
    for (const n of names) {
      if (n.endsWith(".cleaned")) await rm(join(this.dir, n), { force: true });
    }
    for (const n of names) {
      if (!n.endsWith(".log.swap")) continue;
      const base = n.slice(0, -".log.swap".length);
      await rm(join(this.dir, `${base}.index`), { force: true });
      await rm(join(this.dir, `${base}.timeindex`), { force: true });
      await rename(join(this.dir, n), join(this.dir, `${base}.log`));
      await fsyncDir(this.dir);
    }
    const bases = (await readdir(this.dir))
      .filter((n) => /^\d{20}\.log$/.test(n))
      .map((n) => Number(n.slice(0, 20)))
      .sort((a, b) => a - b);

    for (let i = 0; i < bases.length; i++) {
      const isLast = i === bases.length - 1;
      const { segment, truncatedBytes } = await Segment.open(
        this.dir,
        bases[i]!,
        this.files,
        this.config.indexIntervalBytes,
        recover && isLast,
      );
      this.recovery.truncatedBytes += truncatedBytes;
      this.segments.push(segment);
    }
    this.recovery.segmentsOpened = this.segments.length;

    if (this.segments.length === 0) {
      this.segments.push(await Segment.create(this.dir, this.lso, this.files, this.config.indexIntervalBytes, this.clock()));
      await fsyncDir(this.dir);
    }
    this.leo = this.active.nextOffset;

    if (this.lso > this.leo) {
      // Records were deleted up to an offset the (truncated) log never reached:
      // restart the log empty at the log start offset, as Kafka does.
      for (const s of this.segments) await s.deleteFiles();
      this.segments = [await Segment.create(this.dir, this.lso, this.files, this.config.indexIntervalBytes, this.clock())];
      await fsyncDir(this.dir);
      this.leo = this.lso;
    }
    // Offsets below the first local segment may still be readable from remote
    // storage; the log start offset only rises to where the data really starts.
    const remoteStart = this.tier?.earliestOffset() ?? null;
    const dataStart = remoteStart === null ? this.segments[0]!.baseOffset : Math.min(remoteStart, this.segments[0]!.baseOffset);
    if (this.lso < dataStart) {
      this.lso = dataStart;
      await this.persistLso(this.lso);
    }
    // Segments wholly below the log start offset were due for deletion when we stopped.
    while (this.segments.length > 1 && this.segments[1]!.baseOffset <= this.lso) {
      await this.segments.shift()!.deleteFiles();
    }
    this.flushedOffset = this.leo;
    await this.loadProducerState();
  }

  private async loadProducerState(): Promise<void> {
    let from = this.segments[0]!.baseOffset;
    try {
      const snap = JSON.parse(await readFile(join(this.dir, PRODUCER_SNAPSHOT), "utf8")) as {
        offset: number;
        producers: unknown;
      };
      if (snap.offset <= this.leo) {
        this.producers = ProducerStateTable.fromJSON(snap.producers);
        from = Math.max(snap.offset, from);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" && !(err instanceof SyntaxError)) throw err;
      // No snapshot, or one torn by a crash: rebuild from every batch header.
    }
    for (const seg of this.segments) {
      if (seg.nextOffset <= from) continue;
      const start = seg.baseOffset >= from ? 0 : seg.lookup(from);
      await seg.scan(start, seg.size, false, (h) => {
        if (h.baseOffset >= from) this.trackProducer(h);
      });
    }
  }

  private trackProducer(h: BatchHeader): void {
    if (h.producerId < 0 || (h.attributes & ATTR_CONTROL) !== 0) return;
    this.producers.update(h.producerId, h.producerEpoch, {
      firstSeq: h.baseSequence,
      lastSeq: lastSequence(h.baseSequence, h.lastOffsetDelta),
      baseOffset: h.baseOffset,
      lastOffset: h.baseOffset + h.lastOffsetDelta,
      timestamp: h.maxTimestamp,
    });
  }

  private async writeProducerSnapshot(offset: number): Promise<void> {
    const body = JSON.stringify({ offset, producers: this.producers.toJSON() });
    await writeFileAtomic(join(this.dir, PRODUCER_SNAPSHOT), body);
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
  /** No transactions are ever open, so the LSO is the high watermark. */
  get lastStableOffset(): bigint {
    return BigInt(this.leo);
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
      const batches = this.validate(data, opts);
      return new Promise<AppendResult>((resolve, reject) => {
        this.queue.push({ data, batches, durable: opts.requireDurable ?? true, resolve, reject });
        this.scheduleDrain();
      });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private validate(data: Buffer, opts: AppendOptions): ValidatedBatch[] {
    const out: ValidatedBatch[] = [];
    let pos = 0;
    while (pos < data.length) {
      if (data.length - pos < HEADER_SIZE) {
        throw new StorageError("CORRUPT_MESSAGE", `record batch at byte ${pos} is truncated`);
      }
      const size = data.readInt32BE(pos + 8) + LOG_OVERHEAD;
      if (size < HEADER_SIZE || pos + size > data.length) {
        throw new StorageError("CORRUPT_MESSAGE", `record batch at byte ${pos} has invalid length ${size - LOG_OVERHEAD}`);
      }
      const h = readHeader(data, pos);
      if (h.magic !== 2) throw new StorageError("CORRUPT_MESSAGE", `unsupported record batch magic ${h.magic}`);
      if (size > this.config.maxMessageBytes || size > this.config.segmentBytes) {
        throw new StorageError(
          "MESSAGE_TOO_LARGE",
          `record batch of ${size} bytes exceeds max.message.bytes ${this.config.maxMessageBytes}`,
        );
      }
      if (!batchCrcValid(data, pos, size)) {
        throw new StorageError("CORRUPT_MESSAGE", `record batch at byte ${pos} fails its CRC-32C check`);
      }
      if (h.recordCount <= 0 || h.lastOffsetDelta + 1 !== h.recordCount) {
        throw new StorageError(
          "INVALID_RECORD",
          `record batch has ${h.recordCount} records but lastOffsetDelta ${h.lastOffsetDelta}`,
        );
      }
      if ((h.attributes & ATTR_CONTROL) !== 0) throw new StorageError("INVALID_RECORD", "clients may not write control batches");
      if ((h.attributes & ATTR_TRANSACTIONAL) !== 0) {
        throw new StorageError("INVALID_RECORD", "transactional batches are not supported by this broker");
      }
      out.push({ pos, header: h });
      pos += size;
    }
    if (out.length === 0) throw new StorageError("INVALID_RECORD", "no record batch in produce data");
    if (out.length > 1 && (opts.singleBatch || out.some((b) => b.header.producerId >= 0))) {
      throw new StorageError("INVALID_RECORD", "exactly one record batch per partition is allowed");
    }
    return out;
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
          try {
            await this.writeGroup(group);
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

  /** Assigns offsets to a group of appends and writes them with as few writes as possible. */
  private async writeGroup(group: PendingAppend[]): Promise<void> {
    if (this.failure) {
      for (const r of group) r.reject(this.failure);
      return;
    }
    const now = this.clock();
    let bufs: Buffer[] = [];
    let bytes = 0;
    let written: Array<{ req: PendingAppend; result: AppendResult; batches: BatchHeader[]; rel: number[] }> = [];
    let nextOffset = this.leo;

    const flushBufs = async (): Promise<void> => {
      if (bufs.length === 0) return;
      const seg = this.active;
      const lease = await this.files.acquire(seg.logPath);
      try {
        await writevFully(lease.handle, bufs, seg.size);
      } finally {
        lease.release();
      }
      const base = seg.size;
      let records = 0;
      for (const w of written) {
        for (let i = 0; i < w.batches.length; i++) {
          seg.trackBatch(w.batches[i]!, base + w.rel[i]!);
          records += w.batches[i]!.lastOffsetDelta + 1;
        }
      }
      seg.size += bytes;
      this.leo = nextOffset;
      this.messagesSinceFlush += records;
      for (const w of written) {
        w.result.logStartOffset = BigInt(this.lso);
        if (w.req.durable) this.waitFlushed(Number(w.result.lastOffset) + 1).then(() => w.req.resolve(w.result), w.req.reject);
        else w.req.resolve(w.result);
      }
      bufs = [];
      bytes = 0;
      written = [];
      this.afterWrite();
    };

    for (const req of group) {
      try {
        const first = req.batches[0]!.header;
        if (first.producerId >= 0) {
          const lastSeq = lastSequence(first.baseSequence, first.lastOffsetDelta);
          const check = this.producers.check(first.producerId, first.producerEpoch, first.baseSequence, lastSeq);
          if (check.kind === "duplicate") {
            this.answerDuplicate(req, check.batch);
            continue;
          }
        }
        const reqRecords = req.batches.reduce((n, b) => n + b.header.lastOffsetDelta + 1, 0);
        const seg = this.active;
        const pendingSize = seg.size + bytes;
        const rollBySize = pendingSize > 0 && pendingSize + req.data.length > this.config.segmentBytes;
        const rollByTime = seg.size > 0 && bytes === 0 && now - seg.rollingBaseTimestamp() > this.config.segmentMs;
        const rollByOffset = nextOffset + reqRecords - seg.baseOffset > INT32_MAX;
        if (rollBySize || rollByTime || rollByOffset) {
          await flushBufs();
          await this.roll();
        }

        const headers: BatchHeader[] = [];
        const rel: number[] = [];
        const baseOffset = nextOffset;
        for (const b of req.batches) {
          setBaseOffset(req.data, b.pos, nextOffset);
          req.data.writeInt32BE(0, b.pos + OFF_LEADER_EPOCH);
          const h = b.header;
          h.baseOffset = nextOffset;
          if (this.config.logAppendTime) {
            setLogAppendTime(req.data, b.pos, h.size, now);
            h.maxTimestamp = now;
            h.attributes |= ATTR_LOG_APPEND_TIME;
          }
          headers.push(h);
          rel.push(bytes + b.pos);
          nextOffset += h.lastOffsetDelta + 1;
          this.trackProducer(h);
        }
        bufs.push(req.data);
        bytes += req.data.length;
        written.push({
          req,
          batches: headers,
          rel,
          result: {
            baseOffset: BigInt(baseOffset),
            lastOffset: BigInt(nextOffset - 1),
            logAppendTime: this.config.logAppendTime ? BigInt(now) : -1n,
            logStartOffset: BigInt(this.lso),
            duplicate: false,
          },
        });
      } catch (err) {
        req.reject(err);
      }
    }
    await flushBufs();
  }

  private answerDuplicate(req: PendingAppend, b: BatchMetadata): void {
    // The original may still be waiting for its fsync: a durable retry must wait too.
    const result: AppendResult = {
      baseOffset: BigInt(b.baseOffset),
      lastOffset: BigInt(b.lastOffset),
      logAppendTime: this.config.logAppendTime ? BigInt(b.timestamp) : -1n,
      logStartOffset: BigInt(this.lso),
      duplicate: true,
    };
    if (req.durable) this.waitFlushed(b.lastOffset + 1).then(() => req.resolve(result), req.reject);
    else req.resolve(result);
  }

  private fail(err: unknown): void {
    if (!this.failure) {
      this.failure = new StorageError(
        "KAFKA_STORAGE_ERROR",
        `log ${this.topic}-${this.partition} failed: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
    for (const r of this.queue) r.reject(this.failure);
    this.queue = [];
    for (const w of this.flushWaiters) w.reject(this.failure);
    this.flushWaiters = [];
  }

  // ------------------------------------------------------------------ flush

  private waitFlushed(endOffset: number): Promise<void> {
    if (endOffset <= this.flushedOffset) return Promise.resolve();
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      this.flushWaiters.push({ endOffset, resolve, reject });
      this.requestFlush();
    });
  }

  private afterWrite(): void {
    if (this.messagesSinceFlush >= this.config.flushMessages) this.requestFlush();
    else if (this.config.flushMs < 1e15 && !this.flushTimer && this.leo > this.flushedOffset) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = null;
        this.requestFlush();
      }, this.config.flushMs);
      this.flushTimer.unref();
    }
  }

  /** Group commit: at most one fsync in flight; each covers everything written before it began. */
  private requestFlush(): void {
    this.flushRequested = true;
    if (this.flushing) return;
    this.flushing = true;
    void this.flushLoop();
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.flushRequested && !this.failure) {
        this.flushRequested = false;
        const target = this.leo;
        if (target <= this.flushedOffset) {
          this.resolveWaiters();
          continue;
        }
        const seg = this.active;
        this.messagesSinceFlush = 0;
        const lease = await this.files.acquire(seg.logPath);
        try {
          await lease.handle.datasync();
        } finally {
          lease.release();
        }
        // Segments before `seg` were synced when they were rolled.
        if (target > this.flushedOffset) this.flushedOffset = target;
        this.resolveWaiters();
        if (this.flushWaiters.length > 0) this.flushRequested = true;
      }
    } catch (err) {
      this.fail(err);
    } finally {
      this.flushing = false;
    }
  }

  private resolveWaiters(): void {
    if (this.flushWaiters.length === 0) return;
    const keep: FlushWaiter[] = [];
    for (const w of this.flushWaiters) {
      if (w.endOffset <= this.flushedOffset) w.resolve();
      else keep.push(w);
    }
    this.flushWaiters = keep;
  }

  /** fsyncs everything appended so far (used at close and by tests). */
  async flush(): Promise<void> {
    this.ensureUsable();
    await this.writer.run(async () => undefined);
    await this.waitFlushed(this.leo);
  }

  /** Must run inside the writer queue. */
  private async roll(): Promise<void> {
    const old = this.active;
    const lease = await this.files.acquire(old.logPath);
    try {
      await lease.handle.datasync();
    } finally {
      lease.release();
    }
    if (this.leo > this.flushedOffset) this.flushedOffset = this.leo;
    this.resolveWaiters();
    await old.writeIndexes();
    await this.writeProducerSnapshot(this.leo);
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

  // ------------------------------------------------------------------- read

  /**
   * Whole batches from the one containing `fetchOffset`, at most `maxBytes`
   * unless the first batch alone is larger (KIP-74: always make progress).
   */
  async read(fetchOffset: bigint, maxBytes: number, opts: ReadOptions = {}): Promise<ReadResult> {
    this.ensureUsable();
    void opts.isolation; // LSO == HW: both isolation levels read to the same point.
    const off = Number(fetchOffset);
    const hw = this.leo;
    const result = (records: Buffer): ReadResult => ({
      records,
      highWatermark: BigInt(hw),
      lastStableOffset: BigInt(hw),
      logStartOffset: BigInt(this.lso),
    });
    if (off < this.lso || off > hw) {
      throw new StorageError(
        "OFFSET_OUT_OF_RANGE",
        `fetch offset ${off} is outside [${this.lso}, ${hw}] for ${this.topic}-${this.partition}`,
      );
    }
    if (off === hw) return result(Buffer.alloc(0));
    const local = await this.gate.shared(async () => {
      const segs = this.segments;
      // Below the first local segment: the data is in remote storage (checked
      // under the gate, so a segment deleted meanwhile is never skipped over).
      if (this.tier && off < segs[0]!.baseOffset) return null;
      for (let i = this.segmentIndexFor(off, segs); i < segs.length; i++) {
        const seg = segs[i]!;
        if (seg.nextOffset <= off) continue;
        const found = await this.readFromSegment(seg, off, Math.max(1, maxBytes));
        if (found) return result(found);
      }
      return result(Buffer.alloc(0));
    });
    if (local) return local;
    const remote = await this.tier!.read(off, Math.max(1, maxBytes)).catch((err: unknown) => {
      // Remote retention may have deleted the segment while we read it.
      if (off < this.lso) return null;
      throw err;
    });
    if (off < this.lso) {
      throw new StorageError("OFFSET_OUT_OF_RANGE", `fetch offset ${off} is below the log start offset ${this.lso} of ${this.topic}-${this.partition}`);
    }
    if (!remote) {
      throw new StorageError("KAFKA_STORAGE_ERROR", `offset ${off} of ${this.topic}-${this.partition} is neither local nor in remote storage`);
    }
    return result(remote);
  }

  private segmentIndexFor(offset: number, segs: Segment[]): number {
    let lo = 0;
    let hi = segs.length - 1;
    let ans = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (segs[mid]!.baseOffset <= offset) {
        ans = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return ans;
  }

  private async readFromSegment(seg: Segment, offset: number, maxBytes: number): Promise<Buffer | null> {
    const end = seg.size;
    let pos = seg.lookup(offset);
    if (pos >= end) return null;
    const lease = await this.files.acquire(seg.logPath);
    try {
      let winStart = pos;
      let win = await this.readAt(lease.handle, pos, Math.min(end - pos, maxBytes + 16 * 1024));
      // Find the first batch whose last offset is ≥ the fetch offset.
      for (;;) {
        if (pos >= end) return null;
        let rel = pos - winStart;
        if (rel + HEADER_SIZE > win.length) {
          winStart = pos;
          rel = 0;
          win = await this.readAt(lease.handle, pos, Math.min(end - pos, maxBytes + 16 * 1024));
        }
        const size = win.readInt32BE(rel + 8) + LOG_OVERHEAD;
        if (size < HEADER_SIZE || pos + size > end) {
          // Only possible if a closed segment was damaged on disk; never loop on it.
          throw new StorageError("KAFKA_STORAGE_ERROR", `corrupt batch length at ${seg.logPath}:${pos}`);
        }
        const last = Number(win.readBigInt64BE(rel)) + win.readInt32BE(rel + 23);
        if (last >= offset) break;
        pos += size;
      }
      // Take whole batches up to maxBytes, at least one.
      let rel = pos - winStart;
      const firstSize = win.readInt32BE(rel + 8) + LOG_OVERHEAD;
      const want = Math.min(end - pos, Math.max(firstSize, maxBytes));
      if (win.length - rel < want) {
        winStart = pos;
        rel = 0;
        win = await this.readAt(lease.handle, pos, want);
      }
      let take = firstSize;
      for (;;) {
        const next = rel + take;
        if (next + LOG_OVERHEAD > win.length) break;
        const s = win.readInt32BE(next + 8) + LOG_OVERHEAD;
        if (take + s > maxBytes || next + s > win.length) break;
        take += s;
      }
      if (rel + take > win.length) throw new StorageError("UNKNOWN_SERVER_ERROR", `short read in ${seg.logPath}`);
      return win.subarray(rel, rel + take);
    } finally {
      lease.release();
    }
  }

  private async readAt(h: FileHandle, pos: number, len: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(len);
    const n = await readFully(h, buf, pos);
    return n === len ? buf : buf.subarray(0, n);
  }

  // ------------------------------------------------------------- timestamps

  /** First offset whose record timestamp is ≥ ts (ListOffsets); null when none. */
  async offsetForTimestamp(ts: bigint): Promise<TimestampAndOffset | null> {
    this.ensureUsable();
    const target = Number(ts);
    if (this.tier && this.tier.highestOffset() >= this.lso) {
      const hit = await this.tier.offsetForTimestamp(target, this.lso);
      if (hit && hit.offset < Number(this.localLogStartOffset)) return { offset: BigInt(hit.offset), timestamp: BigInt(hit.timestamp) };
    }
    return this.gate.shared(async () => {
      for (const seg of this.segments) {
        if (seg.maxTimestamp < target || seg.nextOffset <= this.lso) continue;
        const from = Math.max(seg.timeLookup(target), this.lso);
        let hit: TimestampAndOffset | null = null;
        await seg.scan(seg.lookup(from), seg.size, true, (h, _pos, bytes) => {
          if (h.baseOffset + h.lastOffsetDelta < from || h.maxTimestamp < target || !bytes) return false;
          hit = this.firstRecordAtOrAfter(h, bytes, target, from);
          return hit !== null;
        });
        if (hit) return hit;
      }
      return null;
    });
  }

  private firstRecordAtOrAfter(h: BatchHeader, bytes: Buffer, ts: number, minOffset: number): TimestampAndOffset | null {
    if ((h.attributes & ATTR_LOG_APPEND_TIME) !== 0) {
      return { offset: BigInt(Math.max(h.baseOffset, minOffset)), timestamp: BigInt(h.maxTimestamp) };
    }
    let records;
    try {
      records = decodeRecords(bytes);
    } catch (err) {
      if (!(err instanceof UnsupportedCompressionError)) throw err;
      // Cannot look inside snappy/lz4/zstd: answer at batch granularity.
      return { offset: BigInt(Math.max(h.baseOffset, minOffset)), timestamp: BigInt(h.maxTimestamp) };
    }
    for (const r of records) {
      const off = h.baseOffset + r.offsetDelta;
      const rts = h.baseTimestamp + r.timestampDelta;
      if (off >= minOffset && rts >= ts) return { offset: BigInt(off), timestamp: BigInt(rts) };
    }
    return null;
  }

  /** The record with the largest timestamp (ListOffsets MAX_TIMESTAMP, −3); null when empty. */
  async maxTimestampOffset(): Promise<TimestampAndOffset | null> {
    this.ensureUsable();
    let best: Segment | null = null;
    for (const seg of this.segments) {
      if (seg.nextOffset <= this.lso || seg.maxTimestamp < 0) continue;
      if (!best || seg.maxTimestamp > best.maxTimestamp) best = seg;
    }
    if (this.tier && this.tier.highestOffset() >= this.lso) {
      const remote = await this.tier.maxTimestamp(this.lso);
      // Ties go to the earlier (remote) record, as Kafka returns the first record with the max timestamp.
      if (remote && (!best || remote.timestamp >= best.maxTimestamp)) {
        return { offset: BigInt(remote.offset), timestamp: BigInt(remote.timestamp) };
      }
    }
    if (!best) return null;
    const seg = best;
    const maxTs = seg.maxTimestamp;
    // The index remembers the batch; find the exact record inside it (KAFKA-16310).
    return this.gate.shared(async () => {
      let hit: TimestampAndOffset | null = null;
      await seg.scan(seg.lookup(seg.offsetOfMaxTimestamp), seg.size, true, (h, _pos, bytes) => {
        if (h.maxTimestamp !== maxTs || !bytes) return false;
        hit = this.firstRecordAtOrAfter(h, bytes, maxTs, this.lso);
        return hit !== null;
      });
      return hit ?? { offset: BigInt(seg.offsetOfMaxTimestamp), timestamp: BigInt(maxTs) };
    });
  }

  // -------------------------------------------------------------- deletion

  /** DeleteRecords: moves the log start offset up to `offset` (≤ HW) durably. */
  async deleteRecordsBefore(offset: bigint): Promise<bigint> {
    this.ensureUsable();
    const target = Number(offset);
    if (target > this.leo || target < 0) {
      throw new StorageError("OFFSET_OUT_OF_RANGE", `cannot delete records before ${target}: high watermark is ${this.leo}`);
    }
    await this.maintenance.run(async () => {
      if (target > this.lso) {
        await this.persistLso(target);
        this.lso = target;
      }
      await this.deleteSegmentsBelowLso();
    });
    return BigInt(this.lso);
  }

  private async deleteSegmentsBelowLso(): Promise<void> {
    const doomed: Segment[] = [];
    while (this.segments.length - doomed.length > 1 && this.segments[doomed.length + 1]!.baseOffset <= this.lso) {
      doomed.push(this.segments[doomed.length]!);
    }
    if (doomed.length === 0) return;
    await this.gate.exclusive(async () => {
      this.segments = this.segments.slice(doomed.length);
    });
    for (const s of doomed) await s.deleteFiles();
  }

  /**
   * Deletes whole closed segments by retention.ms and retention.bytes (when
   * cleanup.policy includes delete). Returns the number of segments deleted.
   */
  async runRetention(now = this.clock()): Promise<number> {
    this.ensureUsable();
    if (!this.config.deleteRetention) return 0;
    if (this.remoteStorageEnabled) return this.runLocalRetention(now);
    return this.maintenance.run(async () => {
      const cfg = this.config;
      const expired = (s: Segment): boolean =>
        cfg.retentionMs >= 0 && now - (s.maxTimestamp >= 0 ? s.maxTimestamp : s.createdMs) > cfg.retentionMs;
      // Kafka rolls an expired active segment so that retention can reach it.
      await this.writer.run(async () => {
        if (this.active.size > 0 && this.segments.every(expired)) await this.roll();
      });

      let count = 0;
      while (count < this.segments.length - 1 && expired(this.segments[count]!)) count++;
      if (cfg.retentionBytes >= 0) {
        let diff = this.size - cfg.retentionBytes;
        let i = 0;
        while (i < this.segments.length - 1 && diff - this.segments[i]!.size >= 0) {
          diff -= this.segments[i]!.size;
          i++;
        }
        count = Math.max(count, i);
      }
      if (count === 0) return 0;
      const newLso = Math.max(this.lso, this.segments[count]!.baseOffset);
      if (newLso > this.lso) {
        await this.persistLso(newLso);
        this.lso = newLso;
      }
      const before = this.segments.length;
      await this.deleteSegmentsBelowLso();
      return before - this.segments.length;
    });
  }

  /**
   * Local retention of a tiered partition (KIP-405): deletes the oldest local
   * segments that are both copied to remote storage and past
   * local.retention.ms / local.retention.bytes. Only the local log start
   * offset moves; the data stays readable from remote storage, and total
   * retention (retention.ms / retention.bytes) is applied to remote segments
   * by the remote log manager, which moves the log start offset.
   */
  async runLocalRetention(now = this.clock()): Promise<number> {
    this.ensureUsable();
    const tier = this.tier;
    if (!tier || !this.config.remoteStorageEnable) return 0;
    return this.maintenance.run(async () => {
      const cfg = this.config;
      const expired = (s: Segment): boolean =>
        cfg.localRetentionMs >= 0 && now - (s.maxTimestamp >= 0 ? s.maxTimestamp : s.createdMs) > cfg.localRetentionMs;
      // Roll an idle, expired active segment so that it can be copied and then leave local disk.
      await this.writer.run(async () => {
        if (this.active.size > 0 && this.segments.every(expired)) await this.roll();
      });
      const copiedUpTo = tier.highestOffset();
      const copied = (i: number): boolean => i < this.segments.length - 1 && this.segments[i]!.nextOffset - 1 <= copiedUpTo;
      let count = 0;
      while (copied(count) && expired(this.segments[count]!)) count++;
      if (cfg.localRetentionBytes >= 0) {
        let diff = this.size - cfg.localRetentionBytes;
        let i = 0;
        while (copied(i) && diff - this.segments[i]!.size >= 0) {
          diff -= this.segments[i]!.size;
          i++;
        }
        count = Math.max(count, i);
      }
      if (count === 0) return 0;
      const doomed = this.segments.slice(0, count);
      await this.gate.exclusive(async () => {
        this.segments = this.segments.slice(count);
      });
      for (const seg of doomed) await seg.deleteFiles();
      await fsyncDir(this.dir);
      return count;
    });
  }

  // ------------------------------------------------------------- compaction

  /**
   * Compacts the closed segments (cleanup.policy includes compact): keeps the
   * latest record per key, drops tombstones older than delete.retention.ms.
   * Offsets are preserved; each segment is rewritten to `.cleaned`, fsynced,
   * renamed to `.swap` and then over the `.log`, so a crash at any point
   * leaves either the old or the new segment. Returns records removed.
   */
  async compact(now = this.clock()): Promise<number> {
    this.ensureUsable();
    if (!this.config.compact) return 0;
    return this.maintenance.run(() => this.compactClosedSegments(now));
  }

  private async compactClosedSegments(now: number): Promise<number> {
    const closed = this.segments.slice(0, -1);
    if (closed.length === 0) return 0;

    // Pass 1: latest offset per key over the closed segments (keys by digest to bound memory).
    const latest = new Map<string, number>();
    const digest = (k: Buffer): string => createHash("sha1").update(k).digest().toString("latin1");
    for (const seg of closed) {
      await this.gate.shared(() =>
        seg.scan(0, seg.size, true, (h, _pos, bytes) => {
          if (!bytes || (h.attributes & ATTR_CONTROL) !== 0) return;
          let recs;
          try {
            recs = decodeRecords(bytes);
          } catch (err) {
            if (err instanceof UnsupportedCompressionError) return;
            throw err;
          }
          for (const r of recs) if (r.key) latest.set(digest(r.key), h.baseOffset + r.offsetDelta);
        }),
      );
    }

    // Pass 2: rewrite each segment that loses records.
    let removed = 0;
    const horizon = now - this.config.deleteRetentionMs;
    for (const seg of closed) {
      const cleanedPath = `${seg.logPath}.cleaned`;
      const swapPath = `${seg.logPath}.swap`;
      const out = await open(cleanedPath, "w");
      let changed = false;
      let position = 0;
      try {
        await this.gate.shared(() =>
          seg.scan(0, seg.size, true, async (h, _pos, bytes) => {
            if (!bytes) return;
            let batch = bytes;
            if ((h.attributes & ATTR_CONTROL) === 0) {
              let recs;
              try {
                recs = decodeRecords(bytes);
              } catch (err) {
                if (!(err instanceof UnsupportedCompressionError)) throw err;
                recs = null; // kept as is
              }
              if (recs) {
                const logAppend = (h.attributes & ATTR_LOG_APPEND_TIME) !== 0;
                const keep = recs.filter((r) => {
                  if (!r.key) return true;
                  if (latest.get(digest(r.key)) !== h.baseOffset + r.offsetDelta) return false;
                  const ts = logAppend ? h.maxTimestamp : h.baseTimestamp + r.timestampDelta;
                  return r.value !== null || ts >= horizon;
                });
                if (keep.length !== recs.length) {
                  changed = true;
                  removed += recs.length - keep.length;
                  if (keep.length === 0) return;
                  batch = rebuildBatch(bytes, keep);
                }
              }
            }
            await writevFully(out, [batch], position);
            position += batch.length;
          }),
        );
        await out.sync();
      } finally {
        await out.close();
      }
      if (!changed) {
        await rm(cleanedPath, { force: true });
        continue;
      }
      await rename(cleanedPath, swapPath);
      await fsyncDir(this.dir);
      await this.gate.exclusive(async () => {
        await rm(seg.indexPath, { force: true });
        await rm(seg.timeIndexPath, { force: true });
        this.files.retire(seg.logPath);
        await rename(swapPath, seg.logPath);
        await fsyncDir(this.dir);
        const { segment } = await Segment.open(this.dir, seg.baseOffset, this.files, this.config.indexIntervalBytes, true);
        await segment.writeIndexes();
        this.segments = this.segments.map((s) => (s === seg ? segment : s));
      });
    }
    return removed;
  }

  // ------------------------------------------------------------------ close

  /** Flushes, writes the active segment's indexes and a producer snapshot. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    if (!this.failure) {
      await this.writer.run(async () => undefined);
      await this.waitFlushed(this.leo);
      await this.writer.run(async () => {
        await this.active.writeIndexes();
        await this.writeProducerSnapshot(this.leo);
      });
    }
    this.closed = true;
    for (const s of this.segments) this.files.retire(s.logPath);
  }

  /** Closes and removes the partition directory (topic deletion). */
  async deleteAll(): Promise<void> {
    this.closed = true;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    await this.writer.run(async () => undefined);
    for (const s of this.segments) this.files.retire(s.logPath);
    await rm(this.dir, { recursive: true, force: true });
  }
}

