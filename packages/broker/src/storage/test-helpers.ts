/** Helpers shared by the storage tests (not exported from the package). */
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { encodeRecordBatch } from "@kappa/kafka-protocol";
import { HEADER_SIZE, LOG_OVERHEAD, crc32c, decodeRecords, readHeader, type BatchHeader } from "./batch.ts";

/** Bytes of `file` resident in the OS page cache: util-linux's fincore (mincore(2) over the file; Debian util-linux-extra). */
export function residentBytes(file: string): number {
  return Number(execFileSync("fincore", ["--bytes", "--noheadings", "--output", "RES", file], { encoding: "utf8" }).trim());
}

/**
 * Runs `script` (a child process under tsx, in its own folder) and SIGKILLs it
 * `killAfterMs` after it printed "ready"; resolves with the whole lines it
 * printed before it died (the kill may cut the last one). A child that exits
 * on its own is an error, with its stderr.
 */
export function runUntilKilled(script: string, args: readonly string[], killAfterMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { cwd: dirname(script), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let timer: NodeJS.Timeout | null = null;
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (!timer && out.includes("ready\n")) timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    });
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (signal !== "SIGKILL") reject(new Error(`child exited on its own (code ${code}): ${err}`));
      else resolve(out.split("\n").slice(0, -1));
    });
  });
}

export async function tempDir(prefix = "kappa-storage-"): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

export interface ReadRecord {
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
}

/** Splits fetched bytes into batches, asserting they are whole. */
export function splitBatches(buf: Buffer): Array<{ header: BatchHeader; bytes: Buffer }> {
  const out: Array<{ header: BatchHeader; bytes: Buffer }> = [];
  let pos = 0;
  while (pos < buf.length) {
    if (buf.length - pos < HEADER_SIZE) throw new Error(`partial batch header at ${pos}`);
    const size = buf.readInt32BE(pos + 8) + LOG_OVERHEAD;
    if (pos + size > buf.length) throw new Error(`partial batch at ${pos}`);
    out.push({ header: readHeader(buf, pos), bytes: buf.subarray(pos, pos + size) });
    pos += size;
  }
  return out;
}

/** Decodes every record of fetched bytes with absolute offsets. */
export function recordsOf(buf: Buffer): ReadRecord[] {
  const out: ReadRecord[] = [];
  for (const { header, bytes } of splitBatches(buf)) {
    for (const r of decodeRecords(bytes)) {
      out.push({
        offset: header.baseOffset + r.offsetDelta,
        timestamp: header.baseTimestamp + r.timestampDelta,
        key: r.key?.toString() ?? null,
        value: r.value?.toString() ?? null,
      });
    }
  }
  return out;
}

export interface BuildBatchOptions {
  baseTimestamp?: number;
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  compression?: "none" | "gzip";
  /** A batch of a transactional producer (attribute bit 4). */
  transactional?: boolean;
  records: Array<{ key: Buffer | string | null; value: Buffer | string | null; timestamp?: number }>;
}

/**
 * A batch as a producer sends it, built with @kappa/kafka-protocol's encoder
 * (so the storage tests also check the two packages agree on the format).
 */
export function buildBatch(opts: BuildBatchOptions): Buffer {
  const baseTimestamp = opts.baseTimestamp ?? opts.records[0]?.timestamp ?? Date.now();
  return encodeRecordBatch({
    baseTimestamp: BigInt(baseTimestamp),
    partitionLeaderEpoch: -1,
    producerId: BigInt(opts.producerId ?? -1),
    producerEpoch: opts.producerEpoch ?? -1,
    baseSequence: opts.baseSequence ?? -1,
    compression: opts.compression ?? "none",
    isTransactional: opts.transactional ?? false,
    records: opts.records.map((r) => ({
      key: r.key,
      value: r.value,
      timestampDelta: (r.timestamp ?? baseTimestamp) - baseTimestamp,
    })),
  });
}

/**
 * A copy of `batch` whose records section is `payload` under compression
 * codec `codec` (attribute bits 0–2), with a valid CRC: what a client with a
 * broken (or hostile) compressor sends. Header fields stay as they were.
 */
export function withRecordsSection(batch: Buffer, codec: number, payload: Buffer): Buffer {
  const out = Buffer.concat([batch.subarray(0, HEADER_SIZE), payload]);
  out.writeInt32BE(out.length - LOG_OVERHEAD, 8);
  out.writeInt16BE((out.readInt16BE(21) & ~0x07) | codec, 21);
  out.writeUInt32BE(crc32c(out, 21, out.length), 17);
  return out;
}

/** The records section of an uncompressed batch (what a codec would compress). */
export function recordsSection(batch: Buffer): Buffer {
  return batch.subarray(HEADER_SIZE);
}

/** A zstd frame of raw and RLE blocks (no entropy coding), decodable by any zstd decoder. */
export function zstdFrame(blocks: Array<{ raw: Buffer } | { rle: number; size: number }>, contentSize?: number): Buffer {
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd])];
  if (contentSize === undefined) {
    // No content size, not single-segment: a 128 KiB window (exponent 7), the block maximum.
    parts.push(Buffer.from([0x00, 7 << 3]));
  } else {
    const fcs = Buffer.alloc(8);
    fcs.writeBigUInt64LE(BigInt(contentSize));
    parts.push(Buffer.from([0xc0 | 0x20]), fcs); // FCS 8 bytes, single segment
  }
  blocks.forEach((b, i) => {
    const last = i === blocks.length - 1 ? 1 : 0;
    const h = Buffer.alloc(3);
    const word = "raw" in b ? (b.raw.length << 3) | last : (b.size << 3) | (1 << 1) | last;
    h.writeUIntLE(word, 0, 3);
    parts.push(h, "raw" in b ? b.raw : Buffer.from([b.rle]));
  });
  return Buffer.concat(parts);
}
