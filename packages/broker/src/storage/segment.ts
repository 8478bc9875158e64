/**
 * One log segment: `<base>.log` (record batches back to back, exactly as
 * produced apart from the broker-assigned baseOffset), `<base>.index` (sparse
 * offset index: int32 offset relative to base, int32 file position) and
 * `<base>.timeindex` (int64 max timestamp so far, int32 relative offset) —
 * Kafka's formats. Base offsets are zero-padded to 20 digits.
 *
 * `<base>.txnindex` holds the aborted transactions whose marker is in the
 * segment (txn-index.ts; absent when there are none).
 *
 * Indexes live in memory while the segment is active and are written to disk
 * when it is rolled or the log is closed; after a crash they are rebuilt by
 * scanning the log, which is also how the log's tail is validated (the
 * transaction index by the producer-state replay, producer-snapshot.ts).
 */
import { readFile, rm, stat, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { HEADER_SIZE, LOG_OVERHEAD, batchCrcValid, readHeader, type BatchHeader } from "./batch.ts";
import { StorageError } from "./errors.ts";
import { readFully, writeEmpty, writeFileAtomic, type FileHandleCache } from "./files.ts";
import { TxnIndex } from "./txn-index.ts";

export function segmentName(baseOffset: number): string {
  return String(baseOffset).padStart(20, "0");
}

const SCAN_WINDOW = 256 * 1024;

export interface ScanResult {
  /** Position just after the last valid batch visited. */
  validEnd: number;
  /** False when scanning stopped at a partial, corrupt or out-of-order batch before `end`. */
  clean: boolean;
}

export class Segment {
  /** Bytes of whole, written batches. Readers never look past this. */
  size = 0;
  /** Offset after the last batch in this segment (baseOffset when empty). */
  nextOffset: number;
  maxTimestamp = -1;
  offsetOfMaxTimestamp = -1;
  /** Max timestamp of the first batch (Kafka's rollingBasedTimestamp), -1 if none. */
  firstBatchTimestamp = -1;
  createdMs: number;
  /** Aborted transactions whose ABORT marker is in this segment. */
  txnIndex = TxnIndex.empty();

  private idxOffsets: number[] = [];
  private idxPositions: number[] = [];
  private timeTs: number[] = [];
  private timeOffsets: number[] = [];
  private bytesSinceIndex = 0;

  constructor(
    readonly dir: string,
    readonly baseOffset: number,
    private readonly files: FileHandleCache,
    private readonly indexIntervalBytes: number,
    createdMs: number,
  ) {
    this.nextOffset = baseOffset;
    this.createdMs = createdMs;
  }

  get logPath(): string {
    return join(this.dir, `${segmentName(this.baseOffset)}.log`);
  }
  get indexPath(): string {
    return join(this.dir, `${segmentName(this.baseOffset)}.index`);
  }
  get timeIndexPath(): string {
    return join(this.dir, `${segmentName(this.baseOffset)}.timeindex`);
  }
  get txnIndexPath(): string {
    return join(this.dir, `${segmentName(this.baseOffset)}.txnindex`);
  }

  static async create(
    dir: string,
    baseOffset: number,
    files: FileHandleCache,
    indexIntervalBytes: number,
    now: number,
  ): Promise<Segment> {
    const seg = new Segment(dir, baseOffset, files, indexIntervalBytes, now);
    await writeEmpty(seg.logPath);
    return seg;
  }

  /**
   * Opens an existing segment. With `recover`, every batch is read and
   * CRC-checked and the file is truncated after the last good one; otherwise
   * the index files are trusted if consistent and only the tail after the
   * last index entry is scanned (for nextOffset and the final timestamps).
   */
  static async open(
    dir: string,
    baseOffset: number,
    files: FileHandleCache,
    indexIntervalBytes: number,
    recover: boolean,
  ): Promise<{ segment: Segment; truncatedBytes: number }> {
    const seg = new Segment(dir, baseOffset, files, indexIntervalBytes, 0);
    const st = await stat(seg.logPath);
    seg.createdMs = st.mtimeMs;
    const fileSize = st.size;
    let truncatedBytes = 0;
    if (!recover && (await seg.loadIndexes(fileSize))) {
      const from = seg.idxPositions.length > 0 ? seg.idxPositions[seg.idxPositions.length - 1]! : 0;
      // Re-add the entries for the tail as the scan walks it.
      if (seg.idxPositions.length > 0) {
        seg.idxPositions.pop();
        seg.idxOffsets.pop();
      }
      seg.bytesSinceIndex = seg.indexIntervalBytes; // force an entry at `from`
      const res = await seg.scan(from, fileSize, false, (h, pos) => seg.trackBatch(h, pos));
      if (res.clean) {
        seg.size = fileSize;
        await seg.recomputeFirstTimestamp();
        await seg.loadTxnIndex();
        return { segment: seg, truncatedBytes };
      }
      // Inconsistent tail: fall through to a full recovery scan.
    }
    seg.resetIndexes();
    const res = await seg.scan(0, fileSize, true, (h, pos) => seg.trackBatch(h, pos));
    seg.size = res.validEnd;
    if (res.validEnd < fileSize) {
      truncatedBytes = fileSize - res.validEnd;
      const lease = await files.acquire(seg.logPath);
      try {
        await lease.handle.truncate(res.validEnd);
        await lease.handle.sync();
      } finally {
        lease.release();
      }
    }
    await seg.recomputeFirstTimestamp();
    await seg.loadTxnIndex();
    return { segment: seg, truncatedBytes };
  }

  /** Entries past a truncated tail are dropped: their markers are gone. */
  private async loadTxnIndex(): Promise<void> {
    this.txnIndex = await TxnIndex.load(this.txnIndexPath);
    this.txnIndex.truncateTo(this.nextOffset);
  }

  private resetIndexes(): void {
    this.idxOffsets = [];
    this.idxPositions = [];
    this.timeTs = [];
    this.timeOffsets = [];
    this.bytesSinceIndex = 0;
    this.maxTimestamp = -1;
    this.offsetOfMaxTimestamp = -1;
    this.nextOffset = this.baseOffset;
  }

  private async recomputeFirstTimestamp(): Promise<void> {
    this.firstBatchTimestamp = -1;
    if (this.size === 0) return;
    const lease = await this.files.acquire(this.logPath);
    try {
      const b = Buffer.allocUnsafe(HEADER_SIZE);
      if ((await readFully(lease.handle, b, 0)) === HEADER_SIZE) this.firstBatchTimestamp = readHeader(b, 0).maxTimestamp;
    } finally {
      lease.release();
    }
  }

  private async loadIndexes(logSize: number): Promise<boolean> {
    let idx: Buffer;
    let tidx: Buffer;
    try {
      [idx, tidx] = await Promise.all([readFile(this.indexPath), readFile(this.timeIndexPath)]);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw err;
    }
    if (idx.length % 8 !== 0 || tidx.length % 12 !== 0) return false;
    this.resetIndexes();
    let prevOff = -1;
    let prevPos = -1;
    for (let p = 0; p < idx.length; p += 8) {
      const rel = idx.readInt32BE(p);
      const pos = idx.readInt32BE(p + 4);
      if (rel <= prevOff || pos <= prevPos || pos >= logSize) return false;
      this.idxOffsets.push(this.baseOffset + rel);
      this.idxPositions.push(pos);
      prevOff = rel;
      prevPos = pos;
    }
    let prevTs = -Infinity;
    for (let p = 0; p < tidx.length; p += 12) {
      const ts = Number(tidx.readBigInt64BE(p));
      const rel = tidx.readInt32BE(p + 8);
      if (ts < prevTs || rel < 0) return false;
      this.timeTs.push(ts);
      this.timeOffsets.push(this.baseOffset + rel);
      prevTs = ts;
    }
    if (this.timeTs.length > 0) {
      this.maxTimestamp = this.timeTs[this.timeTs.length - 1]!;
      this.offsetOfMaxTimestamp = this.timeOffsets[this.timeOffsets.length - 1]!;
    }
    return true;
  }

  /**
   * Walks batch headers in [from, end); a visitor returning true ends the walk. Stops (clean=false) at a batch whose
   * length runs past `end`, is smaller than a header, has the wrong magic, an
   * offset going backwards, or (with verifyCrc) a bad CRC.
   */
  async scan(
    from: number,
    end: number,
    verifyCrc: boolean,
    visit: (h: BatchHeader, pos: number, bytes: Buffer | null) => boolean | void | Promise<boolean | void>,
  ): Promise<ScanResult> {
    if (from >= end) return { validEnd: from, clean: from === end };
    const lease = await this.files.acquire(this.logPath);
    try {
      let pos = from;
      let lastOffset = -1;
      let win = Buffer.alloc(0);
      let winStart = from;
      while (pos < end) {
        let rel = pos - winStart;
        if (rel + LOG_OVERHEAD > win.length) {
          win = Buffer.allocUnsafe(Math.min(SCAN_WINDOW, end - pos));
          win = win.subarray(0, await readFully(lease.handle, win, pos));
          winStart = pos;
          rel = 0;
          if (win.length < LOG_OVERHEAD) return { validEnd: pos, clean: false };
        }
        const size = win.readInt32BE(rel + 8) + LOG_OVERHEAD;
        if (size < HEADER_SIZE || pos + size > end) return { validEnd: pos, clean: false };
        const need = verifyCrc ? size : HEADER_SIZE;
        if (rel + need > win.length) {
          win = Buffer.allocUnsafe(Math.max(need, Math.min(SCAN_WINDOW, end - pos)));
          win = win.subarray(0, await readFully(lease.handle, win, pos));
          winStart = pos;
          rel = 0;
          if (win.length < need) return { validEnd: pos, clean: false };
        }
        const h = readHeader(win, rel);
        if (h.magic !== 2 || h.baseOffset <= lastOffset || h.lastOffsetDelta < 0) return { validEnd: pos, clean: false };
        if (verifyCrc && !batchCrcValid(win, rel, size)) return { validEnd: pos, clean: false };
        const stop = await visit(h, pos, verifyCrc ? win.subarray(rel, rel + size) : null);
        lastOffset = h.baseOffset + h.lastOffsetDelta;
        pos += size;
        if (stop === true) return { validEnd: pos, clean: true };
      }
      return { validEnd: pos, clean: true };
    } finally {
      lease.release();
    }
  }

  /** Updates in-memory indexes and counters for a batch written at `pos`. */
  trackBatch(h: BatchHeader, pos: number): void {
    const lastOffset = h.baseOffset + h.lastOffsetDelta;
    if (this.size === 0 && pos === 0) this.firstBatchTimestamp = h.maxTimestamp;
    if (h.maxTimestamp > this.maxTimestamp) {
      this.maxTimestamp = h.maxTimestamp;
      this.offsetOfMaxTimestamp = lastOffset;
    }
    if (this.idxOffsets.length === 0 || this.bytesSinceIndex >= this.indexIntervalBytes) {
      this.idxOffsets.push(h.baseOffset);
      this.idxPositions.push(pos);
      this.appendTimeEntry();
      this.bytesSinceIndex = 0;
    }
    this.bytesSinceIndex += h.size;
    this.nextOffset = lastOffset + 1;
  }

  private appendTimeEntry(): void {
    if (this.maxTimestamp < 0) return;
    const n = this.timeTs.length;
    if (n > 0 && this.timeTs[n - 1]! >= this.maxTimestamp) return;
    this.timeTs.push(this.maxTimestamp);
    this.timeOffsets.push(this.offsetOfMaxTimestamp);
  }

  /** Position of the last indexed batch starting at or before `offset` (0 if none). */
  lookup(offset: number): number {
    const a = this.idxOffsets;
    let lo = 0;
    let hi = a.length - 1;
    let ans = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (a[mid]! <= offset) {
        ans = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return ans < 0 ? 0 : this.idxPositions[ans]!;
  }

  /**
   * An offset from which a scan finds the first record with timestamp ≥ ts:
   * every record before the entry's offset has timestamp ≤ the entry's
   * timestamp, so we take the last entry strictly below ts.
   */
  timeLookup(ts: number): number {
    const a = this.timeTs;
    let lo = 0;
    let hi = a.length - 1;
    let ans = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (a[mid]! < ts) {
        ans = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return ans < 0 ? this.baseOffset : this.timeOffsets[ans]!;
  }

  get indexEntries(): number {
    return this.idxOffsets.length;
  }

  /** Writes the index files (atomically) — on roll and on clean close. A segment without aborted transactions has no `.txnindex`. */
  async writeIndexes(): Promise<void> {
    const { index, timeIndex } = this.indexBytes();
    await writeFileAtomic(this.indexPath, index);
    await writeFileAtomic(this.timeIndexPath, timeIndex);
    if (this.txnIndex.size > 0) await this.txnIndex.write(this.txnIndexPath);
    else await rm(this.txnIndexPath, { force: true });
  }

  /**
   * Both indexes in Kafka's file formats, from memory (the files may be
   * missing after a recovery rebuilt them); tiered storage uploads these.
   */
  indexBytes(): { index: Buffer; timeIndex: Buffer } {
    this.appendTimeEntry();
    const idx = Buffer.allocUnsafe(this.idxOffsets.length * 8);
    for (let i = 0; i < this.idxOffsets.length; i++) {
      idx.writeInt32BE(this.idxOffsets[i]! - this.baseOffset, i * 8);
      idx.writeInt32BE(this.idxPositions[i]!, i * 8 + 4);
    }
    const tidx = Buffer.allocUnsafe(this.timeTs.length * 12);
    for (let i = 0; i < this.timeTs.length; i++) {
      tidx.writeBigInt64BE(BigInt(this.timeTs[i]!), i * 12);
      tidx.writeInt32BE(this.timeOffsets[i]! - this.baseOffset, i * 12 + 8);
    }
    return { index: idx, timeIndex: tidx };
  }

  /**
   * Whole batches from the one containing `offset`: at most `maxBytes`
   * unless the first batch alone is larger (KIP-74: always make progress);
   * null when the segment holds nothing at or after `offset`. Reads only the
   * file region needed (positioned reads from the offset index's entry).
   */
  async readBatches(offset: number, maxBytes: number): Promise<Buffer | null> {
    const end = this.size;
    let pos = this.lookup(offset);
    if (pos >= end) return null;
    const lease = await this.files.acquire(this.logPath);
    try {
      let winStart = pos;
      let win = await readAt(lease.handle, pos, Math.min(end - pos, maxBytes + 16 * 1024));
      // Find the first batch whose last offset is ≥ the fetch offset.
      for (;;) {
        if (pos >= end) return null;
        let rel = pos - winStart;
        if (rel + HEADER_SIZE > win.length) {
          winStart = pos;
          rel = 0;
          win = await readAt(lease.handle, pos, Math.min(end - pos, maxBytes + 16 * 1024));
        }
        const size = win.readInt32BE(rel + 8) + LOG_OVERHEAD;
        if (size < HEADER_SIZE || pos + size > end) {
          // Only possible if a closed segment was damaged on disk; never loop on it.
          throw new StorageError("KAFKA_STORAGE_ERROR", `corrupt batch length at ${this.logPath}:${pos}`);
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
        win = await readAt(lease.handle, pos, want);
      }
      let take = firstSize;
      for (;;) {
        const next = rel + take;
        if (next + LOG_OVERHEAD > win.length) break;
        const s = win.readInt32BE(next + 8) + LOG_OVERHEAD;
        if (take + s > maxBytes || next + s > win.length) break;
        take += s;
      }
      if (rel + take > win.length) throw new StorageError("UNKNOWN_SERVER_ERROR", `short read in ${this.logPath}`);
      return win.subarray(rel, rel + take);
    } finally {
      lease.release();
    }
  }

  /**
   * The `.log` bytes [0, size) in chunks, for uploading a closed segment.
   * The file lease keeps the data readable even if the segment is deleted
   * meanwhile (the handle outlives the unlink).
   */
  async *readChunks(chunkSize = 1024 * 1024): AsyncGenerator<Buffer> {
    const end = this.size;
    const lease = await this.files.acquire(this.logPath);
    try {
      for (let pos = 0; pos < end; pos += chunkSize) {
        const buf = Buffer.allocUnsafe(Math.min(chunkSize, end - pos));
        const n = await readFully(lease.handle, buf, pos);
        if (n !== buf.length) throw new Error(`short read of ${this.logPath} at ${pos}: ${n} of ${buf.length} bytes`);
        yield buf;
      }
    } finally {
      lease.release();
    }
  }

  async deleteFiles(): Promise<void> {
    this.files.retire(this.logPath);
    await Promise.all([
      rm(this.logPath, { force: true }),
      rm(this.indexPath, { force: true }),
      rm(this.timeIndexPath, { force: true }),
      rm(this.txnIndexPath, { force: true }),
    ]);
  }

  /** Time used by segment.ms (Kafka: first batch's max timestamp, else creation time). */
  rollingBaseTimestamp(): number {
    return this.firstBatchTimestamp >= 0 ? this.firstBatchTimestamp : this.createdMs;
  }
}

async function readAt(h: FileHandle, pos: number, len: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(len);
  const n = await readFully(h, buf, pos);
  return n === len ? buf : buf.subarray(0, n);
}
