import { gzipSync } from "node:zlib";
import { compress as snappyCompress } from "snappyjs";
import { describe, expect, it } from "vitest";
import { validateAppendBatches } from "./append-validation.ts";
import { effectiveLogConfig } from "./configs.ts";
import { DecompressedTooLargeError, DecompressionError, decompress, xxhash32 } from "./decompression.ts";
import { buildBatch, recordsSection, withRecordsSection, zstdFrame } from "./test-helpers.ts";

const config = effectiveLogConfig({});
const limits = { maxDecompressedBytes: 1024 * 1024 };

function batchOf(n: number, value = "value"): Buffer {
  return buildBatch({ baseTimestamp: 1_700_000_000_000, records: Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `${value}-${i}` })) });
}

function validate(batch: Buffer): void {
  validateAppendBatches(batch, config, { singleBatch: true }, limits);
}

function codeOf(fn: () => void): number | string {
  try {
    fn();
    return "accepted";
  } catch (err) {
    return (err as { code?: number }).code ?? String(err);
  }
}

/** xerial snappy-java framing around raw Snappy blocks (what Java clients and librdkafka send). */
function xerial(blocks: Buffer[]): Buffer {
  const header = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]);
  return Buffer.concat([header, ...blocks.flatMap((b) => [Buffer.from([b.length >>> 24, (b.length >>> 16) & 0xff, (b.length >>> 8) & 0xff, b.length & 0xff]), b])]);
}

/** An LZ4 frame of independent blocks; `block` is written as given (stored when `stored`). */
function lz4Frame(blocks: Array<{ data: Buffer; stored: boolean }>): Buffer {
  const header = Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0]); // FLG: v01, independent blocks; BD: 64 KiB
  header[6] = (xxhash32(header, 4, 6) >>> 8) & 0xff;
  const parts: Buffer[] = [header];
  for (const b of blocks) {
    const size = Buffer.alloc(4);
    size.writeUInt32LE(((b.stored ? 0x80000000 : 0) | b.data.length) >>> 0);
    parts.push(size, b.data);
  }
  parts.push(Buffer.alloc(4));
  return Buffer.concat(parts);
}

/** One LZ4 sequence: `literal`, then a match of `matchLen` bytes at distance 1 (a run of the last literal byte). */
function lz4Run(literal: Buffer, matchLen: number): Buffer {
  const extra = matchLen - 4;
  const token = (Math.min(literal.length, 15) << 4) | Math.min(extra, 15);
  const out = [token];
  if (literal.length >= 15) {
    let n = literal.length - 15;
    while (n >= 255) {
      out.push(255);
      n -= 255;
    }
    out.push(n);
  }
  const tail = [1, 0];
  const ext: number[] = [];
  if (extra >= 15) {
    let n = extra - 15;
    while (n >= 255) {
      ext.push(255);
      n -= 255;
    }
    ext.push(n);
  }
  // A block must end with literals: append a final 1-literal sequence.
  return Buffer.concat([Buffer.from(out), literal, Buffer.from(tail), Buffer.from(ext), Buffer.from([0x10, literal[literal.length - 1]!])]);
}

describe("xxHash32", () => {
  it("matches the reference values", () => {
    expect(xxhash32(Buffer.alloc(0), 0, 0)).toBe(0x02cc5d05);
    const s = Buffer.from("Nobody inspects the spammish repetition, again and again!");
    expect(xxhash32(s, 0, 16).toString(16)).toBe("fd55f482");
    expect(xxhash32(s, 0, s.length).toString(16)).toBe("a1037845");
  });
});

describe("decompression with a bound", () => {
  const plain = Buffer.from("kafka ".repeat(500));

  it("decodes each codec's valid data", () => {
    expect(decompress(1, gzipSync(plain), 1 << 20).equals(plain)).toBe(true);
    expect(decompress(2, Buffer.from(snappyCompress(plain)), 1 << 20).equals(plain)).toBe(true);
    const half = plain.length / 2;
    expect(decompress(2, xerial([Buffer.from(snappyCompress(plain.subarray(0, half))), Buffer.from(snappyCompress(plain.subarray(half)))]), 1 << 20).equals(plain)).toBe(true);
    // An LZ4 frame written by lz4js (a compressed block with matches).
    const lz4js = Buffer.from("04224d184070df160000006f6b61666b612006005fb06c7a34206669787475726500000000", "hex");
    expect(decompress(3, lz4js, 1 << 20).toString()).toBe("kafka ".repeat(20) + "lz4 fixture");
    expect(decompress(3, lz4Frame([{ data: plain.subarray(0, 100), stored: true }, { data: lz4Run(Buffer.from("ab"), 50), stored: false }]), 1 << 20).toString()).toBe(
      plain.subarray(0, 100).toString() + "ab" + "b".repeat(50) + "b",
    );
    expect(decompress(4, zstdFrame([{ raw: plain.subarray(0, 10) }, { rle: 0x41, size: 5 }]), 1 << 20).toString()).toBe(plain.subarray(0, 10).toString() + "AAAAA");
    expect(decompress(4, zstdFrame([{ raw: Buffer.from("xyz") }], 3), 1 << 20).toString()).toBe("xyz");
  });

  it("stops every codec's compression bomb at the bound", () => {
    const bound = 256 * 1024;
    const zeros = Buffer.alloc(4 * 1024 * 1024);
    expect(() => decompress(1, gzipSync(zeros), bound)).toThrow(DecompressedTooLargeError);
    expect(() => decompress(2, Buffer.from(snappyCompress(zeros)), bound)).toThrow(DecompressedTooLargeError);
    expect(() => decompress(2, xerial(Array.from({ length: 8 }, () => Buffer.from(snappyCompress(zeros.subarray(0, 64 * 1024))))), bound)).toThrow(DecompressedTooLargeError);
    // 64 blocks of one literal and a 64 KiB run: 4 MiB from ~17 KB.
    expect(() => decompress(3, lz4Frame(Array.from({ length: 64 }, () => ({ data: lz4Run(Buffer.from("z"), 64 * 1024 - 2), stored: false }))), bound)).toThrow(DecompressedTooLargeError);
    // 32 RLE blocks of 128 KiB: 4 MiB from ~100 bytes; and a frame that declares 4 GiB.
    expect(() => decompress(4, zstdFrame(Array.from({ length: 32 }, () => ({ rle: 0, size: 128 * 1024 }))), bound)).toThrow(DecompressedTooLargeError);
    expect(() => decompress(4, zstdFrame([{ raw: Buffer.from("x") }], 2 ** 32), bound)).toThrow(DecompressedTooLargeError);
  });

  it("refuses invalid data of each codec", () => {
    const junk = Buffer.from("this is not compressed at all, not even a little bit");
    for (const codec of [1, 2, 3, 4]) expect(() => decompress(codec, junk, 1 << 20)).toThrow(DecompressionError);
    // LZ4: bad header checksum, a match before the block start, a truncated block.
    const frame = lz4Frame([{ data: lz4Run(Buffer.from("ab"), 10), stored: false }]);
    const badHc = Buffer.from(frame);
    badHc[6] = badHc[6]! ^ 0xff;
    expect(() => decompress(3, badHc, 1 << 20)).toThrow(/header checksum/);
    const backwards = lz4Frame([{ data: Buffer.from([0x10, 0x61, 0x09, 0x00, 0x10, 0x61]), stored: false }]);
    expect(() => decompress(3, backwards, 1 << 20)).toThrow(/points before the block/);
    expect(() => decompress(3, frame.subarray(0, frame.length - 6), 1 << 20)).toThrow(DecompressionError);
    // zstd: a reserved block type; a frame cut short.
    const z = zstdFrame([{ raw: Buffer.from("hello") }]);
    const reserved = Buffer.from(z);
    reserved[6] = reserved[6]! | 0x06;
    expect(() => decompress(4, reserved, 1 << 20)).toThrow(DecompressionError);
    expect(() => decompress(4, z.subarray(0, z.length - 2), 1 << 20)).toThrow(DecompressionError);
    expect(() => decompress(5, junk, 1 << 20)).toThrow(DecompressionError);
  });
});

describe("produce validation (LogValidator)", () => {
  it("accepts healthy batches of every codec", () => {
    const b = batchOf(5);
    const recs = recordsSection(b);
    validate(b);
    validate(buildBatch({ compression: "gzip", records: [{ key: "a", value: "b" }] }));
    validate(withRecordsSection(b, 2, xerial([Buffer.from(snappyCompress(recs))])));
    validate(withRecordsSection(b, 3, lz4Frame([{ data: recs, stored: true }])));
    validate(withRecordsSection(b, 4, zstdFrame([{ raw: recs }])));
  });

  it("refuses unknown codecs and undecodable payloads with CORRUPT_MESSAGE", () => {
    const b = batchOf(3);
    const recs = recordsSection(b);
    for (const codec of [5, 6, 7]) expect(codeOf(() => validate(withRecordsSection(b, codec, recs)))).toBe(2);
    for (const codec of [1, 2, 3, 4]) expect(codeOf(() => validate(withRecordsSection(b, codec, Buffer.from("garbage payload, not compressed"))))).toBe(2);
    // A bomb: 32 × 128 KiB RLE blocks against a 1 MiB bound.
    expect(codeOf(() => validate(withRecordsSection(b, 4, zstdFrame(Array.from({ length: 32 }, () => ({ rle: 0, size: 128 * 1024 }))))))).toBe(2);
  });

  it("refuses records that do not match the header with INVALID_RECORD, compressed or not", () => {
    const b = batchOf(3);
    const recs = recordsSection(b);
    const fewer = batchOf(2);
    const twoRecords = recordsSection(fewer);
    // Header says 3 records; the section holds 2 (CRC recomputed so only the records are wrong).
    expect(codeOf(() => validate(withRecordsSection(b, 0, twoRecords)))).toBe(87);
    expect(codeOf(() => validate(withRecordsSection(b, 1, gzipSync(twoRecords))))).toBe(87);
    // Trailing garbage after the last record.
    expect(codeOf(() => validate(withRecordsSection(b, 4, zstdFrame([{ raw: Buffer.concat([recs, Buffer.from([1, 2, 3])]) }]))))).toBe(87);
    // A record length that runs past the end.
    const cut = Buffer.from(recs);
    cut[0] = 0x7e; // length 63, more than the section holds
    expect(codeOf(() => validate(withRecordsSection(b, 0, cut)))).toBe(87);
    // Offset deltas must be 0, 1, 2, …: rebuild with the second record's delta changed.
    const r = Buffer.from(recs);
    const firstLen = r[0]! >> 1; // zigzag, one byte for these small records
    const second = 1 + firstLen;
    // record: length, attributes, timestampDelta (1 byte here), offsetDelta
    expect(r[second + 3]).toBe(2); // zigzag(1)
    r[second + 3] = 4; // zigzag(2)
    expect(codeOf(() => validate(withRecordsSection(b, 0, r)))).toBe(87);
  });
});
