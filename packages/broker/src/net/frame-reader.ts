// Splits a TCP byte stream into Kafka request frames (int32 size prefix, then
// `size` bytes). Memory is bounded by the largest frame the broker accepts: a
// size prefix above `maxFrameBytes` (socket.request.max.bytes) or below the
// smallest possible request header is reported as an error before any of the
// frame body is buffered, so an absurd prefix cannot make the broker allocate.

/** Smallest request header: api_key int16, api_version int16, correlation_id int32, client_id length int16. */
export const MIN_REQUEST_FRAME_BYTES = 10;

export class FrameError extends Error {
  override name = "FrameError";
}

export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Size of the frame being assembled, or -1 while the prefix is still incomplete. */
  private expected = -1;

  constructor(private readonly maxFrameBytes: number) {}

  /** Bytes held for a partial frame (tests assert this stays bounded). */
  get bufferedBytes(): number {
    return this.buffered;
  }

  /**
   * Feed bytes; returns every complete frame (without the size prefix) in order.
   * Throws FrameError on an impossible size prefix; the caller closes the connection.
   */
  push(data: Buffer): Buffer[] {
    this.chunks.push(data);
    this.buffered += data.length;
    const frames: Buffer[] = [];
    for (;;) {
      if (this.expected < 0) {
        if (this.buffered < 4) break;
        const size = this.peekInt32();
        if (size < MIN_REQUEST_FRAME_BYTES) {
          throw new FrameError(`invalid request size ${size} (smaller than a request header)`);
        }
        if (size > this.maxFrameBytes) {
          throw new FrameError(`request size ${size} exceeds socket.request.max.bytes ${this.maxFrameBytes}`);
        }
        this.consume(4);
        this.expected = size;
      }
      if (this.buffered < this.expected) break;
      frames.push(this.consume(this.expected));
      this.expected = -1;
    }
    return frames;
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
      const out = first.length === n ? first : Buffer.from(first.subarray(0, n));
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      this.buffered -= n;
      return out;
    }
    const out = Buffer.allocUnsafe(n);
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
}
