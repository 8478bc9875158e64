import { describe, expect, it } from "vitest";
import { FrameError, FrameReader } from "./frame-reader.ts";

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
});
