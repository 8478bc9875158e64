/// <reference path="../types/snappyjs.d.ts" />
/**
 * compression.type on produce (Kafka's LogValidator with a target codec other
 * than "producer"): a batch whose codec differs from the topic's is rebuilt
 * with the topic's codec — same header (offsets, timestamps, producer fields),
 * new attributes, length and CRC. "producer" keeps every batch as sent.
 *
 * Codecs written: gzip (node:zlib, compression.gzip.level), snappy (snappyjs,
 * in xerial snappy-java framing with 32 KiB blocks, as the Java client writes
 * it), lz4 (an LZ4 frame of independent 64 KiB blocks, compressed here with a
 * greedy single-probe hash matcher: valid for every LZ4 decoder, less dense
 * than liblz4's), zstd (a zstd frame of raw blocks — valid for every zstd
 * decoder but not smaller: no zstd compressor is available without a native
 * dependency; see packages/broker/README.md), uncompressed.
 */
import { gzipSync } from "node:zlib";
import { compress as snappyCompress } from "snappyjs";
import { ATTR_COMPRESSION_MASK, HEADER_SIZE, LOG_OVERHEAD, crc32c } from "./batch.ts";
import type { LogConfig } from "./configs.ts";
import { CODEC_GZIP, CODEC_LZ4, CODEC_NONE, CODEC_SNAPPY, CODEC_ZSTD, decompress, xxhash32 } from "./decompression.ts";

const CODEC_OF: Readonly<Record<Exclude<LogConfig["compressionType"], "producer">, number>> = {
  uncompressed: CODEC_NONE,
  gzip: CODEC_GZIP,
  snappy: CODEC_SNAPPY,
  lz4: CODEC_LZ4,
  zstd: CODEC_ZSTD,
};

/** The codec batches must be stored with, or null for "producer" (keep each batch's). */
export function targetCodec(config: LogConfig): number | null {
  return config.compressionType === "producer" ? null : CODEC_OF[config.compressionType];
}

/** `batch` (one whole, validated batch) under `codec`; the same buffer when it already uses it. */
export function recompressBatch(batch: Buffer, codec: number, config: LogConfig, maxDecompressedBytes: number): Buffer {
  const attributes = batch.readInt16BE(21);
  const current = attributes & ATTR_COMPRESSION_MASK;
  if (current === codec) return batch;
  const section = batch.subarray(HEADER_SIZE);
  const records = current === CODEC_NONE ? section : decompress(current, section, maxDecompressedBytes);
  const payload = compress(codec, records, config);
  const out = Buffer.allocUnsafe(HEADER_SIZE + payload.length);
  batch.copy(out, 0, 0, HEADER_SIZE);
  payload.copy(out, HEADER_SIZE);
  out.writeInt32BE(out.length - LOG_OVERHEAD, 8);
  out.writeInt16BE((attributes & ~ATTR_COMPRESSION_MASK) | codec, 21);
  out.writeUInt32BE(crc32c(out, 21, out.length), 17);
  return out;
}

function compress(codec: number, records: Buffer, config: LogConfig): Buffer {
  switch (codec) {
    case CODEC_NONE:
      return records;
    case CODEC_GZIP:
      return gzipSync(records, config.gzipLevel >= 0 ? { level: config.gzipLevel } : {});
    case CODEC_SNAPPY:
      return xerialSnappy(records);
    case CODEC_LZ4:
      return lz4Frame(records);
    default:
      return zstdRawFrame(records);
  }
}

const XERIAL_HEADER = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]);
const XERIAL_BLOCK = 32 * 1024;

function xerialSnappy(data: Buffer): Buffer {
  const parts: Buffer[] = [XERIAL_HEADER];
  for (let pos = 0; pos < data.length; pos += XERIAL_BLOCK) {
    const block = snappyCompress(data.subarray(pos, Math.min(data.length, pos + XERIAL_BLOCK)));
    const len = Buffer.alloc(4);
    len.writeInt32BE(block.length, 0);
    parts.push(len, Buffer.from(block.buffer, block.byteOffset, block.byteLength));
  }
  return Buffer.concat(parts);
}

const LZ4_BLOCK = 64 * 1024;

function lz4Frame(data: Buffer): Buffer {
  const header = Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0]); // v01, independent blocks, 64 KiB
  header[6] = (xxhash32(header, 4, 6) >>> 8) & 0xff;
  const parts: Buffer[] = [header];
  for (let pos = 0; pos < data.length; pos += LZ4_BLOCK) {
    const block = data.subarray(pos, Math.min(data.length, pos + LZ4_BLOCK));
    const compressed = lz4Block(block);
    const size = Buffer.alloc(4);
    if (compressed.length < block.length) {
      size.writeUInt32LE(compressed.length);
      parts.push(size, compressed);
    } else {
      size.writeUInt32LE((0x80000000 | block.length) >>> 0); // stored
      parts.push(size, block);
    }
  }
  parts.push(Buffer.alloc(4)); // end mark
  return Buffer.concat(parts);
}

/** Greedy LZ4 block compression (one hash probe per position, 4-byte minimum match). */
function lz4Block(src: Buffer): Buffer {
  const out: number[] = [];
  const table = new Int32Array(1 << 14).fill(-1);
  const hash = (i: number): number => (Math.imul(src.readUInt32LE(i), 2654435761) >>> 18) & 0x3fff;
  const writeLength = (n: number): void => {
    while (n >= 255) {
      out.push(255);
      n -= 255;
    }
    out.push(n);
  };
  let anchor = 0;
  let i = 0;
  // The format requires the last 5 bytes to be literals and no match to start in the last 12.
  const matchLimit = src.length - 12;
  while (i < matchLimit) {
    const h = hash(i);
    const ref = table[h]!;
    table[h] = i;
    if (ref < 0 || i - ref > 65535 || src.readUInt32LE(ref) !== src.readUInt32LE(i)) {
      i++;
      continue;
    }
    let len = 4;
    while (i + len < src.length - 5 && src[ref + len] === src[i + len]) len++;
    const lit = i - anchor;
    out.push((Math.min(lit, 15) << 4) | Math.min(len - 4, 15));
    if (lit >= 15) writeLength(lit - 15);
    for (let k = anchor; k < i; k++) out.push(src[k]!);
    out.push((i - ref) & 0xff, (i - ref) >> 8);
    if (len - 4 >= 15) writeLength(len - 4 - 15);
    i += len;
    anchor = i;
  }
  const lit = src.length - anchor;
  out.push(Math.min(lit, 15) << 4);
  if (lit >= 15) writeLength(lit - 15);
  for (let k = anchor; k < src.length; k++) out.push(src[k]!);
  return Buffer.from(out);
}

const ZSTD_RAW_BLOCK = 128 * 1024;

function zstdRawFrame(data: Buffer): Buffer {
  const fcs = Buffer.alloc(8);
  fcs.writeBigUInt64LE(BigInt(data.length));
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0xe0]), fcs]; // FHD: 8-byte content size, single segment
  if (data.length === 0) parts.push(Buffer.from([0x01, 0, 0])); // one empty, last raw block
  for (let pos = 0; pos < data.length; pos += ZSTD_RAW_BLOCK) {
    const block = data.subarray(pos, Math.min(data.length, pos + ZSTD_RAW_BLOCK));
    const last = pos + ZSTD_RAW_BLOCK >= data.length ? 1 : 0;
    const h = Buffer.alloc(3);
    h.writeUIntLE((block.length << 3) | last, 0, 3); // block type 0 = raw
    parts.push(h, block);
  }
  return Buffer.concat(parts);
}
