import { describe, expect, it } from "vitest";
import { ProtocolError } from "./errors.ts";
import { FrameAssembler } from "./frame-assembler.ts";

const frame = (body: Buffer) => {
  const out = Buffer.alloc(4 + body.length);
  out.writeInt32BE(body.length, 0);
  body.copy(out, 4);
  return out;
};
const body = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));

describe("FrameAssembler", () => {
  const bodies = [body(1, 1), body(0, 2), body(70_000, 3), body(5, 4), body(130_000, 5)];
  const stream = Buffer.concat(bodies.map(frame));

  it.each([1, 3, 4, 7, 1024, 65_536, stream.length])("returns every frame's body in order from chunks of %i bytes", (size) => {
    const assembler = new FrameAssembler();
    const got: Buffer[] = [];
    for (let at = 0; at < stream.length; at += size) got.push(...assembler.push(stream.subarray(at, at + size)));
    expect(got).toEqual(bodies);
    expect(assembler.pending).toBe(0);
  });

  it("keeps a partial frame until its last byte arrives", () => {
    const assembler = new FrameAssembler();
    const bytes = frame(body(10, 9));
    expect(assembler.push(bytes.subarray(0, 2))).toEqual([]);
    expect(assembler.push(bytes.subarray(2, 13))).toEqual([]);
    expect(assembler.pending).toBe(13);
    expect(assembler.push(bytes.subarray(13))).toEqual([body(10, 9)]);
  });

  it("gives each frame a buffer of its own, not a view of the chunk it came in", () => {
    const assembler = new FrameAssembler();
    const chunk = Buffer.concat([frame(body(10_000, 1)), frame(body(8, 2))]);
    const [a, b] = assembler.push(chunk);
    chunk.fill(0);
    expect(a).toEqual(body(10_000, 1));
    expect(b).toEqual(body(8, 2));
    // A large frame is not a view that keeps the whole chunk alive.
    expect(a!.buffer).not.toBe(chunk.buffer);
    expect(a!.buffer.byteLength).toBe(10_000);
  });

  it("refuses a negative or oversized length", () => {
    expect(() => new FrameAssembler().push(Buffer.from("ffffffff", "hex"))).toThrow(ProtocolError);
    expect(() => new FrameAssembler(1024).push(Buffer.from("00000401", "hex"))).toThrow(ProtocolError);
    // Split across chunks, too.
    const assembler = new FrameAssembler(1024);
    expect(assembler.push(Buffer.from("0000", "hex"))).toEqual([]);
    expect(() => assembler.push(Buffer.from("0401", "hex"))).toThrow(ProtocolError);
  });
});
