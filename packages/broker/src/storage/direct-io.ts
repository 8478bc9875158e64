/**
 * Appends that bypass the OS page cache (broker setting `log.direct.io`).
 *
 * Why: a buffered write copies every byte into page-cache pages the kernel
 * must allocate, track as dirty, write back on fdatasync and (page-cache.ts)
 * drop again. Under durable produce that was the largest single item in the
 * broker's profile (the copy alone 14–19 % of the broker's CPU, more on this VM,
 * which prices every page the cache grows). With O_DIRECT the device reads
 * the bytes from one aligned staging buffer: the broker's CPU per produced
 * byte fell by about a third in the benchmark (storage README "Direct I/O").
 *
 * How: O_DIRECT needs the file offset, the length and the memory of each
 * write aligned (here to DIRECT_IO_BLOCK, which covers the 512-byte logical
 * blocks of common disks and the 4 KiB pages some filesystems ask for). A
 * log append is neither, so each write covers whole blocks: the partial block
 * at the end of the segment (its bytes kept in memory, `tail`) is written
 * again, followed by the new bytes and zeros up to the block's end. The zeros
 * are past the log end: readers never read there, the segment is truncated
 * to its real size when it stops being the active one (roll, close), and
 * recovery after a crash truncates them as it truncates any torn tail (a
 * batch of zeros fails its checks). Re-writing the partial block cannot
 * damage the acknowledged bytes in it: they are written again with the same
 * values. Reads (Fetch, tiered copies, recovery) keep using ordinary
 * buffered descriptors; Linux keeps them coherent with direct writes (each
 * direct write invalidates the cached pages it covers).
 *
 * Where a filesystem refuses O_DIRECT (tmpfs before Linux 6.6, some overlay setups) or the
 * aligned memory cannot be had (koffi missing), `probeDirectIo` says so and the
 * log writes through the page cache as before.
 */
import { constants, open, rm, type FileHandle } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { SizeClassPool } from "../buffer-pool.ts";
import { byteLength, type FileHandleCache } from "./files.ts";

/** Alignment of offsets, lengths and memory of every direct write. */
export const DIRECT_IO_BLOCK = 4096;
/** Idle staging buffers kept for reuse, across all partitions. */
const STAGING_IDLE_BYTES = 32 * 1024 * 1024;
const STAGING_MIN_BYTES = 64 * 1024;
/** A group of appends is written in chunks of this many bytes (whole blocks), each from its own staging buffer. */
export const STAGING_CHUNK_BYTES = 1024 * 1024;
/** Chunk writes of one append group in flight at once (the next chunk is copied while they run). */
const STAGING_CHUNKS_IN_FLIGHT = 4;

type AddressOf = (buf: Buffer) => bigint;

function loadAddressOf(): AddressOf | null {
  if (process.platform !== "linux") return null;
  try {
    const koffi = createRequire(import.meta.url)("koffi") as typeof import("koffi");
    // memmove(p, p, 0) copies nothing and returns p: the address of a buffer's first byte.
    const memmove = koffi.load("libc.so.6").func("intptr_t memmove(void *dst, void *src, size_t n)");
    return (buf) => BigInt(memmove(buf, buf, 0) as number | bigint);
  } catch {
    return null;
  }
}

const addressOf = loadAddressOf();

/** `n` bytes of uninitialised memory whose first byte is DIRECT_IO_BLOCK-aligned. */
export function alignedBuffer(n: number): Buffer {
  if (!addressOf) throw new Error("aligned buffers need koffi on Linux");
  const raw = Buffer.allocUnsafeSlow(n + DIRECT_IO_BLOCK);
  const block = BigInt(DIRECT_IO_BLOCK);
  const skip = Number((block - (addressOf(raw) % block)) % block);
  return raw.subarray(skip, skip + n);
}

/**
 * Whether appends in `dir` can bypass the page cache: Linux, aligned memory
 * available, and the filesystem accepts an O_DIRECT write of one block.
 */
export async function probeDirectIo(dir: string): Promise<boolean> {
  if (!addressOf || constants.O_DIRECT === undefined) return false;
  const path = join(dir, `.direct-io-probe-${process.pid}`);
  try {
    const h = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_DIRECT, 0o600);
    try {
      const buf = alignedBuffer(DIRECT_IO_BLOCK).fill(0);
      const { bytesWritten } = await h.write(buf, 0, buf.length, 0);
      return bytesWritten === buf.length;
    } finally {
      await h.close();
    }
  } catch {
    return false;
  } finally {
    await rm(path, { force: true });
  }
}

/** Aligned buffers for the writes in flight, reused (power-of-two sizes; see SizeClassPool). */
export class StagingPool extends SizeClassPool {
  constructor() {
    super(STAGING_IDLE_BYTES, STAGING_MIN_BYTES, alignedBuffer);
  }
}

/**
 * A group of appends smaller than this is written through the page cache
 * (buffered), a larger one directly. A direct write is a device write before
 * the fsync that acks=all waits for, where a buffered one is a copy into
 * memory: for the small appends of a latency-bound producer (a few KiB a
 * request) it added a device round trip to every answer (kcat at 5,000
 * records/s: RTT p99 16–19 ms direct, 8–10 ms buffered), and their copy costs
 * little. Large groups, the bulk of a throughput-bound stream, go direct.
 */
export const DIRECT_WRITE_MIN_BYTES = 64 * 1024;

/** Partial last blocks kept in memory at most, across all partitions (LRU; see `TailCache`). */
export const MAX_KEPT_TAILS = 1024;

/**
 * The partial last blocks kept in memory, the most recently written
 * partitions' only: a broker with 60,000 partitions would otherwise hold up
 * to 4 KiB for each one ever written. A partition whose block was dropped
 * reads it back from its file (one buffered read) at its next write.
 */
export class TailCache {
  private readonly order = new Map<DirectAppender, true>();
  constructor(readonly limit = MAX_KEPT_TAILS) {}

  /** `a` was just written: it is the most recent; the oldest beyond the limit forget their blocks. */
  touch(a: DirectAppender): void {
    this.order.delete(a);
    this.order.set(a, true);
    if (this.order.size <= this.limit) return;
    for (const old of this.order.keys()) {
      if (this.order.size <= this.limit) break;
      // One writing now keeps its block (it is the one being changed); it is dropped at a later touch.
      if (old === a || !old.forgetTail()) continue;
      this.order.delete(old);
    }
  }

  remove(a: DirectAppender): void {
    this.order.delete(a);
  }

  /** Partitions whose block is kept (tests). */
  get size(): number {
    return this.order.size;
  }
}

/** What the log manager shares with its partitions when direct I/O is on. */
export interface DirectIo {
  /** O_DIRECT descriptors of active segments (apart from the buffered ones reads use). */
  readonly files: FileHandleCache;
  readonly staging: StagingPool;
  readonly tails: TailCache;
}

/** The segment's ordinary (buffered) descriptor, as the direct writer uses it. */
export interface BufferedFile {
  /** The bytes [from, to) (the partial block before a direct write). */
  read(from: number, to: number): Promise<Buffer>;
  /** Writes `bufs` at `position` through the page cache (a small group of appends). */
  write(bufs: Buffer[], position: number): Promise<void>;
}

/**
 * The writer of one active segment: large groups of appends directly, small
 * ones through the page cache (DIRECT_WRITE_MIN_BYTES). Writes must follow each
 * other at the segment's end (the partition's writer queue guarantees it).
 *
 * The two kinds mix safely in one file: before a direct write Linux writes
 * back and drops the cached pages it covers, and the partial block it rewrites
 * is read back through the page cache, which holds the buffered bytes.
 */
export class DirectAppender {
  /** The bytes of the last, partial block (its first `tailLength` bytes). */
  private tail: Buffer = Buffer.alloc(0);
  private tailLength = 0;
  /** Logical end of the segment: what has been written (the file may be longer by padding). */
  private end: number;
  /** Whether `tail` holds the partial block (read back at the first write, and after `forgetTail`). */
  private tailKnown = false;
  /** Whether a direct write happened (it may have left padding past the end). */
  private wrote = false;
  private writing = false;

  constructor(
    private readonly io: DirectIo,
    readonly path: string,
    size: number,
    private readonly buffered: BufferedFile,
  ) {
    this.end = size;
  }

  /** True once a direct write may have left padding past the logical end (the segment then needs `truncate` at roll/close). */
  get padded(): boolean {
    return this.wrote && this.end % DIRECT_IO_BLOCK !== 0;
  }

  /** Drops the partial block from memory (TailCache); false while a write is using it. */
  forgetTail(): boolean {
    if (this.writing) return false;
    this.tail = Buffer.alloc(0);
    this.tailLength = 0;
    this.tailKnown = false;
    return true;
  }

  /** Writes `bufs` at `position`, which must be the segment's logical end. */
  async write(bufs: Buffer[], position: number): Promise<void> {
    if (position !== this.end) throw new Error(`direct append to ${this.path} at ${position}, but its end is ${this.end}`);
    const total = byteLength(bufs);
    if (total < DIRECT_WRITE_MIN_BYTES) {
      await this.buffered.write(bufs, position);
      this.end += total;
      // The partial block changed in the page cache: the next direct write reads it back from there.
      this.io.tails.remove(this);
      this.forgetTail();
      return;
    }
    this.writing = true;
    try {
      await this.writeAtEnd(bufs, total);
    } finally {
      this.writing = false;
    }
    this.io.tails.touch(this);
  }

  /** Writes `bufs` (`total` bytes) directly at the logical end. */
  private async writeAtEnd(bufs: Buffer[], total: number): Promise<void> {
    if (!this.tailKnown) {
      const blockStart = this.end - (this.end % DIRECT_IO_BLOCK);
      this.tail = this.end > blockStart ? await this.buffered.read(blockStart, this.end) : Buffer.alloc(0);
      this.tailLength = this.tail.length;
      this.tailKnown = true;
    }
    // The bytes written: the partial block's, then `bufs`, then zeros to a block's end, from `start`.
    const start = this.end - this.tailLength;
    const length = alignUp(this.tailLength + total);
    const sources = this.tailLength > 0 ? [this.tail.subarray(0, this.tailLength), ...bufs] : bufs;
    let source = 0;
    let sourceAt = 0;
    const lease = await this.io.files.acquire(this.path);
    const inFlight = new Set<Promise<void>>();
    let failure: { error: unknown } | null = null;
    let last: Buffer | null = null;
    try {
      // In chunks of whole blocks, each copied into its own staging buffer and written while the
      // next is copied, at most STAGING_CHUNKS_IN_FLIGHT at a time: staging memory stays bounded
      // (and reused) however large a group of appends is.
      for (let off = 0; off < length && failure === null; off += STAGING_CHUNK_BYTES) {
        const n = Math.min(STAGING_CHUNK_BYTES, length - off);
        const staging = this.io.staging.take(n);
        let at = 0;
        while (at < n && source < sources.length) {
          const src = sources[source]!;
          const copied = src.copy(staging, at, sourceAt, Math.min(src.length, sourceAt + (n - at)));
          at += copied;
          sourceAt += copied;
          if (sourceAt === src.length) {
            source++;
            sourceAt = 0;
          }
        }
        staging.fill(0, at, n);
        const isLast = off + n === length;
        if (isLast) last = staging;
        const write = writeWholeBlocks(lease.handle, staging, n, start + off, this.path).then(
          () => {
            if (!isLast) this.io.staging.give(staging);
          },
          (error: unknown) => {
            failure ??= { error };
            if (!isLast) this.io.staging.give(staging);
          },
        );
        inFlight.add(write);
        void write.finally(() => inFlight.delete(write));
        if (inFlight.size >= STAGING_CHUNKS_IN_FLIGHT) await Promise.race(inFlight);
      }
      // Every write is finished (or failed) before any staging buffer or the descriptor is reused.
      await Promise.all(inFlight);
      this.wrote = true;
      if (failure !== null) throw (failure as { error: unknown }).error;
      const newEnd = this.end + total;
      const keep = newEnd % DIRECT_IO_BLOCK;
      if (keep > 0) {
        // The new partial block is the end of the last chunk.
        const lastChunk = last!;
        const from = (length - DIRECT_IO_BLOCK) % STAGING_CHUNK_BYTES;
        if (this.tail.length < DIRECT_IO_BLOCK) this.tail = Buffer.allocUnsafe(DIRECT_IO_BLOCK);
        lastChunk.copy(this.tail, 0, from, from + keep);
      }
      this.tailLength = keep;
      this.end = newEnd;
    } finally {
      await Promise.all(inFlight);
      lease.release();
      if (last) this.io.staging.give(last);
    }
  }

  /** The segment stops being written here (roll, close, deletion): its O_DIRECT descriptor is closed. */
  retire(): void {
    this.io.tails.remove(this);
    this.io.files.retire(this.path);
  }
}

/** Writes `buf[0, n)` at `position` (both whole blocks), resuming after a short write of whole blocks. */
async function writeWholeBlocks(handle: FileHandle, buf: Buffer, n: number, position: number, path: string): Promise<void> {
  let written = 0;
  while (written < n) {
    const { bytesWritten } = await handle.write(buf, written, n - written, position + written);
    // A short direct write (a full disk) that is not whole blocks cannot be resumed aligned.
    if (bytesWritten <= 0 || bytesWritten % DIRECT_IO_BLOCK !== 0) throw new Error(`short direct write to ${path}: ${bytesWritten} of ${n - written} bytes`);
    written += bytesWritten;
  }
}

function alignUp(n: number): number {
  return Math.ceil(n / DIRECT_IO_BLOCK) * DIRECT_IO_BLOCK;
}
