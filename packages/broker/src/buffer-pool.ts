/**
 * Idle buffers kept for reuse, by power-of-two capacity, at most
 * `maxIdleBytes` of them in all: the large request frames (net/frame-reader.ts
 * FramePool) and the direct-I/O staging buffers (storage/direct-io.ts).
 *
 * Why a pool: a fresh large buffer per request is external memory to V8, which
 * answers with full mark-compacts, and on this project's VM every page of
 * memory not recently used costs a page fault priced at several times a copy.
 *
 * When a buffer given back does not fit under the limit, the idle buffers
 * given back longest ago are dropped first, whatever their size, so the pool
 * follows the sizes in use now. (Dropping the one given back instead let the
 * first size to fill the pool keep it: after kcat's ~1 MB produce frames had
 * filled the frame pool with 1 MiB buffers, a client whose requests were a
 * little over 1 MiB got a fresh 2 MiB buffer for every one — 71,000 page
 * faults and 4.5 broker CPU-seconds per GB produced instead of ~2.)
 */
export class SizeClassPool {
  /** Idle buffers by capacity, each list in the order they were given back (oldest first). */
  private readonly free = new Map<number, Array<{ buf: Buffer; seq: number }>>();
  private idle = 0;
  private seq = 0;

  constructor(
    private readonly maxIdleBytes: number,
    private readonly minCapacity: number,
    /** A new buffer of exactly `capacity` bytes (uninitialised is fine). */
    private readonly allocate: (capacity: number) => Buffer,
  ) {}

  /** The capacity of the buffer `take(n)` returns: the smallest power-of-two multiple of the minimum that holds `n`. */
  capacityFor(n: number): number {
    let cap = this.minCapacity;
    while (cap < n) cap *= 2;
    return cap;
  }

  /** A whole buffer of `capacityFor(n)` bytes: the one of that size given back last, or a new one. */
  take(n: number): Buffer {
    const cap = this.capacityFor(n);
    const entry = this.free.get(cap)?.pop();
    if (!entry) return this.allocate(cap);
    this.idle -= cap;
    return entry.buf;
  }

  /** Whether `take(n)` would reuse an idle buffer (allocating nothing). */
  hasIdle(n: number): boolean {
    return (this.free.get(this.capacityFor(n))?.length ?? 0) > 0;
  }

  /** Keeps `buf` (a whole buffer from `take`) for reuse; the caller must not touch it afterwards. */
  give(buf: Buffer): void {
    if (buf.length > this.maxIdleBytes) return;
    while (this.idle + buf.length > this.maxIdleBytes) this.dropOldest();
    let list = this.free.get(buf.length);
    if (!list) this.free.set(buf.length, (list = []));
    list.push({ buf, seq: this.seq++ });
    this.idle += buf.length;
  }

  /** Bytes held in idle buffers. */
  get idleBytes(): number {
    return this.idle;
  }

  /** Idle buffers of each capacity (tests). */
  idleCounts(): Map<number, number> {
    return new Map([...this.free].filter(([, l]) => l.length > 0).map(([cap, l]) => [cap, l.length]));
  }

  private dropOldest(): void {
    // Few capacities are in use (powers of two), so a scan of their oldest entries is cheap.
    let oldest: Array<{ buf: Buffer; seq: number }> | null = null;
    for (const list of this.free.values()) {
      if (list.length > 0 && (oldest === null || list[0]!.seq < oldest[0]!.seq)) oldest = list;
    }
    const dropped = oldest?.shift();
    if (!dropped) throw new Error("buffer pool accounting: idle bytes with no idle buffer");
    this.idle -= dropped.buf.length;
  }
}
