/// <reference path="../types/snappyjs.d.ts" />
/**
 * Decompression of a record batch's records section (codecs 1–4: gzip,
 * snappy, lz4, zstd), bounded so that a compression bomb costs at most
 * `maxBytes` of output (plus the library's working state), never what the
 * payload claims. Used by produce validation (append-validation.ts), as
 * Kafka's LogValidator decompresses every compressed batch it accepts.
 *
 * Formats, as the Kafka clients write them:
 * - gzip: RFC 1952 members (node:zlib; `maxOutputLength` enforces the bound).
 * - snappy: either xerial snappy-java framing (Java clients, librdkafka):
 *   8-byte magic `\x82SNAPPY\0`, int32 version, int32 compatible version,
 *   then blocks of [int32 BE length][raw Snappy]; or one raw Snappy block.
 *   Each raw block states its uncompressed length up front, so the bound is
 *   checked before anything is allocated (snappyjs does the decoding).
 * - lz4: the LZ4 frame format (Kafka's KafkaLZ4BlockOutputStream, librdkafka):
 *   magic 0x184D2204, FLG, BD, [content size], header checksum (xxHash32),
 *   blocks of [uint32 LE size, high bit = stored][data][block checksum], end
 *   mark 0, [content checksum]. Decoded here: block sizes are bounded by the
 *   frame's block maximum, and every match is checked against the output
 *   written so far.
 * - zstd: one or more frames (RFC 8878). Each frame's header (window size,
 *   content size) and block headers are read here first, which bounds what
 *   the frame can produce before fzstd allocates its window; then fzstd
 *   decodes it.
 *
 * Block and content checksums of LZ4 frames are not verified (the batch's
 * CRC-32C already covers every compressed byte); the LZ4 header checksum is,
 * as Kafka does.
 */
import { gunzipSync } from "node:zlib";
import { decompress as zstdDecompress } from "fzstd";
import { uncompress as snappyUncompress } from "snappyjs";

export const CODEC_NONE = 0;
export const CODEC_GZIP = 1;
export const CODEC_SNAPPY = 2;
export const CODEC_LZ4 = 3;
export const CODEC_ZSTD = 4;

/** The payload is not valid data of its codec. */
export class DecompressionError extends Error {
  override name = "DecompressionError";
}

/** The payload would decompress to more than the bound. */
export class DecompressedTooLargeError extends DecompressionError {
  override name = "DecompressedTooLargeError";
}

/** Decompresses `data` (codec 1–4); throws DecompressionError for bad data and DecompressedTooLargeError past `maxBytes`. */
export function decompress(codec: number, data: Buffer, maxBytes: number): Buffer {
  switch (codec) {
    case CODEC_GZIP:
      return gunzip(data, maxBytes);
    case CODEC_SNAPPY:
      return snappy(data, maxBytes);
    case CODEC_LZ4:
      return lz4Frame(data, maxBytes);
    case CODEC_ZSTD:
      return zstd(data, maxBytes);
    default:
      throw new DecompressionError(`unknown compression codec ${codec}`);
  }
}

function tooLarge(maxBytes: number): DecompressedTooLargeError {
  return new DecompressedTooLargeError(`decompressed records exceed the bound of ${maxBytes} bytes`);
}

// ---------------------------------------------------------------- gzip

function gunzip(data: Buffer, maxBytes: number): Buffer {
  try {
    return gunzipSync(data, { maxOutputLength: Math.max(1, maxBytes) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(maxBytes);
    throw new DecompressionError(`invalid gzip data: ${(err as Error).message}`);
  }
}

// -------------------------------------------------------------- snappy

const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER = 16;

/** Uncompressed length a raw Snappy block declares (its leading uvarint); −1 when malformed. */
function snappyDeclaredLength(block: Uint8Array): number {
  let result = 0;
  for (let i = 0, shift = 0; i < 5 && i < block.length; i++, shift += 7) {
    const b = block[i]!;
    result += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return result;
  }
  return -1;
}

function snappyBlock(block: Buffer, budget: number, maxBytes: number): Buffer {
  const declared = snappyDeclaredLength(block);
  if (declared < 0) throw new DecompressionError("invalid snappy block: bad length preamble");
  if (declared > budget) throw tooLarge(maxBytes);
  let out: Uint8Array;
  try {
    out = snappyUncompress(block, budget);
  } catch (err) {
    throw new DecompressionError(`invalid snappy data: ${(err as Error).message}`);
  }
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

function snappy(data: Buffer, maxBytes: number): Buffer {
  if (data.length < XERIAL_HEADER || !data.subarray(0, XERIAL_MAGIC.length).equals(XERIAL_MAGIC)) {
    return snappyBlock(data, maxBytes, maxBytes);
  }
  const parts: Buffer[] = [];
  let total = 0;
  let pos = XERIAL_HEADER;
  while (pos < data.length) {
    if (pos + 4 > data.length) throw new DecompressionError("invalid xerial snappy data: truncated block length");
    const len = data.readInt32BE(pos);
    pos += 4;
    if (len < 0 || pos + len > data.length) throw new DecompressionError(`invalid xerial snappy data: block of ${len} bytes at ${pos - 4}`);
    const part = snappyBlock(data.subarray(pos, pos + len), maxBytes - total, maxBytes);
    total += part.length;
    parts.push(part);
    pos += len;
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
}

// ----------------------------------------------------------------- lz4

const LZ4_MAGIC = 0x184d2204;
const LZ4_BLOCK_MAX: Readonly<Record<number, number>> = { 4: 64 * 1024, 5: 256 * 1024, 6: 1024 * 1024, 7: 4 * 1024 * 1024 };

function lz4Frame(data: Buffer, maxBytes: number): Buffer {
  const bad = (why: string): DecompressionError => new DecompressionError(`invalid lz4 frame: ${why}`);
  if (data.length < 7 || data.readUInt32LE(0) !== LZ4_MAGIC) throw bad("bad magic");
  const flg = data[4]!;
  const bd = data[5]!;
  if (flg >> 6 !== 1) throw bad(`unsupported version ${flg >> 6}`);
  if ((flg & 0x01) !== 0) throw bad("dictionary ids are not supported");
  if ((flg & 0x02) !== 0 || (bd & 0x8f) !== 0) throw bad("reserved bits set");
  const blockMax = LZ4_BLOCK_MAX[(bd >> 4) & 0x07];
  if (blockMax === undefined) throw bad(`invalid block maximum size code ${(bd >> 4) & 0x07}`);
  const blockChecksum = (flg & 0x10) !== 0;
  const contentSizeFlag = (flg & 0x08) !== 0;
  const contentChecksum = (flg & 0x04) !== 0;
  let pos = 6;
  let contentSize = -1;
  if (contentSizeFlag) {
    if (data.length < pos + 9) throw bad("truncated header");
    const size = data.readBigUInt64LE(pos);
    if (size > BigInt(maxBytes)) throw tooLarge(maxBytes);
    contentSize = Number(size);
    pos += 8;
  }
  // The header checksum is the second byte of xxHash32 over FLG..(content size).
  if (data.length < pos + 1) throw bad("truncated header");
  if (((xxhash32(data, 4, pos) >>> 8) & 0xff) !== data[pos]) throw bad("header checksum mismatch");
  pos += 1;

  // Grows by doubling up to the bound; the worst case is bounded by maxBytes.
  let out = Buffer.allocUnsafe(Math.min(maxBytes, contentSize >= 0 ? contentSize : Math.min(blockMax, 64 * 1024)));
  let outLen = 0;
  const ensure = (n: number): void => {
    if (outLen + n > maxBytes) throw tooLarge(maxBytes);
    if (outLen + n <= out.length) return;
    let cap = Math.max(out.length * 2, 1024);
    while (cap < outLen + n) cap *= 2;
    const next = Buffer.allocUnsafe(Math.min(cap, maxBytes));
    out.copy(next, 0, 0, outLen);
    out = next;
  };
  for (;;) {
    if (pos + 4 > data.length) throw bad("missing end mark");
    const word = data.readUInt32LE(pos);
    pos += 4;
    if (word === 0) break;
    const stored = (word & 0x80000000) !== 0;
    const size = word & 0x7fffffff;
    if (size > blockMax || pos + size > data.length) throw bad(`block of ${size} bytes exceeds the frame's maximum or the data`);
    if (stored) {
      ensure(size);
      data.copy(out, outLen, pos, pos + size);
      outLen += size;
    } else {
      const before = outLen;
      // A compressed block never produces more than the frame's block maximum.
      ensure(Math.min(blockMax, maxBytes - outLen));
      outLen = lz4Block(data, pos, pos + size, out, outLen, Math.min(out.length, before + blockMax));
    }
    pos += size + (blockChecksum ? 4 : 0);
  }
  if (contentChecksum) pos += 4;
  if (pos !== data.length) throw bad(`${data.length - pos} bytes after the frame`);
  if (contentSize >= 0 && outLen !== contentSize) throw bad(`content size ${contentSize} but ${outLen} bytes decoded`);
  return out.subarray(0, outLen);
}

/** Decodes one LZ4 block of src[start, end) into dst at dPos, never writing past dEnd; returns the new dPos. */
function lz4Block(src: Buffer, start: number, end: number, dst: Buffer, dPos: number, dEnd: number): number {
  const bad = (why: string): DecompressionError => new DecompressionError(`invalid lz4 block: ${why}`);
  const blockStart = dPos;
  let s = start;
  for (;;) {
    if (s >= end) throw bad("truncated sequence");
    const token = src[s++]!;
    let litLen = token >> 4;
    if (litLen === 15) {
      let b: number;
      do {
        if (s >= end) throw bad("truncated literal length");
        b = src[s++]!;
        litLen += b;
      } while (b === 255);
    }
    if (s + litLen > end) throw bad("literals run past the block");
    if (dPos + litLen > dEnd) throw new DecompressedTooLargeError("lz4 block decodes past its bound");
    src.copy(dst, dPos, s, s + litLen);
    dPos += litLen;
    s += litLen;
    if (s === end) return dPos; // the last sequence has literals only
    if (s + 2 > end) throw bad("truncated match offset");
    const offset = src[s]! | (src[s + 1]! << 8);
    s += 2;
    // Matches may reach back into earlier blocks only with linked blocks; Kafka's frames use independent blocks.
    if (offset === 0 || offset > dPos - blockStart) throw bad(`match offset ${offset} points before the block`);
    let matchLen = (token & 0x0f) + 4;
    if ((token & 0x0f) === 15) {
      let b: number;
      do {
        if (s >= end) throw bad("truncated match length");
        b = src[s++]!;
        matchLen += b;
      } while (b === 255);
    }
    if (dPos + matchLen > dEnd) throw new DecompressedTooLargeError("lz4 block decodes past its bound");
    // Byte by byte: a match may overlap the bytes it produces (offset < length).
    for (let i = 0; i < matchLen; i++) dst[dPos + i] = dst[dPos - offset + i]!;
    dPos += matchLen;
  }
}

const P1 = 2654435761;
const P2 = 2246822519;
const P3 = 3266489917;
const P4 = 668265263;
const P5 = 374761393;

/** xxHash32 with seed 0 over buf[start, end) (the LZ4 frame header checksum). */
export function xxhash32(buf: Buffer, start: number, end: number): number {
  const rotl = (x: number, r: number): number => ((x << r) | (x >>> (32 - r))) >>> 0;
  const round = (acc: number, lane: number): number => Math.imul(rotl((acc + Math.imul(lane, P2)) >>> 0, 13), P1) >>> 0;
  let p = start;
  let h: number;
  const len = end - start;
  if (len >= 16) {
    let v1 = (P1 + P2) >>> 0;
    let v2 = P2;
    let v3 = 0;
    let v4 = (0 - P1) >>> 0;
    for (; p + 16 <= end; p += 16) {
      v1 = round(v1, buf.readUInt32LE(p));
      v2 = round(v2, buf.readUInt32LE(p + 4));
      v3 = round(v3, buf.readUInt32LE(p + 8));
      v4 = round(v4, buf.readUInt32LE(p + 12));
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) >>> 0;
  } else {
    h = P5;
  }
  h = (h + len) >>> 0;
  for (; p + 4 <= end; p += 4) h = Math.imul(rotl((h + Math.imul(buf.readUInt32LE(p), P3)) >>> 0, 17), P4) >>> 0;
  for (; p < end; p++) h = Math.imul(rotl((h + Math.imul(buf[p]!, P5)) >>> 0, 11), P1) >>> 0;
  h = Math.imul(h ^ (h >>> 15), P2) >>> 0;
  h = Math.imul(h ^ (h >>> 13), P3) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

// ---------------------------------------------------------------- zstd

const ZSTD_MAGIC = 0xfd2fb528;
const ZSTD_BLOCK_MAX = 128 * 1024;

/**
 * Walks one zstd frame at `pos` without decoding it: returns where it ends
 * and the most it can produce (its content size when declared, else the sum
 * of its blocks' maxima), and refuses a window larger than the bound.
 */
function zstdFrameExtent(data: Buffer, pos: number, maxBytes: number): { end: number; maxOutput: number } {
  const bad = (why: string): DecompressionError => new DecompressionError(`invalid zstd frame: ${why}`);
  if (pos + 6 > data.length) throw bad("truncated header");
  const fhd = data[pos + 4]!;
  const fcsFlag = fhd >> 6;
  const singleSegment = (fhd & 0x20) !== 0;
  const checksum = (fhd & 0x04) !== 0;
  if ((fhd & 0x08) !== 0) throw bad("reserved bit set");
  const dictIdBytes = [0, 1, 2, 4][fhd & 0x03]!;
  let p = pos + 5;
  let windowSize = -1;
  if (!singleSegment) {
    const wd = data[p++]!;
    const base = 2 ** (10 + (wd >> 3));
    windowSize = base + (base / 8) * (wd & 0x07);
  }
  p += dictIdBytes;
  const fcsBytes = fcsFlag === 0 ? (singleSegment ? 1 : 0) : 2 ** fcsFlag;
  if (p + fcsBytes > data.length) throw bad("truncated header");
  let contentSize = -1;
  if (fcsBytes === 1) contentSize = data[p]!;
  else if (fcsBytes === 2) contentSize = data.readUInt16LE(p) + 256;
  else if (fcsBytes === 4) contentSize = data.readUInt32LE(p);
  else if (fcsBytes === 8) contentSize = Number(data.readBigUInt64LE(p));
  p += fcsBytes;
  if (singleSegment) windowSize = contentSize;
  if (windowSize > maxBytes || contentSize > maxBytes) throw tooLarge(maxBytes);
  const blockMax = Math.min(ZSTD_BLOCK_MAX, windowSize);
  let maxOutput = 0;
  for (;;) {
    if (p + 3 > data.length) throw bad("truncated block header");
    const bh = data[p]! | (data[p + 1]! << 8) | (data[p + 2]! << 16);
    p += 3;
    const last = (bh & 1) === 1;
    const type = (bh >> 1) & 3;
    const size = bh >>> 3;
    if (type === 3) throw bad("reserved block type");
    if (size > blockMax) throw bad(`block of ${size} bytes exceeds the block maximum ${blockMax}`);
    // Raw: `size` bytes stored; RLE: one byte repeated `size` times; compressed: `size` bytes producing ≤ blockMax.
    maxOutput += type === 2 ? blockMax : size;
    p += type === 1 ? 1 : size;
    if (p > data.length) throw bad("truncated block");
    if (last) break;
  }
  if (checksum) p += 4;
  if (p > data.length) throw bad("truncated checksum");
  return { end: p, maxOutput: contentSize >= 0 ? Math.min(contentSize, maxOutput) : maxOutput };
}

function zstd(data: Buffer, maxBytes: number): Buffer {
  const parts: Buffer[] = [];
  let total = 0;
  let pos = 0;
  while (pos < data.length) {
    if (pos + 8 > data.length) throw new DecompressionError("invalid zstd data: truncated frame");
    const magic = data.readUInt32LE(pos);
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      // Skippable frame: magic, uint32 LE size, payload.
      pos += 8 + data.readUInt32LE(pos + 4);
      continue;
    }
    if (magic !== ZSTD_MAGIC) throw new DecompressionError("invalid zstd data: bad frame magic");
    const { end, maxOutput } = zstdFrameExtent(data, pos, maxBytes);
    if (total + maxOutput > maxBytes) throw tooLarge(maxBytes);
    let out: Uint8Array;
    try {
      out = zstdDecompress(data.subarray(pos, end));
    } catch (err) {
      throw new DecompressionError(`invalid zstd data: ${(err as Error).message}`);
    }
    total += out.length;
    if (total > maxBytes) throw tooLarge(maxBytes);
    parts.push(Buffer.from(out.buffer, out.byteOffset, out.byteLength));
    pos = end;
  }
  if (pos !== data.length) throw new DecompressionError("invalid zstd data: truncated skippable frame");
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
}
