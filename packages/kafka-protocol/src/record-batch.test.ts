import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { crc32c } from "./crc32c.ts";
import { ProtocolError, UnsupportedCompressionError } from "./errors.ts";
import {
  BATCH_HEADER_SIZE,
  Compression,
  TimestampType,
  batchCrcMatches,
  decodeRecordBatch,
  encodeRecordBatch,
  iterateBatches,
  readBatchHeader,
  setBaseOffset,
  setMaxTimestampAndRecrc,
  setPartitionLeaderEpoch,
} from "./record-batch.ts";

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ""), "hex");

// Produced by kafkajs 2.2.4's own RecordBatch/Record encoders (an independent
// implementation with its own CRC-32C): two records, the first with key
// "key-1", value "hello" and header trace=abc, the second with null key,
// value "world", timestampDelta 5; baseTimestamp 1700000000000.
const KAFKAJS_BATCH = hex(
  "0000000000000000 00000058 00000000 02 87346a6c 0000 00000001 0000018bcfe56800 0000018bcfe56805" +
    "ffffffffffffffff 0000 00000000 00000002" +
    "34 00 00 00 0a 6b65792d31 0a 68656c6c6f 02 0a 7472616365 06 616263" +
    "16 00 0a 02 01 0a 776f726c64 00",
);
// kafkajs gzip batch: one record with value "gzipped value".
const KAFKAJS_GZIP_BATCH = hex(
  "0000000000000000000000590000000002d7786cee0001000000000000018bcfe568000000018bcfe56800ffffffffffffffff" +
    "000000000000000000011f8b08000000000000035363606060944aafca2c28484d51284bcc294d650000d705a50714000000",
);

describe("crc32c", () => {
  it('is the Castagnoli check value for "123456789" (0xE3069283)', () => {
    expect(crc32c(Buffer.from("123456789"))).toBe(0xe3069283);
  });

  it("matches the bitwise definition on every length 0..64 and supports chaining", () => {
    const bitwise = (b: Uint8Array): number => {
      let c = 0xffffffff;
      for (const byte of b) {
        c ^= byte;
        for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
      }
      return (c ^ 0xffffffff) >>> 0;
    };
    const data = Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 37 + 11) & 0xff));
    for (let n = 0; n <= 64; n++) expect(crc32c(data.subarray(0, n))).toBe(bitwise(data.subarray(0, n)));
    expect(crc32c(data, 20, 64, crc32c(data, 0, 20))).toBe(crc32c(data));
  });

  it("checksums 1 MB in well under 20 ms", () => {
    const mb = Buffer.alloc(1 << 20, 0x5a);
    crc32c(mb);
    const t = performance.now();
    for (let i = 0; i < 10; i++) crc32c(mb);
    expect((performance.now() - t) / 10).toBeLessThan(20);
  });
});

describe("a known-good batch from another implementation", () => {
  it("reads the header without decompressing", () => {
    const h = readBatchHeader(KAFKAJS_BATCH);
    expect(h).toMatchObject({
      baseOffset: 0n,
      batchLength: KAFKAJS_BATCH.length - 12,
      partitionLeaderEpoch: 0,
      magic: 2,
      crc: 0x87346a6c,
      compression: Compression.none,
      timestampType: TimestampType.CreateTime,
      isTransactional: false,
      isControl: false,
      lastOffsetDelta: 1,
      baseTimestamp: 1700000000000n,
      maxTimestamp: 1700000000005n,
      producerId: -1n,
      producerEpoch: 0,
      baseSequence: 0,
      recordCount: 2,
    });
    expect(crc32c(KAFKAJS_BATCH, 21)).toBe(0x87346a6c);
    expect(batchCrcMatches(KAFKAJS_BATCH)).toBe(true);
  });

  it("decodes its records", () => {
    const { records } = decodeRecordBatch(KAFKAJS_BATCH);
    expect(records).toEqual([
      {
        attributes: 0,
        offsetDelta: 0,
        timestampDelta: 0,
        key: Buffer.from("key-1"),
        value: Buffer.from("hello"),
        headers: [{ key: "trace", value: Buffer.from("abc") }],
      },
      { attributes: 0, offsetDelta: 1, timestampDelta: 5, key: null, value: Buffer.from("world"), headers: [] },
    ]);
  });

  it("encodes the same records to the same bytes", () => {
    const ours = encodeRecordBatch({
      baseTimestamp: 1700000000000n,
      partitionLeaderEpoch: 0,
      producerEpoch: 0,
      baseSequence: 0,
      records: [
        { key: "key-1", value: "hello", headers: [{ key: "trace", value: "abc" }] },
        { key: null, value: "world", timestampDelta: 5 },
      ],
    });
    expect(ours.toString("hex")).toBe(KAFKAJS_BATCH.toString("hex"));
  });

  it("decodes a kafkajs gzip batch", () => {
    const { header, records } = decodeRecordBatch(KAFKAJS_GZIP_BATCH);
    expect(header.compression).toBe(Compression.gzip);
    expect(records.map((r) => r.value?.toString())).toEqual(["gzipped value"]);
  });
});

describe("a batch built by hand from the spec", () => {
  it("has the CRC-32C of bytes 21..end and decodes", () => {
    // One record: attributes 0, timestampDelta 0, offsetDelta 0, key null, value "a", no headers.
    // length zigzag(7)=0e, attributes 00, timestampDelta 00, offsetDelta 00, key length −1 → 01, value length 1 → 02, "a", 0 headers
    const record = hex("0e 00 00 00 01 02 61 00");
    const afterCrc = Buffer.concat([
      hex("0000"), // attributes
      hex("00000000"), // lastOffsetDelta
      hex("0000000000000064"), // baseTimestamp 100
      hex("0000000000000064"), // maxTimestamp 100
      hex("ffffffffffffffff"), // producerId −1
      hex("ffff"), // producerEpoch −1
      hex("ffffffff"), // baseSequence −1
      hex("00000001"), // recordCount
      record,
    ]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32c(afterCrc));
    const batch = Buffer.concat([
      hex("0000000000000007"), // baseOffset 7
      hex("00000000"), // batchLength, filled in below
      hex("ffffffff"), // partitionLeaderEpoch
      hex("02"),
      crc,
      afterCrc,
    ]);
    batch.writeInt32BE(batch.length - 12, 8);
    expect(batchCrcMatches(batch)).toBe(true);
    const { header, records } = decodeRecordBatch(batch);
    expect(header.baseOffset).toBe(7n);
    expect(records).toEqual([{ attributes: 0, offsetDelta: 0, timestampDelta: 0, key: null, value: Buffer.from("a"), headers: [] }]);
    const ours = encodeRecordBatch({ baseOffset: 7n, baseTimestamp: 100n, records: [{ value: "a" }] });
    expect(ours.equals(batch)).toBe(true);
  });
});

describe("encode/decode round trip", () => {
  const records = Array.from({ length: 50 }, (_, i) => ({
    key: i % 3 === 0 ? null : Buffer.from(`k${i}`),
    value: i % 7 === 0 ? null : Buffer.from("v".repeat(i * 10)),
    timestampDelta: i * 1000,
    headers: i % 2 ? [{ key: "h", value: i % 4 === 1 ? null : Buffer.from([i]) }] : [],
  }));

  for (const compression of ["none", "gzip"] as const) {
    it(`${compression}: records, header fields and CRC survive`, () => {
      const bytes = encodeRecordBatch({
        baseOffset: 42n,
        baseTimestamp: 1700000000000n,
        producerId: 9n,
        producerEpoch: 2,
        baseSequence: 100,
        compression,
        isTransactional: true,
        records,
      });
      expect(batchCrcMatches(bytes)).toBe(true);
      const { header, records: out } = decodeRecordBatch(bytes);
      expect(header).toMatchObject({
        baseOffset: 42n,
        compression: Compression[compression],
        isTransactional: true,
        lastOffsetDelta: 49,
        recordCount: 50,
        maxTimestamp: 1700000000000n + 49000n,
        producerId: 9n,
        producerEpoch: 2,
        baseSequence: 100,
      });
      expect(out).toEqual(
        records.map((r, i) => ({
          attributes: 0,
          offsetDelta: i,
          timestampDelta: r.timestampDelta,
          key: r.key,
          value: r.value,
          headers: r.headers,
        })),
      );
    });
  }

  it("gzip actually compresses", () => {
    const value = Buffer.alloc(10000, "a");
    const plain = encodeRecordBatch({ baseTimestamp: 0n, records: [{ value }] });
    const gz = encodeRecordBatch({ baseTimestamp: 0n, compression: "gzip", records: [{ value }] });
    expect(gz.length).toBeLessThan(plain.length / 10);
    expect(decodeRecordBatch(gz).records[0]!.value!.equals(value)).toBe(true);
  });
});

describe("broker rewrites", () => {
  it("setBaseOffset and setPartitionLeaderEpoch keep the CRC valid", () => {
    const b = encodeRecordBatch({ baseTimestamp: 5n, records: [{ value: "x" }] });
    setBaseOffset(b, 123456789012n);
    setPartitionLeaderEpoch(b, 3);
    expect(batchCrcMatches(b)).toBe(true);
    expect(readBatchHeader(b)).toMatchObject({ baseOffset: 123456789012n, partitionLeaderEpoch: 3 });
  });

  it("setMaxTimestampAndRecrc sets LogAppendTime and a new valid CRC", () => {
    const b = encodeRecordBatch({ baseTimestamp: 5n, records: [{ value: "x" }] });
    const oldCrc = readBatchHeader(b).crc;
    setMaxTimestampAndRecrc(b, 999n);
    const h = readBatchHeader(b);
    expect(h.maxTimestamp).toBe(999n);
    expect(h.timestampType).toBe(TimestampType.LogAppendTime);
    expect(h.crc).not.toBe(oldCrc);
    expect(batchCrcMatches(b)).toBe(true);
    expect(decodeRecordBatch(b).records[0]!.value!.toString()).toBe("x");
  });
});

describe("iterateBatches", () => {
  it("yields complete batches as views and stops at a partial one", () => {
    const a = encodeRecordBatch({ baseOffset: 0n, baseTimestamp: 0n, records: [{ value: "a" }] });
    const b = encodeRecordBatch({ baseOffset: 1n, baseTimestamp: 0n, records: [{ value: "b" }, { value: "c" }] });
    const buf = Buffer.concat([a, b, b.subarray(0, 30)]);
    const got = [...iterateBatches(buf)];
    expect(got.map((x) => x.header.baseOffset)).toEqual([0n, 1n]);
    expect(got[1]!.bytes.equals(b)).toBe(true);
    expect(got[1]!.bytes.buffer).toBe(buf.buffer);
    expect([...iterateBatches(buf.subarray(0, 5))]).toEqual([]);
  });

  it("throws on a batch length too small to be a v2 batch", () => {
    const bad = Buffer.alloc(BATCH_HEADER_SIZE);
    bad.writeInt32BE(3, 8);
    expect(() => [...iterateBatches(bad)]).toThrow(ProtocolError);
  });
});

describe("malformed and unsupported batches", () => {
  const good = () => encodeRecordBatch({ baseTimestamp: 0n, records: [{ key: "k", value: "v" }] });

  it("CRC mismatch is a ProtocolError", () => {
    const b = good();
    b.writeUInt8(b.readUInt8(b.length - 1) ^ 0xff, b.length - 1);
    expect(batchCrcMatches(b)).toBe(false);
    expect(() => decodeRecordBatch(b)).toThrow(/CRC/);
  });

  it("truncated batches and headers throw ProtocolError", () => {
    const b = good();
    expect(() => decodeRecordBatch(b.subarray(0, b.length - 1))).toThrow(ProtocolError);
    expect(() => readBatchHeader(b.subarray(0, 60))).toThrow(ProtocolError);
  });

  it("absurd record counts and lengths throw without allocating", () => {
    const b = good();
    b.writeInt32BE(0x7fffffff, 57);
    setMaxTimestampAndRecrc(b, 0n, { logAppendTime: false });
    expect(() => decodeRecordBatch(b)).toThrow(ProtocolError);
  });

  it("magic other than 2 is rejected", () => {
    const b = good();
    b.writeInt8(1, 16);
    expect(() => decodeRecordBatch(b)).toThrow(/magic/);
  });

  it("snappy/lz4/zstd batches: header readable, decode throws UnsupportedCompressionError", () => {
    for (const codec of [Compression.snappy, Compression.lz4, Compression.zstd]) {
      const b = good();
      b.writeInt16BE(codec, 21);
      setMaxTimestampAndRecrc(b, 0n, { logAppendTime: false });
      expect(readBatchHeader(b).compression).toBe(codec);
      expect(() => decodeRecordBatch(b)).toThrow(UnsupportedCompressionError);
    }
  });

  it("a gzip bomb is cut off at maxDecompressedBytes", () => {
    const b = encodeRecordBatch({ baseTimestamp: 0n, compression: "gzip", records: [{ value: Buffer.alloc(2_000_000) }] });
    expect(() => decodeRecordBatch(b, { maxDecompressedBytes: 100_000 })).toThrow(ProtocolError);
  });

  it("garbage inside a gzip batch is a ProtocolError", () => {
    const inner = gzipSync(Buffer.from([0x7f]));
    const b = Buffer.concat([good().subarray(0, BATCH_HEADER_SIZE), inner]);
    b.writeInt32BE(b.length - 12, 8);
    b.writeInt16BE(Compression.gzip, 21);
    setMaxTimestampAndRecrc(b, 0n, { logAppendTime: false });
    expect(() => decodeRecordBatch(b)).toThrow(ProtocolError);
  });
});
