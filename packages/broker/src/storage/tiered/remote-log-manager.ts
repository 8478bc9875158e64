/**
 * Tiered storage for the single-node broker (Apache Kafka's RemoteLogManager,
 * KIP-405): a background task copies each closed segment of a topic with
 * remote.storage.enable=true to the object store, records where it went in
 * the remote-log metadata journal, applies total retention to remote
 * segments, and triggers local retention; reads below the local log start
 * offset are served from the store by remote-segment-reader.ts.
 *
 * Crash protocol (why nothing is lost and no orphan becomes visible):
 *  1. COPY_SEGMENT_STARTED is journaled (fsynced) before any upload.
 *  2. The `.log`, `.index` and `.timeindex` objects (and `.txnindex` when
 *     the segment has aborted transactions) are uploaded; each put is
 *     atomic and durable. Only segments below the last stable offset are
 *     copied (as Kafka), so a remote segment's transactions are all decided.
 *  3. COPY_SEGMENT_FINISHED is journaled. Only now is the segment readable
 *     and counted in highestOffset(), and only segments at or below
 *     highestOffset() may leave local disk (PartitionLog.runLocalRetention).
 *  A crash before 3 leaves the local segment in place; on open the STARTED
 *  record's objects are deleted and the record dropped, and the segment is
 *  copied again under a new id. A crash after 3 but before the local delete
 *  just means local retention deletes it on a later pass.
 *  Remote deletion: the log start offset is persisted first (clients stop
 *  asking for those offsets), then DELETE_SEGMENT_STARTED, the objects are
 *  deleted, then DELETE_SEGMENT_FINISHED; an interrupted deletion is finished
 *  on open. Finally every object whose segment id is not a live FINISHED
 *  record (e.g. a journal entry lost with a torn tail) is deleted on open.
 */
import { randomUUID } from "node:crypto";
import type { PartitionLog } from "../partition-log.ts";
import type { Segment } from "../segment.ts";
import { RemoteLogMetadataStore, type RemoteSegmentMetadata } from "./remote-log-metadata.ts";
import { REMOTE_OBJECT_NAME, remoteObjectKey } from "./remote-object-keys.ts";
import { RemoteSegmentReader } from "./remote-segment-reader.ts";
import type { RemoteStorage } from "./remote-storage.ts";
import type { PartitionTier } from "./types.ts";

export interface RemoteLogManagerOptions {
  storage: RemoteStorage;
  /** remote.log.manager.task.interval.ms: how often closed segments are copied and retention applied. */
  taskIntervalMs?: number;
  /** Upper bound on cached remote bytes (chunks of `.log` objects plus parsed indexes). */
  cacheBytes?: number;
  /** Size of one cached chunk of a remote `.log` object. */
  chunkBytes?: number;
  /** Where background failures and progress are reported (default: stderr). */
  log?: (level: "info" | "warn" | "error", message: string) => void;
}

export interface RemotePartitionStats {
  /** Sum of the `.log` object sizes of readable remote segments. */
  bytes: number;
  segments: number;
}


function pkey(topicId: string, partition: number): string {
  return `${topicId}:${partition}`;
}

export class RemoteLogManager {
  readonly storage: RemoteStorage;
  private readonly taskIntervalMs: number;
  private readonly chunkBytes: number;
  private readonly reader: RemoteSegmentReader;
  /** Readable (COPY_SEGMENT_FINISHED) segments per partition, sorted by base offset. */
  private readonly finished = new Map<string, RemoteSegmentMetadata[]>();
  private readonly log: (level: "info" | "warn" | "error", message: string) => void;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  /** Segments copied and deleted since open (for tests and logs). */
  readonly counters = { copied: 0, deleted: 0, recoveredCopies: 0, orphansDeleted: 0 };

  private constructor(
    private readonly metadata: RemoteLogMetadataStore,
    opts: RemoteLogManagerOptions,
    private readonly clock: () => number,
  ) {
    this.storage = opts.storage;
    this.taskIntervalMs = opts.taskIntervalMs ?? 30_000;
    this.chunkBytes = opts.chunkBytes ?? 1024 * 1024;
    this.reader = new RemoteSegmentReader(this.storage, opts.cacheBytes ?? 64 * 1024 * 1024, this.chunkBytes);
    this.log = opts.log ?? ((level, m) => process.stderr.write(`${new Date().toISOString()} kappa-broker tiered ${level.toUpperCase()} ${m}\n`));
    this.rebuildIndex();
  }

  /**
   * Opens the metadata journal in `metaDir` and brings the store in line
   * with it: interrupted copies and deletions are undone/finished, segments
   * of topics that no longer exist are deleted, and objects that no FINISHED
   * record points to are removed. `liveTopicIds` are the current topics' ids.
   */
  static async open(metaDir: string, liveTopicIds: ReadonlySet<string>, opts: RemoteLogManagerOptions, clock: () => number = Date.now): Promise<RemoteLogManager> {
    const metadata = await RemoteLogMetadataStore.open(metaDir);
    const m = new RemoteLogManager(metadata, opts, clock);
    try {
      await m.recover(liveTopicIds);
    } catch (err) {
      await metadata.close();
      throw err;
    }
    return m;
  }

  private async recover(liveTopicIds: ReadonlySet<string>): Promise<void> {
    for (const rec of this.metadata.all()) {
      if (rec.state === "COPY_SEGMENT_STARTED") {
        this.counters.recoveredCopies++;
        this.log("info", `removing interrupted copy of ${rec.topic}-${rec.partition} segment ${rec.baseOffset} (${rec.id})`);
        await this.deleteObjectsAndRecord(rec);
      } else if (rec.state === "DELETE_SEGMENT_STARTED" || !liveTopicIds.has(rec.topicId)) {
        await this.deleteSegment(rec);
      }
    }
    const live = new Set(this.metadata.all().map((r) => r.id));
    for (const key of await this.storage.list("")) {
      const name = key.slice(key.lastIndexOf("/") + 1);
      const id = REMOTE_OBJECT_NAME.exec(name)?.[2];
      if (id !== undefined && live.has(id)) continue;
      this.counters.orphansDeleted++;
      this.log("warn", `deleting remote object ${key}: no finished segment record refers to it`);
      await this.storage.delete(key);
    }
    this.rebuildIndex();
  }

  private rebuildIndex(): void {
    this.finished.clear();
    for (const r of this.metadata.all()) {
      if (r.state !== "COPY_SEGMENT_FINISHED") continue;
      const k = pkey(r.topicId, r.partition);
      let list = this.finished.get(k);
      if (!list) this.finished.set(k, (list = []));
      list.push(r);
    }
    for (const list of this.finished.values()) list.sort((a, b) => a.baseOffset - b.baseOffset);
  }

  private segmentsOf(topicId: string, partition: number): readonly RemoteSegmentMetadata[] {
    return this.finished.get(pkey(topicId, partition)) ?? [];
  }

  stats(topicId: string, partition: number): RemotePartitionStats {
    const segs = this.segmentsOf(topicId, partition);
    return { bytes: segs.reduce((n, s) => n + s.size, 0), segments: segs.length };
  }

  get cacheStats(): { bytes: number; hits: number; misses: number } {
    return this.reader.cacheStats;
  }

  /** The tier a PartitionLog reads through. */
  tierFor(topicId: string, partition: number): PartitionTier {
    return {
      earliestOffset: () => this.segmentsOf(topicId, partition)[0]?.baseOffset ?? null,
      highestOffset: () => {
        const segs = this.segmentsOf(topicId, partition);
        return segs.length === 0 ? -1 : segs[segs.length - 1]!.endOffset;
      },
      read: (offset, maxBytes) => this.reader.read(this.segmentsOf(topicId, partition), offset, maxBytes),
      offsetForTimestamp: (ts, minOffset) => this.reader.offsetForTimestamp(this.segmentsOf(topicId, partition), ts, minOffset),
      maxTimestamp: (minOffset) => this.reader.maxTimestamp(this.segmentsOf(topicId, partition), minOffset),
      txnIndexesFrom: (offset) => this.reader.txnIndexes(this.segmentsOf(topicId, partition).filter((s) => s.endOffset >= offset)),
    };
  }

  // ------------------------------------------------------------ background

  /** Starts the periodic task over `logs()` (every partition with its topic id). */
  start(logs: () => Array<{ log: PartitionLog; topicId: string }>, liveTopicIds: () => ReadonlySet<string>): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.runOnce(logs(), liveTopicIds())
        .catch((err: unknown) => this.log("error", `remote log task failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`))
        .finally(() => {
          this.running = null;
        });
    }, this.taskIntervalMs);
    this.timer.unref();
  }

  /**
   * One pass: copy closed segments, apply total retention to remote segments,
   * then local retention. A failure in one partition is reported and the pass
   * goes on with the others (the failed work is retried next pass).
   */
  async runOnce(logs: Array<{ log: PartitionLog; topicId: string }>, liveTopicIds: ReadonlySet<string>, now = this.clock()): Promise<void> {
    for (const r of this.metadata.all()) {
      if (this.closed) return;
      if (!liveTopicIds.has(r.topicId)) await this.deleteSegment(r);
    }
    for (const { log, topicId } of logs) {
      if (this.closed) return;
      if (log.failed) continue;
      try {
        if (log.remoteStorageEnabled) {
          await this.copyClosedSegments(log, topicId);
          await this.applyRetention(log, topicId, now);
          await log.runLocalRetention(now);
        } else if (this.segmentsOf(topicId, log.partition).length > 0) {
          await this.applyRetention(log, topicId, now);
        }
      } catch (err) {
        if (this.closed) return;
        this.log("error", `tiered storage of ${log.topic}-${log.partition}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      }
    }
  }

  private async copyClosedSegments(log: PartitionLog, topicId: string): Promise<void> {
    for (const seg of log.closedSegments()) {
      if (this.closed) return;
      const highest = this.tierFor(topicId, log.partition).highestOffset();
      if (seg.size === 0 || seg.nextOffset - 1 <= highest || seg.nextOffset <= Number(log.logStartOffset)) continue;
      // An open transaction's records (and its later marker) must not be split across the tiers undecided.
      if (seg.nextOffset > Number(log.lastStableOffset)) return;
      await this.copySegment(log, topicId, seg);
    }
  }

  private async copySegment(log: PartitionLog, topicId: string, seg: Segment): Promise<void> {
    const started: RemoteSegmentMetadata = {
      id: randomUUID(),
      topic: log.topic,
      topicId,
      partition: log.partition,
      baseOffset: seg.baseOffset,
      endOffset: seg.nextOffset - 1,
      maxTimestamp: seg.maxTimestamp,
      offsetOfMaxTimestamp: seg.offsetOfMaxTimestamp,
      size: seg.size,
      txnIndex: seg.txnIndex.size > 0,
      state: "COPY_SEGMENT_STARTED",
      eventTimestamp: this.clock(),
    };
    await this.metadata.update(started);
    try {
      const { index, timeIndex } = seg.indexBytes();
      await this.storage.put(remoteObjectKey(started, "log"), seg.readChunks(this.chunkBytes));
      await this.storage.put(remoteObjectKey(started, "index"), index);
      await this.storage.put(remoteObjectKey(started, "timeindex"), timeIndex);
      if (started.txnIndex) await this.storage.put(remoteObjectKey(started, "txnindex"), seg.txnIndex.encode());
    } catch (err) {
      // Leave nothing behind; the local segment is still there and is copied again next pass.
      await this.deleteObjectsAndRecord(started).catch((cleanupErr: unknown) =>
        this.log("error", `cleaning up failed copy ${started.id}: ${cleanupErr instanceof Error ? cleanupErr.message : String(cleanupErr)}`),
      );
      throw err;
    }
    await this.metadata.update({ ...started, state: "COPY_SEGMENT_FINISHED", eventTimestamp: this.clock() });
    this.rebuildIndex();
    this.counters.copied++;
  }

  /**
   * Total retention (retention.ms / retention.bytes) over remote segments, as
   * Kafka's RLMTask does: by the segment's newest timestamp, and by the size
   * of the whole log (remote segments plus local data not yet copied). Remote
   * segments wholly below the log start offset (DeleteRecords) go too.
   */
  private async applyRetention(log: PartitionLog, topicId: string, now: number): Promise<void> {
    const segs = [...this.segmentsOf(topicId, log.partition)];
    if (segs.length === 0) return;
    const cfg = log.logConfig;
    const lso = Number(log.logStartOffset);
    let count = 0;
    while (count < segs.length && segs[count]!.endOffset < lso) count++;
    if (cfg.deleteRetention && cfg.retentionMs >= 0) {
      while (count < segs.length && now - segs[count]!.maxTimestamp > cfg.retentionMs) count++;
    }
    if (cfg.deleteRetention && cfg.retentionBytes >= 0) {
      const highest = segs[segs.length - 1]!.endOffset;
      const bases = log.segmentBaseOffsets;
      const sizes = log.segmentSizes;
      let localOnly = 0;
      for (let i = 0; i < bases.length; i++) if (Number(bases[i]!) > highest) localOnly += sizes[i]!;
      let diff = segs.reduce((n, s) => n + s.size, 0) + localOnly - cfg.retentionBytes;
      let i = 0;
      while (i < segs.length && diff - segs[i]!.size >= 0) {
        diff -= segs[i]!.size;
        i++;
      }
      count = Math.max(count, i);
    }
    if (count === 0) return;
    const newLso = segs[count - 1]!.endOffset + 1;
    // Persist the new log start offset before any object goes, so no client is sent to a deleted segment.
    if (newLso > lso) await log.deleteRecordsBefore(BigInt(newLso));
    for (const s of segs.slice(0, count)) await this.deleteSegment(s);
    this.log("info", `retention deleted ${count} remote segment(s) of ${log.topic}-${log.partition}; log start offset ${log.logStartOffset}`);
  }

  private async deleteSegment(rec: RemoteSegmentMetadata): Promise<void> {
    if (rec.state !== "DELETE_SEGMENT_STARTED") {
      await this.metadata.update({ ...rec, state: "DELETE_SEGMENT_STARTED", eventTimestamp: this.clock() });
      this.rebuildIndex();
    }
    await this.deleteObjectsAndRecord(rec);
    this.counters.deleted++;
  }

  private async deleteObjectsAndRecord(rec: RemoteSegmentMetadata): Promise<void> {
    for (const ext of ["log", "index", "timeindex"] as const) await this.storage.delete(remoteObjectKey(rec, ext));
    // A STARTED record's flag says whether the upload may have begun; records from before transactions have none.
    if (rec.txnIndex) await this.storage.delete(remoteObjectKey(rec, "txnindex"));
    this.reader.forget(rec);
    await this.metadata.update({ ...rec, state: "DELETE_SEGMENT_FINISHED", eventTimestamp: this.clock() });
    this.rebuildIndex();
  }

  /** Deletes every remote segment of a deleted topic (also retried by each pass and on open). */
  async deleteTopicData(topicId: string): Promise<void> {
    for (const r of this.metadata.all()) if (r.topicId === topicId) await this.deleteSegment(r);
  }

  // ------------------------------------------------------------------ close

  /** Stops the task (waiting for a running pass) and closes the journal. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.closed = true;
    if (this.running) await this.running;
    await this.metadata.close();
  }
}
