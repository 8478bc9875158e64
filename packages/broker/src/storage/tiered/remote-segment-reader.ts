/**
 * Reads of remote (tiered) segments for fetches and timestamp lookups below
 * the local log start offset: the segment's uploaded offset and time
 * indexes locate the batch, and `.log` bytes are fetched in fixed-size
 * chunks with ranged gets. Chunks and parsed indexes go through one
 * byte-bounded LRU cache (remote.log.reader.cache.bytes), and concurrent
 * misses for the same chunk share one request, so memory stays bounded
 * however many consumers replay at once.
 */
import { HEADER_SIZE, LOG_OVERHEAD, readHeader } from "../batch.ts";
import { firstRecordAtOrAfter } from "../timestamp-search.ts";
import { TxnIndex } from "../txn-index.ts";
import { LruCache } from "./lru-cache.ts";
import type { RemoteSegmentMetadata } from "./remote-log-metadata.ts";
import { remoteObjectKey } from "./remote-object-keys.ts";
import type { RemoteStorage } from "./remote-storage.ts";
import type { RemoteTimestampAndOffset } from "./types.ts";

interface ParsedIndexes {
  offsets: number[];
  positions: number[];
  timestamps: number[];
  timeOffsets: number[];
  bytes: number;
}

export class RemoteSegmentReader {
  private readonly cache: LruCache<Buffer | ParsedIndexes | TxnIndex>;
  private readonly inflight = new Map<string, Promise<Buffer | ParsedIndexes | TxnIndex>>();

  constructor(
    private readonly storage: RemoteStorage,
    cacheBytes: number,
    private readonly chunkBytes: number,
  ) {
    this.cache = new LruCache(cacheBytes);
  }

  get cacheStats(): { bytes: number; hits: number; misses: number } {
    return { bytes: this.cache.size, hits: this.cache.hits, misses: this.cache.misses };
  }

  /** Drops everything cached for a segment whose objects are being deleted. */
  forget(rec: RemoteSegmentMetadata): void {
    const logKey = remoteObjectKey(rec, "log");
    this.cache.deleteWhere((k) => k.startsWith(logKey) || k === `idx:${rec.id}` || k === `txn:${rec.id}`);
  }

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

  private cached<V extends Buffer | ParsedIndexes | TxnIndex>(key: string, load: () => Promise<{ value: V; bytes: number }>): Promise<V> {
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

  /** The aborted-transaction indexes of `segs` (empty for segments uploaded without one), through the cache. */
  txnIndexes(segs: readonly RemoteSegmentMetadata[]): Promise<TxnIndex[]> {
    return Promise.all(
      segs.map((seg) =>
        seg.txnIndex
          ? this.cached(`txn:${seg.id}`, async () => {
              const buf = await this.storage.get(remoteObjectKey(seg, "txnindex"));
              return { value: TxnIndex.fromEntries(TxnIndex.decode(buf)), bytes: buf.length + 64 };
            })
          : Promise.resolve(TxnIndex.empty()),
      ),
    );
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
    let pos = RemoteSegmentReader.lookup(idx.offsets, idx.positions, offset, 0);
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

  async read(segs: readonly RemoteSegmentMetadata[], offset: number, maxBytes: number): Promise<Buffer | null> {
    const seg = RemoteSegmentReader.find(segs, offset);
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

  async offsetForTimestamp(segs: readonly RemoteSegmentMetadata[], ts: number, minOffset: number): Promise<RemoteTimestampAndOffset | null> {
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
          const hit = firstRecordAtOrAfter(h, batch, ts, from);
          if (hit) return hit;
        }
        from = h.baseOffset + h.lastOffsetDelta + 1;
        const next = loc.pos + loc.size;
        loc = next < seg.size ? { pos: next, size: (await this.bytes(seg, next, LOG_OVERHEAD)).readInt32BE(8) + LOG_OVERHEAD } : null;
      }
    }
    return null;
  }

  async maxTimestamp(segs: readonly RemoteSegmentMetadata[], minOffset: number): Promise<RemoteTimestampAndOffset | null> {
    let best: RemoteSegmentMetadata | null = null;
    for (const s of segs) {
      if (s.endOffset < minOffset || s.maxTimestamp < 0) continue;
      if (!best || s.maxTimestamp > best.maxTimestamp) best = s;
    }
    if (!best) return null;
    // The segment remembers the batch; find the exact record inside it (KAFKA-16310).
    const loc = await this.findBatch(best, Math.max(best.offsetOfMaxTimestamp, minOffset));
    if (loc) {
      const batch = await this.bytes(best, loc.pos, loc.size);
      const hit = firstRecordAtOrAfter(readHeader(batch, 0), batch, best.maxTimestamp, minOffset);
      if (hit) return hit;
    }
    return { offset: best.offsetOfMaxTimestamp, timestamp: best.maxTimestamp };
  }
}
