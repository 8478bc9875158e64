import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { effectiveLogConfig } from "./configs.ts";
import { decompress } from "./decompression.ts";
import { recompressBatch } from "./recompression.ts";
import { buildBatch, recordsSection } from "./test-helpers.ts";

const MiB = 1024 * 1024;

describe("recompression (compression.type)", () => {
  const batch = buildBatch({ baseTimestamp: 1_700_000_000_000, records: Array.from({ length: 200 }, (_, i) => ({ key: `key-${i % 7}`, value: `value ${i} ${"abc".repeat(i % 40)}` })) });
  const records = recordsSection(batch);

  for (const [name, codec] of [["gzip", 1], ["snappy", 2], ["lz4", 3], ["zstd", 4]] as const) {
    it(`rebuilds an uncompressed batch as ${name}, keeping the header and records`, () => {
      const out = recompressBatch(batch, codec, effectiveLogConfig({ "compression.type": name }), MiB);
      expect(out.readInt16BE(21) & 7).toBe(codec);
      expect(out.subarray(0, 17).subarray(0, 8).equals(batch.subarray(0, 8))).toBe(true); // base offset
      expect(out.readInt32BE(57)).toBe(200); // record count
      expect(decompress(codec, out.subarray(61), MiB).equals(records)).toBe(true);
      // And back to uncompressed from it.
      const back = recompressBatch(out, 0, effectiveLogConfig({ "compression.type": "uncompressed" }), MiB);
      expect(back.equals(batch)).toBe(true);
    });
  }

  it("compresses repetitive data with LZ4 and round-trips random and edge-sized inputs", () => {
    const cfg = effectiveLogConfig({ "compression.type": "lz4" });
    const fake = (section: Buffer): Buffer => Buffer.concat([batch.subarray(0, 61), section]);
    for (const input of [Buffer.alloc(0), Buffer.from("a"), Buffer.alloc(13, 1), Buffer.alloc(300_000, 7), randomBytes(70_000), Buffer.from("kafka ".repeat(20_000))]) {
      const out = recompressBatch(fake(input), 3, cfg, MiB);
      expect(decompress(3, out.subarray(61), MiB).equals(input)).toBe(true);
    }
    expect(recompressBatch(fake(Buffer.from("kafka ".repeat(20_000))), 3, cfg, MiB).length).toBeLessThan(10_000);
  });
});
