import { describe, expect, it } from "vitest";
import { SizeClassPool } from "./buffer-pool.ts";

const KiB = 1024;

function pool(maxIdle: number): { p: SizeClassPool; allocated: number[] } {
  const allocated: number[] = [];
  const p = new SizeClassPool(maxIdle, 64 * KiB, (cap) => {
    allocated.push(cap);
    return Buffer.allocUnsafeSlow(cap);
  });
  return { p, allocated };
}

describe("SizeClassPool", () => {
  it("hands out power-of-two capacities and reuses the buffer of that capacity given back last", () => {
    const { p, allocated } = pool(1024 * KiB);
    expect(p.capacityFor(1)).toBe(64 * KiB);
    expect(p.capacityFor(64 * KiB + 1)).toBe(128 * KiB);
    const a = p.take(100 * KiB);
    const b = p.take(100 * KiB);
    expect(a.length).toBe(128 * KiB);
    p.give(a);
    p.give(b);
    expect(p.take(70 * KiB) === b).toBe(true);
    expect(p.take(128 * KiB) === a).toBe(true);
    // A different capacity is not served from another's buffers.
    p.give(a);
    expect(p.take(200 * KiB).length).toBe(256 * KiB);
    expect(allocated).toEqual([128 * KiB, 128 * KiB, 256 * KiB]);
    expect(p.idleBytes).toBe(128 * KiB);
  });

  it("drops the idle buffers given back longest ago, of any capacity, to keep one given back now", () => {
    const { p } = pool(512 * KiB);
    const smalls = Array.from({ length: 8 }, () => p.take(64 * KiB));
    for (const s of smalls) p.give(s);
    expect(p.idleCounts()).toEqual(new Map([[64 * KiB, 8]]));
    const big = p.take(200 * KiB);
    p.give(big);
    // 256 KiB needed room: the four oldest 64 KiB buffers went.
    expect(p.idleCounts()).toEqual(
      new Map([
        [64 * KiB, 4],
        [256 * KiB, 1],
      ]),
    );
    expect(p.idleBytes).toBe(512 * KiB);
    expect(p.take(256 * KiB) === big).toBe(true);
    // The newest small ones are the ones kept.
    // (Identity as booleans: toEqual would compare and diff the buffers' bytes.)
    const kept = [p.take(1), p.take(1), p.take(1), p.take(1)];
    expect(kept.map((b, i) => b === smalls[7 - i])).toEqual([true, true, true, true]);
  });

  it("keeps no buffer larger than its whole limit", () => {
    const { p } = pool(128 * KiB);
    const kept = p.take(64 * KiB);
    p.give(kept);
    p.give(p.take(200 * KiB));
    expect(p.idleCounts()).toEqual(new Map([[64 * KiB, 1]]));
  });
});
