/**
 * Tiered storage for the single-node broker (Apache Kafka's RemoteLogManager,
 * KIP-405): a background task copies each closed segment of a topic with
 * remote.storage.enable=true to the object store, records where it went in
 * the remote-log metadata journal, applies total retention to remote
 * segments, and triggers local retention; reads below the local log start
 * offset are served from the store through a bounded LRU cache of chunks.
 *
 * Crash protocol (why nothing is lost and no orphan becomes visible):
 *  1. COPY_SEGMENT_STARTED is journaled (fsynced) before any upload.
 *  2. The `.log`, `.index` and `.timeindex` objects are uploaded; each put
 *     is atomic and durable.
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
import { join } from "node:path";
import { ATTR_LOG_APPEND_TIME, HEADER_SIZE, LOG_OVERHEAD, UnsupportedCompressionError, decodeRecords, readHeader } from "../batch.ts";
import type { PartitionLog } from "../partition-log.ts";
import type { Segment } from "../segment.ts";
import { segmentName } from "../segment.ts";
import { RemoteLogMetadataStore, type RemoteSegmentMetadata } from "./remote-log-metadata.ts";
import type { RemoteStorage } from "./remote-storage.ts";
import type { PartitionTier, RemoteTimestampAndOffset } from "./types.ts";

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

interface ParsedIndexes {
  offsets: number[];
  positions: number[];
  timestamps: number[];
  timeOffsets: number[];
  bytes: number;
}

const OBJECT_NAME = /^(\d{20})-([0-9a-f-]{36})\.(log|index|timeindex)$/;

function partitionPrefix(topic: string, partition: number, topicId: string): string {
  return `${topic}-${partition}-${topicId}`;
}

/** Object key of one file of a remote segment, as in Kafka's LocalTieredStorage: `<topic>-<p>-<topicId>/<base>-<id>.<ext>`. */
export function remoteObjectKey(m: Pick<RemoteSegmentMetadata, "topic" | "partition" | "topicId" | "baseOffset" | "id">, ext: "log" | "index" | "timeindex"): string {
  return `${partitionPrefix(m.topic, m.partition, m.topicId)}/${segmentName(m.baseOffset)}-${m.id}.${ext}`;
}

function pkey(topicId: string, partition: number): string {
  return `${topicId}:${partition}`;
}

/** Byte-bounded LRU (Map iteration order is insertion order; a hit re-inserts). */
class LruCache<V> {
  private readonly map = new Map<string, { value: V; bytes: number }>();
  private total = 0;
  hits = 0;
  misses = 0;
  constructor(private readonly maxBytes: number) {}

  get(key: string): V | undefined {
    const e = this.map.get(key);
    if (!e) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.map.delete(key);
    this.map.set(key, e);
    return e.value;
  }

  set(key: string, value: V, bytes: number): void {
    const old = this.map.get(key);
    if (old) {
      this.total -= old.bytes;
      this.map.delete(key);
    }
    if (bytes > this.maxBytes) return;
    this.map.set(key, { value, bytes });
    this.total += bytes;
    for (const [k, e] of this.map) {
      if (this.total <= this.maxBytes) break;
      this.map.delete(k);
      this.total -= e.bytes;
    }
  }

  deleteWhere(pred: (key: string) => boolean): void {
    for (const [k, e] of this.map) {
      if (!pred(k)) continue;
      this.map.delete(k);
      this.total -= e.bytes;
    }
  }

  get size(): number {
    return this.total;
  }
}

export class RemoteLogManager {
  readonly storage: RemoteStorage;
  private readonly taskIntervalMs: number;
  private readonly chunkBytes: number;
  private readonly cache: LruCache<Buffer | ParsedIndexes>;
  private readonly inflight = new Map<string, Promise<Buffer | ParsedIndexes>>();
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
    this.cache = new LruCache(opts.cacheBytes ?? 64 * 1024 * 1024);
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
      const id = OBJECT_NAME.exec(name)?.[2];
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
    return { bytes: this.cache.size, hits: this.cache.hits, misses: this.cache.misses };
  }

  /** The tier a PartitionLog reads through. */
  tierFor(topicId: string, partition: number): PartitionTier {
    return {
      earliestOffset: () => this.segmentsOf(topicId, partition)[0]?.baseOffset ?? null,
      highestOffset: () => {
        const segs = this.segmentsOf(topicId, partition);
        return segs.length === 0 ? -1 : segs[segs.length - 1]!.endOffset;
      },
      read: (offset, maxBytes) => this.read(this.segmentsOf(topicId, partition), offset, maxBytes),
      offsetForTimestamp: (ts, minOffset) => this.offsetForTimestamp(this.segmentsOf(topicId, partition), ts, minOffset),
      maxTimestamp: (minOffset) => this.maxTimestamp(this.segmentsOf(topicId, partition), minOffset),
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
      state: "COPY_SEGMENT_STARTED",
      eventTimestamp: this.clock(),
    };
    await this.metadata.update(started);
    try {
      const { index, timeIndex } = seg.indexBytes();
      await this.storage.put(remoteObjectKey(started, "log"), seg.readChunks(this.chunkBytes));
      await this.storage.put(remoteObjectKey(started, "index"), index);
      await this.storage.put(remoteObjectKey(started, "timeindex"), timeIndex);
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
    const logKey = remoteObjectKey(rec, "log");
    this.cache.deleteWhere((k) => k.startsWith(logKey) || k === `idx:${rec.id}`);
    await this.metadata.update({ ...rec, state: "DELETE_SEGMENT_FINISHED", eventTimestamp: this.clock() });
    this.rebuildIndex();
  }

  /** Deletes every remote segment of a deleted topic (also retried by each pass and on open). */
  async deleteTopicData(topicId: string): Promise<void> {
    for (const r of this.metadata.all()) if (r.topicId === topicId) await this.deleteSegment(r);
  }

  // ----------------------------------------------------------------- reads

  private static find(segs: readonly RemoteSegmentMetadata[], offset: number): RemoteSegmentMetadata | undefined {
    let lo = 0;
    let hi = segs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const s = segs[mid]!;
      if (offset < s.baseOffset) hi = mid - 1;
      else if (offset > s.endOffset) lo = mid + 1;
      else return s;
    }
    return undefined;
  }

  private cached<V extends Buffer | ParsedIndexes>(key: string, load: () => Promise<{ value: V; bytes: number }>): Promise<V> {
    const hit = this.cache.get(key);
    if (hit !== undefined) return Promise.resolve(hit as V);
    const pending = this.inflight.get(key);
    if (pending) return pending as Promise<V>;
    const p = load().then(
      ({ value, bytes }) => {
        this.cache.set(key, value, bytes);
        this.inflight.delete(key);
        return value;
      },
      (err: unknown) => {
        this.inflight.delete(key);
        throw err;
      },
    );
    this.inflight.set(key, p);
    return p;
  }

  private indexes(seg: RemoteSegmentMetadata): Promise<ParsedIndexes> {
    return this.cached(`idx:${seg.id}`, async () => {
      const [idx, tidx] = await Promise.all([this.storage.get(remoteObjectKey(seg, "index")), this.storage.get(remoteObjectKey(seg, "timeindex"))]);
      const parsed: ParsedIndexes = { offsets: [], positions: [], timestamps: [], timeOffsets: [], bytes: idx.length * 2 + tidx.length * 2 };
      for (let p = 0; p + 8 <= idx.length; p += 8) {
        parsed.offsets.push(seg.baseOffset + idx.readInt32BE(p));
        parsed.positions.push(idx.readInt32BE(p + 4));
      }
      for (let p = 0; p + 12 <= tidx.length; p += 12) {
        parsed.timestamps.push(Number(tidx.readBigInt64BE(p)));
        parsed.timeOffsets.push(seg.baseOffset + tidx.readInt32BE(p + 8));
      }
      return { value: parsed, bytes: parsed.bytes };
    });
  }

  /** Bytes [start, start+len) of a segment's `.log` object, assembled from cached chunks. */
  private async bytes(seg: RemoteSegmentMetadata, start: number, len: number): Promise<Buffer> {
    const key = remoteObjectKey(seg, "log");
    const first = Math.floor(start / this.chunkBytes);
    const last = Math.floor((start + len - 1) / this.chunkBytes);
    const parts: Buffer[] = [];
    for (let c = first; c <= last; c++) {
      const chunkStart = c * this.chunkBytes;
      const chunk = await this.cached(`${key}#${c}`, async () => {
        const b = await this.storage.getRange(key, chunkStart, Math.min(this.chunkBytes, seg.size - chunkStart));
        return { value: b, bytes: b.length };
      });
      const from = Math.max(start, chunkStart) - chunkStart;
      const to = Math.min(start + len, chunkStart + chunk.length) - chunkStart;
      parts.push(chunk.subarray(from, to));
    }
    const out = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    if (out.length !== len) throw new Error(`remote object ${key} is shorter than its recorded size ${seg.size}`);
    return out;
  }

  private static lookup(keys: readonly number[], values: readonly number[], target: number, fallback: number): number {
    let lo = 0;
    let hi = keys.length - 1;
    let ans = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid]! <= target) {
        ans = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return ans < 0 ? fallback : values[ans]!;
  }

  /** Position and size of the first batch whose last offset is ≥ offset, or null past the end. */
  private async findBatch(seg: RemoteSegmentMetadata, offset: number): Promise<{ pos: number; size: number } | null> {
    const idx = await this.indexes(seg);
    let pos = RemoteLogManager.lookup(idx.offsets, idx.positions, offset, 0);
    while (pos < seg.size) {
      const h = await this.bytes(seg, pos, Math.min(HEADER_SIZE, seg.size - pos));
      if (h.length < HEADER_SIZE) throw new Error(`truncated batch header in remote segment ${seg.id} at ${pos}`);
      const size = h.readInt32BE(8) + LOG_OVERHEAD;
      if (size < HEADER_SIZE || pos + size > seg.size) throw new Error(`corrupt batch length in remote segment ${seg.id} at ${pos}`);
      const last = Number(h.readBigInt64BE(0)) + h.readInt32BE(23);
      if (last >= offset) return { pos, size };
      pos += size;
    }
    return null;
  }

  private async read(segs: readonly RemoteSegmentMetadata[], offset: number, maxBytes: number): Promise<Buffer | null> {
    const seg = RemoteLogManager.find(segs, offset);
    if (!seg) return null;
    const first = await this.findBatch(seg, offset);
    if (!first) return null;
    // Whole batches, at least one (KIP-74), as the local read does.
    let end = first.pos + first.size;
    while (end + HEADER_SIZE <= seg.size) {
      const h = await this.bytes(seg, end, LOG_OVERHEAD);
      const size = h.readInt32BE(8) + LOG_OVERHEAD;
      if (end + size - first.pos > maxBytes || end + size > seg.size) break;
      end += size;
    }
    return this.bytes(seg, first.pos, end - first.pos);
  }

  private static firstRecordAtOrAfter(batch: Buffer, ts: number, minOffset: number): RemoteTimestampAndOffset | null {
    const h = readHeader(batch, 0);
    if ((h.attributes & ATTR_LOG_APPEND_TIME) !== 0) return { offset: Math.max(h.baseOffset, minOffset), timestamp: h.maxTimestamp };
    let records;
    try {
      records = decodeRecords(batch);
    } catch (err) {
      if (!(err instanceof UnsupportedCompressionError)) throw err;
      return { offset: Math.max(h.baseOffset, minOffset), timestamp: h.maxTimestamp };
    }
    for (const r of records) {
      const off = h.baseOffset + r.offsetDelta;
      const rts = h.baseTimestamp + r.timestampDelta;
      if (off >= minOffset && rts >= ts) return { offset: off, timestamp: rts };
    }
    return null;
  }

  private async offsetForTimestamp(segs: readonly RemoteSegmentMetadata[], ts: number, minOffset: number): Promise<RemoteTimestampAndOffset | null> {
    for (const seg of segs) {
      if (seg.endOffset < minOffset || seg.maxTimestamp < ts) continue;
      const idx = await this.indexes(seg);
      // Every record before a time-index entry's offset has a timestamp ≤ the entry's: start at the last entry below ts.
      let startOffset = seg.baseOffset;
      for (let i = 0; i < idx.timestamps.length && idx.timestamps[i]! < ts; i++) startOffset = idx.timeOffsets[i]!;
      let from = Math.max(startOffset, minOffset, seg.baseOffset);
      let loc = await this.findBatch(seg, from);
      while (loc) {
        const batch = await this.bytes(seg, loc.pos, loc.size);
        const h = readHeader(batch, 0);
        if (h.maxTimestamp >= ts) {
          const hit = RemoteLogManager.firstRecordAtOrAfter(batch, ts, from);
          if (hit) return hit;
        }
        from = h.baseOffset + h.lastOffsetDelta + 1;
        const next = loc.pos + loc.size;
        loc = next < seg.size ? { pos: next, size: (await this.bytes(seg, next, LOG_OVERHEAD)).readInt32BE(8) + LOG_OVERHEAD } : null;
      }
    }
    return null;
  }

  private async maxTimestamp(segs: readonly RemoteSegmentMetadata[], minOffset: number): Promise<RemoteTimestampAndOffset | null> {
    let best: RemoteSegmentMetadata | null = null;
    for (const s of segs) {
      if (s.endOffset < minOffset || s.maxTimestamp < 0) continue;
      if (!best || s.maxTimestamp > best.maxTimestamp) best = s;
    }
    if (!best) return null;
    // The segment remembers the batch; find the exact record inside it (KAFKA-16310).
    const loc = await this.findBatch(best, Math.max(best.offsetOfMaxTimestamp, minOffset));
    if (loc) {
      const hit = RemoteLogManager.firstRecordAtOrAfter(await this.bytes(best, loc.pos, loc.size), best.maxTimestamp, minOffset);
      if (hit) return hit;
    }
    return { offset: best.offsetOfMaxTimestamp, timestamp: best.maxTimestamp };
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

/** Default remote folder for a data dir: a sibling named `<dir>-remote` (`.data/kafka` → `.data/kafka-remote`). */
export function defaultRemoteDir(dataDir: string): string {
  const trimmed = dataDir.replace(/[\\/]+$/, "");
  return join(trimmed, "..", `${trimmed.slice(Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\")) + 1)}-remote`);
}
