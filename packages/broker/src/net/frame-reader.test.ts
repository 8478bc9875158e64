import { describe, expect, it } from "vitest";
import { FrameError, FramePool, FrameReader, POOLED_FRAME_MIN_BYTES } from "./frame-reader.ts";

function frame(body: Buffer): Buffer {
  const prefix = Buffer.alloc(4);
  prefix.writeInt32BE(body.length, 0);
  return Buffer.concat([prefix, body]);
}

describe("FrameReader", () => {
  it("splits frames across and within chunks, in order", () => {
    const r = new FrameReader(1000);
    const a = Buffer.alloc(12, 1);
    const b = Buffer.alloc(30, 2);
    const stream = Buffer.concat([frame(a), frame(b), frame(a)]);
    const out: Buffer[] = [];
    for (let i = 0; i < stream.length; i += 5) out.push(...r.push(stream.subarray(i, i + 5)));
    expect(out).toEqual([a, b, a]);
    expect(r.bufferedBytes).toBe(0);
  });

  it("rejects a size prefix above the limit before buffering the body", () => {
    const r = new FrameReader(100);
    expect(() => r.push(Buffer.from([0, 0, 0, 101]))).toThrow(FrameError);
    const r2 = new FrameReader(104857600);
    expect(() => r2.push(Buffer.from([0x7f, 0xff, 0xff, 0xff, 1, 2]))).toThrow(/exceeds socket.request.max.bytes/);
  });

  it("rejects negative sizes and sizes too small for a request header", () => {
    expect(() => new FrameReader(100).push(Buffer.from([0xff, 0xff, 0xff, 0xfb]))).toThrow(/invalid request size -5/);
    expect(() => new FrameReader(100).push(Buffer.from([0, 0, 0, 9]))).toThrow(/smaller than a request header/);
  });

  it("holds only the bytes of the incomplete frame", () => {
    const r = new FrameReader(1000);
    expect(r.push(Buffer.concat([frame(Buffer.alloc(20)), Buffer.from([0, 0, 0, 50]), Buffer.alloc(10)]))).toHaveLength(1);
    expect(r.bufferedBytes).toBe(10);
  });

  it("assembles large frames in pooled buffers and reuses a buffer once it is given back", () => {
    const pool = new FramePool(4 * 1024 * 1024);
    const r = new FrameReader(8 * 1024 * 1024, pool);
    const body = Buffer.alloc(300_000, 7);
    const stream = frame(body);
    const first: Buffer[] = [];
    for (let i = 0; i < stream.length; i += 65_536) first.push(...r.push(stream.subarray(i, i + 65_536)));
    // Buffer comparisons as booleans: a failing toEqual on 300 KB buffers takes minutes to diff.
    expect(first.length).toBe(1);
    const f1 = first[0]!;
    expect(f1.equals(body)).toBe(true);
    pool.give(f1);
    expect(pool.idleBytes).toBe(512 * 1024);
    const body2 = Buffer.alloc(400_000, 9);
    const stream2 = frame(body2);
    const [f2] = [...r.push(stream2.subarray(0, 100_000)), ...r.push(stream2.subarray(100_000))];
    expect(f2?.equals(body2)).toBe(true);
    expect(f2?.buffer === f1.buffer).toBe(true);
    expect(pool.idleBytes).toBe(0);
    // Small frames never come from the pool.
    const [small] = r.push(frame(Buffer.alloc(POOLED_FRAME_MIN_BYTES - 1, 1)));
    pool.give(small!);
    expect(pool.idleBytes).toBe(0);
  });

  it("ignores a second give of the same frame and stops keeping buffers past its limit", () => {
    const pool = new FramePool(1024 * 1024);
    const a = pool.take(700_000);
    const b = pool.take(700_000);
    pool.give(a);
    pool.give(a);
    expect(pool.idleBytes).toBe(1024 * 1024);
    pool.give(b);
    expect(pool.idleBytes).toBe(1024 * 1024);
    const c = pool.take(600_000);
    const d = pool.take(600_000);
    expect(c.buffer === a.buffer).toBe(true);
    expect(d.buffer === a.buffer).toBe(false);
  });
});
