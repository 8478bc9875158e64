// Splits a TCP byte stream into Kafka request frames (int32 size prefix, then
// `size` bytes). Memory is bounded by the largest frame the broker accepts: a
// size prefix above the current limit (sasl.server.max.receive.size before
// authentication, socket.request.max.bytes after) or below the smallest
// possible request header is reported as an error before any of the frame body
// is buffered, so an absurd prefix cannot make the broker allocate.
//
// The bytes handed to `push` are only valid during the call: the connection
// reads every socket into one reused buffer (see read-buffer.ts), so that a
// steady produce stream allocates no backing store per read. The reader copies
// each byte once, straight into the buffer its frame will be handed out in.
// The body of a large frame is not copied at all: `directTarget` gives the
// connection the unfilled part of the frame's buffer for the socket to read
// into, and `pushDirect` counts what arrived there.
// Nothing is allocated for a declared size: a frame's buffer grows with the
// bytes that actually arrived (at most FRAME_GROWTH_FACTOR times them, and at
// least FRAME_MIN_ALLOCATION), so a client that declares 100 MiB and sends three
// bytes costs 64 KiB, not 100 MiB (see also `pendingFrame`, which the
// connection uses to bound how long a frame may take to arrive). A large frame
// for which the pool holds an idle buffer takes that buffer whole at once: it
// is memory already allocated.

import { SizeClassPool } from "../buffer-pool.ts";

/**
 * A frame body with at least this many bytes still to come is read from the
 * socket straight into its own buffer (`directTarget`); smaller remainders go
 * through the shared read buffer, whose one read can then also bring the
 * frames behind it.
 */
export const DIRECT_READ_MIN_BYTES = 16 * 1024;

/** Smallest request header: api_key int16, api_version int16, correlation_id int32, client_id length int16. */
export const MIN_REQUEST_FRAME_BYTES = 10;

export class FrameError extends Error {
  override name = "FrameError";
}

/** Frames at least this large are assembled in pooled buffers (smaller ones come from Node's slab). */
export const POOLED_FRAME_MIN_BYTES = 64 * 1024;

/**
 * Reuses the buffers that large frames are assembled in. Durable produce brings
 * a ~1 MB frame per request; a fresh buffer each time counts as external memory
 * to V8, which then runs a full mark-compact every few tens of megabytes (about
 * a sixth of the broker thread under kcat's produce load). The connection gives
 * a frame back only once nothing can still read it: a Produce request whose
 * handler has finished, i.e. whose appends have been written or rejected.
 */
export class FramePool {
  private readonly pool: SizeClassPool;
  /** Backing buffers handed out and not given back, so a stray or double give is ignored. */
  private readonly out = new WeakMap<ArrayBufferLike, Buffer>();

  constructor(maxFreeBytes: number) {
    this.pool = new SizeClassPool(maxFreeBytes, POOLED_FRAME_MIN_BYTES, (cap) => Buffer.allocUnsafeSlow(cap));
  }

  /** A buffer of exactly `n` bytes (uninitialised). */
  take(n: number): Buffer {
    const whole = this.pool.take(n);
    this.out.set(whole.buffer, whole);
    return whole.subarray(0, n);
  }

  /**
   * `frame` (from `take`, its first `filled` bytes in use) as a buffer of `n`
   * bytes: the same memory when its backing buffer is large enough, otherwise a
   * larger one holding a copy of those bytes (and `frame` goes back to the pool).
   */
  grow(frame: Buffer, filled: number, n: number): Buffer {
    const whole = this.out.get(frame.buffer);
    if (whole && whole.byteOffset === frame.byteOffset && whole.length >= n) return whole.subarray(0, n);
    const next = this.take(n);
    frame.copy(next, 0, 0, filled);
    this.give(frame);
    return next;
  }

  /** Returns a frame from `take`; the caller must not touch it (or any view of it) afterwards. */
  give(frame: Buffer): void {
    const whole = this.out.get(frame.buffer);
    if (!whole) return;
    this.out.delete(frame.buffer);
    this.pool.give(whole);
  }

  /** Whether a buffer for a frame of `n` bytes is idle here (taking it allocates nothing). */
  hasIdle(n: number): boolean {
    return this.pool.hasIdle(n);
  }

  /** Bytes held in free buffers (tests). */
  get idleBytes(): number {
    return this.pool.idleBytes;
  }
}

/** The capacity of the pooled buffer a frame of `n` bytes is assembled in. */
export function pooledCapacity(n: number): number {
  let cap = POOLED_FRAME_MIN_BYTES;
  while (cap < n) cap *= 2;
  return cap;
}

/** The largest frame accepted now, and the setting that says so (for the error message). */
export interface FrameLimit {
  bytes: number;
  setting: string;
}

/** A partial frame holds at most this many times the bytes received for it (plus FRAME_MIN_ALLOCATION). */
export const FRAME_GROWTH_FACTOR = 4;
/** The first allocation for a frame (its whole size when smaller). */
export const FRAME_MIN_ALLOCATION = 64 * 1024;

export class FrameReader {
  /** The size prefix while it is incomplete (a prefix may be split across reads). */
  private readonly prefix = Buffer.alloc(4);
  private prefixBytes = 0;
  /** Size of the frame being assembled, or -1 while the prefix is still incomplete. */
  private expected = -1;
  /** The buffer the frame is assembled in (shorter than `expected` while few bytes have arrived), or null. */
  private frame: Buffer | null = null;
  private filled = 0;
  /** When the first byte of the frame being assembled arrived (ms), or -1 when none is. */
  private startedAt = -1;
  private failure: FrameError | null = null;
  private readonly limit: () => FrameLimit;
  /** Whether the last complete frame ended with a direct read (see `nextReadBytes`). */
  private lastFrameDirect = false;

  constructor(
    limit: number | (() => FrameLimit),
    private readonly pool: FramePool | null = null,
    private readonly clock: () => number = Date.now,
  ) {
    this.limit = typeof limit === "number" ? () => ({ bytes: limit, setting: "socket.request.max.bytes" }) : limit;
  }

  /** Bytes received for the incomplete frame: its prefix while that is incomplete, then its body (tests assert this stays bounded). */
  get bufferedBytes(): number {
    return this.expected < 0 ? this.prefixBytes : this.filled;
  }

  /** Bytes allocated for the incomplete frame (≤ FRAME_GROWTH_FACTOR × bufferedBytes + FRAME_MIN_ALLOCATION). */
  get allocatedBytes(): number {
    return this.frame?.length ?? 0;
  }

  /** The impossible size prefix that stopped this reader, if any; it then ignores further input. */
  get error(): FrameError | null {
    return this.failure;
  }

  /** The frame still arriving: when its first byte came and its declared size (−1 while the prefix is incomplete). */
  pendingFrame(): { startedAt: number; size: number } | null {
    return this.startedAt < 0 ? null : { startedAt: this.startedAt, size: this.expected };
  }

  /**
   * Feed `data[0, end)`, which is only read during this call; returns every
   * complete frame (without the size prefix) in order. On an impossible size
   * prefix it returns the frames before it and sets `error` (the caller answers
   * those, then closes the connection).
   */
  push(data: Uint8Array, end: number = data.length): Buffer[] {
    const frames: Buffer[] = [];
    let pos = 0;
    while (pos < end && !this.failure) {
      if (this.startedAt < 0) this.startedAt = this.clock();
      if (this.expected < 0) {
        let size: number;
        if (this.prefixBytes === 0 && end - pos >= 4) {
          size = readInt32(data, pos);
          pos += 4;
        } else {
          const n = Math.min(4 - this.prefixBytes, end - pos);
          this.prefix.set(data.subarray(pos, pos + n), this.prefixBytes);
          this.prefixBytes += n;
          pos += n;
          if (this.prefixBytes < 4) break;
          size = this.prefix.readInt32BE(0);
          this.prefixBytes = 0;
        }
        const limit = this.limit();
        if (size < MIN_REQUEST_FRAME_BYTES) {
          this.fail(`invalid request size ${size} (smaller than a request header)`);
          break;
        }
        if (size > limit.bytes) {
          this.fail(`request size ${size} exceeds ${limit.setting} ${limit.bytes}`);
          break;
        }
        this.expected = size;
        this.filled = 0;
        if (pos === end) break;
      }
      const n = Math.min(this.expected - this.filled, end - pos);
      const frame = this.room(this.filled + n);
      frame.set(data.subarray(pos, pos + n), this.filled);
      this.filled += n;
      pos += n;
      if (this.filled < this.expected) break;
      frames.push(frame);
      this.lastFrameDirect = false;
      this.frame = null;
      this.expected = -1;
      this.filled = 0;
      // Bytes already here belong to the next frame, which starts now.
      this.startedAt = pos < end ? this.clock() : -1;
    }
    return frames;
  }

  /**
   * Where the next socket read may land directly: the unfilled part of the
   * frame being assembled, so that its bytes are read from the kernel into the
   * buffer the frame is handed out in instead of into the shared read buffer
   * and then copied (`push`). Null while no frame body is expected, when less
   * than `minBytes` of it are still due (the next read then also brings the
   * frames after it, through the shared buffer), or after an error.
   *
   * The frame grows here by the same rule as in `push` (at most
   * FRAME_GROWTH_FACTOR times the bytes received, FRAME_MIN_ALLOCATION at
   * first), so reading directly allocates no more for a declared size than
   * copying does. The view is only valid until the next call of `push`,
   * `pushDirect` or `directTarget`; the caller reports what was read into it
   * with `pushDirect`.
   */
  directTarget(minBytes: number = DIRECT_READ_MIN_BYTES): Buffer | null {
    if (this.failure || this.expected < 0 || this.expected - this.filled < minBytes) return null;
    const frame = this.room(this.filled + 1);
    return frame.subarray(this.filled);
  }

  /**
   * How much the next read into the shared buffer should take, when
   * `directTarget` has none: after a frame that was read directly, the next is
   * probably large too, and a read of just its start (DIRECT_READ_MIN_BYTES)
   * lets the rest of it go to its own buffer rather than a whole frame being
   * read into the shared buffer and copied; otherwise as much as has arrived
   * (`undefined`: the whole shared buffer), many small frames in one read.
   */
  nextReadBytes(): number | undefined {
    return this.lastFrameDirect && this.expected < 0 ? DIRECT_READ_MIN_BYTES : undefined;
  }

  /**
   * `n` bytes were read into the view `directTarget` returned; returns the
   * frame when they complete it (at most one: the view ends where the frame does).
   */
  pushDirect(n: number): Buffer[] {
    const frame = this.frame;
    if (!frame || this.expected < 0 || n <= 0 || this.filled + n > frame.length) {
      throw new Error(`pushDirect(${n}) without a matching directTarget (frame ${frame?.length ?? "none"}, filled ${this.filled}, expected ${this.expected})`);
    }
    this.filled += n;
    if (this.filled < this.expected) return [];
    this.lastFrameDirect = true;
    this.frame = null;
    this.expected = -1;
    this.filled = 0;
    this.startedAt = -1;
    return [frame];
  }

  /** The frame buffer, grown (if need be) to hold `needed` bytes; it is exactly `expected` long once it can hold them all. */
  private room(needed: number): Buffer {
    const current = this.frame;
    if (current && current.length >= needed) return current;
    let size = needed === this.expected ? needed : Math.min(this.expected, Math.max(FRAME_MIN_ALLOCATION, FRAME_GROWTH_FACTOR * needed));
    const pooled = this.pool !== null && this.expected >= POOLED_FRAME_MIN_BYTES;
    // A pooled buffer has a power-of-two capacity: when the whole frame fits in the one this size gets, take the whole frame now (no later copy, no more memory).
    if (pooled && pooledCapacity(size) === pooledCapacity(this.expected)) size = this.expected;
    // An idle pooled buffer the whole frame fits in is memory already held: taking it now allocates nothing
    // (so the growth bound has nothing to guard) and saves the copies of growing step by step — under a
    // steady stream of ~1 MB produce requests those copied a third of every frame again.
    if (pooled && size < this.expected && this.pool.hasIdle(this.expected)) size = this.expected;
    let next: Buffer;
    if (this.pool && pooled) {
      next = current ? this.pool.grow(current, this.filled, size) : this.pool.take(size);
    } else {
      next = Buffer.allocUnsafe(size);
      if (current) current.copy(next, 0, 0, this.filled);
    }
    this.frame = next;
    return next;
  }

  private fail(message: string): void {
    this.failure = new FrameError(message);
    if (this.frame && this.pool) this.pool.give(this.frame);
    this.frame = null;
    this.prefixBytes = 0;
    this.filled = 0;
    this.startedAt = -1;
  }
}

function readInt32(data: Uint8Array, at: number): number {
  return ((data[at] ?? 0) << 24) | ((data[at + 1] ?? 0) << 16) | ((data[at + 2] ?? 0) << 8) | (data[at + 3] ?? 0);
}
