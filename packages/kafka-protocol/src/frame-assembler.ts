/*
 * Reassembles size-prefixed Kafka frames (int32 length, then that many bytes)
 * from a byte stream that arrives in arbitrary chunks.
 *
 * Why not concatenate the buffered bytes with each chunk (as the client did):
 * a large response (a ListOffsets or OffsetFetch answer over tens of thousands
 * of partitions is megabytes) arrives in ~64 KiB socket reads, and joining
 * them one at a time copies the whole prefix again for every read — for a
 * frame of S bytes about S² / 128 KiB bytes, i.e. hundreds of megabytes of
 * short-lived off-heap buffers for one answer. Here the chunks are kept as
 * they came and each byte is copied once, into a buffer holding exactly one
 * frame's body (so a frame never keeps a larger socket buffer alive).
 */
import { ProtocolError } from "./errors.ts";

export class FrameAssembler {
  private chunks: Buffer[] = [];
  /** Index of the first chunk not wholly consumed (consumed chunks are dropped in bulk, not shifted one by one). */
  private head = 0;
  /** Bytes of chunks[head] already consumed. */
  private offset = 0;
  /** Bytes held from `offset` in chunks[head] to the end. */
  private buffered = 0;

  constructor(private readonly maxFrameBytes = 100 * 1024 * 1024) {}

  /** Adds a chunk and returns the bodies of the frames it completed (each in a buffer of its own). Throws ProtocolError on an impossible frame size. */
  push(chunk: Buffer): Buffer[] {
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    const frames: Buffer[] = [];
    while (this.buffered >= 4) {
      const size = this.peekSize();
      if (size < 0 || size > this.maxFrameBytes) throw new ProtocolError(`frame size ${size} is outside 0..${this.maxFrameBytes}`);
      if (this.buffered < 4 + size) break;
      this.skip(4);
      frames.push(this.take(size));
    }
    return frames;
  }

  /** Bytes waiting for the rest of their frame. */
  get pending(): number {
    return this.buffered;
  }

  private peekSize(): number {
    const first = this.chunks[this.head]!;
    if (first.length - this.offset >= 4) return first.readInt32BE(this.offset);
    // The length itself spans chunks (rare): read its four bytes one by one.
    const bytes = Buffer.alloc(4);
    let i = 0;
    for (let c = this.head, at = this.offset; i < 4; c++, at = 0) {
      const chunk = this.chunks[c]!;
      for (; at < chunk.length && i < 4; at++) bytes[i++] = chunk[at]!;
    }
    return bytes.readInt32BE(0);
  }

  private skip(n: number): void {
    this.copyInto(null, n);
  }

  private take(n: number): Buffer {
    const out = Buffer.allocUnsafe(n);
    this.copyInto(out, n);
    return out;
  }

  /** Consumes n bytes from the front, copying them into `out` when given. */
  private copyInto(out: Buffer | null, n: number): void {
    let written = 0;
    while (written < n) {
      const first = this.chunks[this.head]!;
      const count = Math.min(n - written, first.length - this.offset);
      if (out) first.copy(out, written, this.offset, this.offset + count);
      written += count;
      this.offset += count;
      if (this.offset === first.length) {
        this.head++;
        this.offset = 0;
      }
    }
    this.buffered -= n;
    if (this.head === this.chunks.length) {
      this.chunks = [];
      this.head = 0;
    } else if (this.head >= 1024) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }
}
