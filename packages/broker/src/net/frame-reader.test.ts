import { describe, expect, it } from "vitest";
import { DIRECT_READ_MIN_BYTES, FRAME_GROWTH_FACTOR, FRAME_MIN_ALLOCATION, FrameError, FramePool, FrameReader, POOLED_FRAME_MIN_BYTES } from "./frame-reader.ts";

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

  it("rejects a size prefix above the limit before buffering the body, keeping the frames before it", () => {
    const r = new FrameReader(100);
    expect(r.push(Buffer.concat([frame(Buffer.alloc(12, 3)), Buffer.from([0, 0, 0, 101]), Buffer.alloc(50)]))).toEqual([Buffer.alloc(12, 3)]);
    expect(r.error).toBeInstanceOf(FrameError);
    expect(r.bufferedBytes).toBe(0);
    expect(r.push(frame(Buffer.alloc(12)))).toEqual([]);
    const r2 = new FrameReader(104857600);
    r2.push(Buffer.from([0x7f, 0xff, 0xff, 0xff, 1, 2]));
    expect(r2.error?.message).toMatch(/exceeds socket.request.max.bytes/);
  });

  it("applies the limit in force when a prefix arrives (sasl.server.max.receive.size before authentication)", () => {
    let limit = { bytes: 524288, setting: "sasl.server.max.receive.size" };
    const r = new FrameReader(() => limit);
    expect(r.push(frame(Buffer.alloc(20)))).toHaveLength(1);
    limit = { bytes: 104857600, setting: "socket.request.max.bytes" };
    expect(r.push(Buffer.from([0, 0x10, 0, 0]))).toEqual([]); // 1 MiB declared: allowed now
    expect(r.error).toBeNull();
    const pre = new FrameReader(() => ({ bytes: 524288, setting: "sasl.server.max.receive.size" }));
    pre.push(Buffer.from([0, 0x10, 0, 0]));
    expect(pre.error?.message).toBe("request size 1048576 exceeds sasl.server.max.receive.size 524288");
  });

  it("rejects negative sizes and sizes too small for a request header", () => {
    const a = new FrameReader(100);
    a.push(Buffer.from([0xff, 0xff, 0xff, 0xfb]));
    expect(a.error?.message).toMatch(/invalid request size -5/);
    const b = new FrameReader(100);
    b.push(Buffer.from([0, 0, 0, 9]));
    expect(b.error?.message).toMatch(/smaller than a request header/);
  });

  it("reports when the frame still arriving started, and allocates nothing for its declared size", () => {
    let now = 1000;
    const r = new FrameReader(104857600, null, () => now);
    expect(r.pendingFrame()).toBeNull();
    r.push(Buffer.from([0x06, 0x40, 0, 0, 1, 2, 3])); // declares 100 MiB, sends 3 bytes
    expect(r.pendingFrame()).toEqual({ startedAt: 1000, size: 104857600 });
    expect(r.bufferedBytes).toBe(3);
    now = 5000;
    r.push(Buffer.from([4]));
    expect(r.pendingFrame()?.startedAt).toBe(1000);
    const small = new FrameReader(1000, null, () => now);
    small.push(Buffer.concat([frame(Buffer.alloc(12)), Buffer.from([0, 0])]));
    expect(small.pendingFrame()).toEqual({ startedAt: 5000, size: -1 });
    now = 6000;
    small.push(Buffer.from([0, 12, ...Buffer.alloc(12)]));
    expect(small.pendingFrame()).toBeNull();
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
    const first = r.push(stream);
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

  it("copies out of a reused read buffer, growing a frame with the bytes that arrived, not its declared size", () => {
    const pool = new FramePool(16 * 1024 * 1024);
    const r = new FrameReader(8 * 1024 * 1024, pool);
    const body = Buffer.alloc(3_000_000);
    for (let i = 0; i < body.length; i++) body[i] = i % 251;
    const stream = Buffer.concat([frame(body), frame(Buffer.alloc(20, 5))]);
    // One read buffer, overwritten for every read, as the socket's onread buffer is.
    const readBuffer = Buffer.alloc(50_000);
    const out: Buffer[] = [];
    for (let at = 0; at < stream.length; at += readBuffer.length) {
      const n = stream.copy(readBuffer, 0, at, Math.min(stream.length, at + readBuffer.length));
      out.push(...r.push(readBuffer, n));
      readBuffer.fill(0xee);
      if (out.length === 0) expect(r.allocatedBytes).toBeLessThanOrEqual(FRAME_GROWTH_FACTOR * r.bufferedBytes + FRAME_MIN_ALLOCATION);
    }
    expect(out.length).toBe(2);
    expect(out[0]?.equals(body)).toBe(true);
    expect(out[1]?.equals(Buffer.alloc(20, 5))).toBe(true);
    // A prefix split across reads.
    expect(r.push(Buffer.from([0, 0]))).toEqual([]);
    expect(r.push(Buffer.from([0, 10, ...Buffer.alloc(10, 1)]))).toEqual([Buffer.alloc(10, 1)]);
    // 100 MiB declared, 3 bytes sent: 64 KiB allocated.
    const big = new FrameReader(104857600, pool);
    big.push(Buffer.from([0x06, 0x40, 0, 0, 1, 2, 3]));
    expect(big.allocatedBytes).toBe(FRAME_MIN_ALLOCATION);
  });

  it("hands out the rest of a large frame as the next read's target, so its bytes arrive in the frame uncopied", () => {
    const pool = new FramePool(16 * 1024 * 1024);
    const r = new FrameReader(8 * 1024 * 1024, pool);
    const body = Buffer.alloc(1_000_000);
    for (let i = 0; i < body.length; i++) body[i] = (i * 7) % 253;
    const small = Buffer.alloc(30, 3);
    const stream = Buffer.concat([frame(body), frame(small), frame(body)]);
    const shared = Buffer.alloc(1024 * 1024);
    const out: Buffer[] = [];
    const targets = new Set<ArrayBufferLike>();
    let copiedThroughShared = 0;
    let at = 0;
    // What the socket does: read into the direct target when there is one, else into the shared
    // buffer (at most nextReadBytes), at most 100,000 bytes a read (what a busy socket has ready).
    while (at < stream.length) {
      const target = r.directTarget();
      if (target) {
        expect(target.length).toBeGreaterThanOrEqual(1);
        targets.add(target.buffer);
        const n = stream.copy(target, 0, at, Math.min(stream.length, at + Math.min(target.length, 100_000)));
        at += n;
        out.push(...r.pushDirect(n));
      } else {
        const limit = Math.min(shared.length, r.nextReadBytes() ?? shared.length, 100_000);
        const n = stream.copy(shared, 0, at, Math.min(stream.length, at + limit));
        at += n;
        copiedThroughShared += n;
        out.push(...r.push(shared, n));
        shared.fill(0xee);
      }
      if (out.length < 1) expect(r.allocatedBytes).toBeLessThanOrEqual(FRAME_GROWTH_FACTOR * r.bufferedBytes + FRAME_MIN_ALLOCATION);
    }
    expect(out.length).toBe(3);
    expect(out[0]!.equals(body)).toBe(true);
    expect(out[1]!.equals(small)).toBe(true);
    expect(out[2]!.equals(body)).toBe(true);
    // The large frames were handed out in the buffers the reads went into.
    expect(targets.has(out[0]!.buffer)).toBe(true);
    expect(targets.has(out[2]!.buffer)).toBe(true);
    // Only the starts of frames came through the shared buffer: a full read where the frame before
    // was small or there was none (the first and the third here), DIRECT_READ_MIN_BYTES after one
    // read directly (the small frame), never the rest of a large frame.
    expect(copiedThroughShared).toBeLessThanOrEqual(2 * 100_000 + DIRECT_READ_MIN_BYTES);
    // A frame with less than DIRECT_READ_MIN_BYTES to come, or none started: no target.
    expect(r.directTarget()).toBeNull();
    r.push(frame(Buffer.alloc(DIRECT_READ_MIN_BYTES - 1)).subarray(0, 4));
    expect(r.directTarget()).toBeNull();
    expect(() => r.pushDirect(10)).toThrow(/without a matching directTarget/);
  });

  it("grows a directly read frame by the same bound as a copied one: a declared size costs nothing until bytes come", () => {
    const r = new FrameReader(104857600, new FramePool(16 * 1024 * 1024));
    r.push(Buffer.from([0x06, 0x40, 0, 0]));
    const target = r.directTarget();
    expect(target?.length).toBe(FRAME_MIN_ALLOCATION);
    expect(r.allocatedBytes).toBe(FRAME_MIN_ALLOCATION);
    target!.fill(1);
    r.pushDirect(target!.length);
    const next = r.directTarget();
    expect(r.allocatedBytes).toBeLessThanOrEqual(FRAME_GROWTH_FACTOR * r.bufferedBytes + FRAME_MIN_ALLOCATION);
    expect(next!.length).toBe(r.allocatedBytes - r.bufferedBytes);
  });

  it("ignores a second give of the same frame and keeps the buffers given back last within its limit", () => {
    const pool = new FramePool(1024 * 1024);
    const a = pool.take(700_000);
    const b = pool.take(700_000);
    pool.give(a);
    pool.give(a);
    expect(pool.idleBytes).toBe(1024 * 1024);
    // Over the limit: the older idle buffer (a) is dropped for the one just given back.
    pool.give(b);
    expect(pool.idleBytes).toBe(1024 * 1024);
    const c = pool.take(600_000);
    const d = pool.take(600_000);
    expect(c.buffer === b.buffer).toBe(true);
    expect(d.buffer === a.buffer || d.buffer === b.buffer).toBe(false);
  });

  it("assembles a large frame in an idle pooled buffer at once, without growing it step by step", () => {
    const pool = new FramePool(16 * 1024 * 1024);
    const body = Buffer.alloc(1_000_000);
    for (let i = 0; i < body.length; i++) body[i] = (i * 13) % 251;
    const stream = frame(body);
    // No idle buffer: the frame grows with what arrived (64 KiB first).
    const cold = new FrameReader(8 * 1024 * 1024, pool);
    expect(cold.push(stream.subarray(0, 10_000))).toEqual([]);
    expect(cold.allocatedBytes).toBe(FRAME_MIN_ALLOCATION);
    const [first] = cold.push(stream.subarray(10_000));
    expect(first?.equals(body)).toBe(true);
    pool.give(first!);
    const idle = pool.idleBytes;
    // An idle buffer of the frame's size: taken whole at the first bytes, and it is the one given back.
    const warm = new FrameReader(8 * 1024 * 1024, pool);
    expect(warm.push(stream.subarray(0, 10_000))).toEqual([]);
    expect(warm.allocatedBytes).toBe(body.length);
    expect(pool.idleBytes).toBe(idle - 1024 * 1024);
    const [second] = warm.push(stream.subarray(10_000));
    expect(second?.equals(body)).toBe(true);
    expect(second!.buffer === first!.buffer).toBe(true);
  });

  it("follows a change of frame size: a pool full of one size makes room for the size in use now", () => {
    const pool = new FramePool(8 * 1024 * 1024);
    // ~1 MB frames (kcat's) fill the pool with 1 MiB buffers.
    const small = Array.from({ length: 8 }, () => pool.take(1_000_000));
    for (const f of small) pool.give(f);
    expect(pool.idleBytes).toBe(8 * 1024 * 1024);
    // Frames a little over 1 MiB (2 MiB buffers), one in flight at a time: from the second on, each reuses the last.
    const first = pool.take(1_100_000);
    pool.give(first);
    for (let i = 0; i < 5; i++) {
      const next = pool.take(1_100_000);
      expect(next.buffer === first.buffer).toBe(true);
      pool.give(next);
    }
    expect(pool.idleBytes).toBe(8 * 1024 * 1024);
  });
});
