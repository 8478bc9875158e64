import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { crc32c } from "@kappa/kafka-protocol";
import { batchCrcValid } from "./batch.ts";
import { crc32cIsNative, crc32cRange } from "./crc32c-native.ts";
import { buildBatch } from "./test-helpers.ts";

describe("crc32cRange", () => {
  it("uses the CPU's CRC32 instruction on the platforms the broker is run and tested on", () => {
    // A missing or broken @node-rs/crc32 binary would silently cost a quarter of
    // the broker's produce CPU; fail here instead.
    if ((process.platform === "linux" || process.platform === "darwin") && (process.arch === "x64" || process.arch === "arm64")) {
      expect(crc32cIsNative).toBe(true);
    }
  });

  it("equals the JavaScript CRC-32C on any range, including empty and unaligned ones", () => {
    const buf = randomBytes(70_000);
    for (const [start, end] of [
      [0, 0],
      [0, 1],
      [3, 4],
      [0, buf.length],
      [21, 61],
      [1, 65_537],
      [4097, 69_999],
    ] as const) {
      expect(crc32cRange(buf, start, end)).toBe(crc32c(buf, start, end));
    }
    // The standard check value of CRC-32C ("123456789" → 0xE3069283).
    expect(crc32cRange(Buffer.from("123456789"), 0, 9)).toBe(0xe3069283);
  });

  it("accepts a valid batch and rejects one with a flipped bit", () => {
    const batch = buildBatch({ records: [{ key: null, value: "hello" }, { key: "k", value: "world" }] });
    expect(batchCrcValid(batch, 0, batch.length)).toBe(true);
    batch[batch.length - 1]! ^= 0x01;
    expect(batchCrcValid(batch, 0, batch.length)).toBe(false);
  });
});
