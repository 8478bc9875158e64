// Splits a TCP byte stream into Kafka request frames (int32 size prefix, then
// `size` bytes). Memory is bounded by the largest frame the broker accepts: a
// size prefix above the current limit (sasl.server.max.receive.size before
// authentication, socket.request.max.bytes after) or below the smallest
// possible request header is reported as an error before any of the frame body
// is buffered, so an absurd prefix cannot make the broker allocate. Nothing is
// allocated for a declared size either: the body is held as the chunks that
// actually arrived and assembled only once complete, so a client that declares
// 100 MiB and sends nothing costs nothing (see also `pendingFrame`, which the
// connection uses to bound how long a frame may take to arrive).

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
  private readonly free = new Map<number, Buffer[]>();
  private freeBytes = 0;
  /** Backing buffers handed out and not given back, so a stray or double give is ignored. */
  private readonly out = new WeakMap<ArrayBufferLike, Buffer>();

  constructor(private readonly maxFreeBytes: number) {}

  /** A buffer of exactly `n` bytes (uninitialised). */
  take(n: number): Buffer {
    let cap = POOLED_FRAME_MIN_BYTES;
    while (cap < n) cap *= 2;
    let whole = this.free.get(cap)?.pop();
    if (whole) this.freeBytes -= whole.length;
    else whole = Buffer.allocUnsafeSlow(cap);
    this.out.set(whole.buffer, whole);
    return whole.subarray(0, n);
  }

  /** Returns a frame from `take`; the caller must not touch it (or any view of it) afterwards. */
  give(frame: Buffer): void {
    const whole = this.out.get(frame.buffer);
    if (!whole) return;
    this.out.delete(frame.buffer);
    if (this.freeBytes + whole.length > this.maxFreeBytes) return;
    let list = this.free.get(whole.length);
    if (!list) this.free.set(whole.length, (list = []));
    list.push(whole);
    this.freeBytes += whole.length;
  }

  /** Bytes held in free buffers (tests). */
  get idleBytes(): number {
    return this.freeBytes;
  }
}

/** The largest frame accepted now, and the setting that says so (for the error message). */
export interface FrameLimit {
  bytes: number;
  setting: string;
}

export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Size of the frame being assembled, or -1 while the prefix is still incomplete. */
  private expected = -1;
  /** When the first byte of the frame being assembled arrived (ms), or -1 when none is. */
  private startedAt = -1;
  private failure: FrameError | null = null;
  private readonly limit: () => FrameLimit;

  constructor(
    limit: number | (() => FrameLimit),
    private readonly pool: FramePool | null = null,
    private readonly clock: () => number = Date.now,
  ) {
    this.limit = typeof limit === "number" ? () => ({ bytes: limit, setting: "socket.request.max.bytes" }) : limit;
  }

  /** Bytes held for a partial frame (tests assert this stays bounded). */
  get bufferedBytes(): number {
    return this.buffered;
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
   * Feed bytes; returns every complete frame (without the size prefix) in
   * order. On an impossible size prefix it returns the frames before it and
   * sets `error` (the caller answers those, then closes the connection).
   */
  push(data: Buffer): Buffer[] {
    const frames: Buffer[] = [];
    if (this.failure) return frames;
    if (this.buffered === 0 && data.length > 0) this.startedAt = this.clock();
    this.chunks.push(data);
    this.buffered += data.length;
    for (;;) {
      if (this.expected < 0) {
        if (this.buffered < 4) break;
        const size = this.peekInt32();
        const limit = this.limit();
        if (size < MIN_REQUEST_FRAME_BYTES) {
          this.fail(`invalid request size ${size} (smaller than a request header)`);
          break;
        }
        if (size > limit.bytes) {
          this.fail(`request size ${size} exceeds ${limit.setting} ${limit.bytes}`);
          break;
        }
        this.consume(4);
        this.expected = size;
      }
      if (this.buffered < this.expected) break;
      frames.push(this.consume(this.expected));
      this.expected = -1;
      // Bytes already here belong to the next frame, which starts now.
      this.startedAt = this.buffered > 0 ? this.clock() : -1;
    }
    return frames;
  }

  private fail(message: string): void {
    this.failure = new FrameError(message);
    this.chunks = [];
    this.buffered = 0;
    this.startedAt = -1;
  }

  private peekInt32(): number {
    const first = this.chunks[0];
    if (first && first.length >= 4) return first.readInt32BE(0);
    return Buffer.concat(this.chunks, 4).subarray(0, 4).readInt32BE(0);
  }

  private consume(n: number): Buffer {
    const first = this.chunks[0];
    if (first && first.length >= n) {
      // Fast path: the frame lies in one chunk. Copy it so that the (possibly much
      // larger) socket chunk is not kept alive by a small frame.
      const out = first.length === n ? first : this.allocate(n);
      if (out !== first) first.copy(out, 0, 0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      this.buffered -= n;
      return out;
    }
    const out = this.allocate(n);
    let filled = 0;
    while (filled < n) {
      const c = this.chunks[0];
      if (!c) throw new FrameError("internal: frame reader underrun");
      const take = Math.min(c.length, n - filled);
      c.copy(out, filled, 0, take);
      filled += take;
      if (take === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(take);
    }
    this.buffered -= n;
    return out;
  }

  private allocate(n: number): Buffer {
    return this.pool && n >= POOLED_FRAME_MIN_BYTES ? this.pool.take(n) : Buffer.allocUnsafe(n);
  }
}
