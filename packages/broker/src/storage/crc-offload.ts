/**
 * CRC-32C of large produced batches on a helper thread, so that the broker's
 * one JavaScript thread only frames, dispatches and writes. Under kcat's
 * durable produce load the batch CRC check was the largest item of that
 * thread's busy time (a fifth of it, even as the hardware instruction).
 *
 * Zero-copy: produce frames of 64 KiB and more are assembled in buffers backed
 * by a SharedArrayBuffer (frame-reader.ts FramePool), so the helper reads the
 * request's own bytes. It only reads: the request buffer is modified (base
 * offset, leader epoch) by the partition's writer after the verdicts came back,
 * and a frame is given back to the pool only once its Produce handler has
 * finished, which waits for the verdicts. A verdict that arrives for a request
 * already failed for another reason is simply ignored.
 *
 * The helper walks the batches as validateAppendBatches does (size prefix,
 * 61-byte header) and answers one verdict per whole batch it reached; the
 * rest of the validation (lengths, magic, counts, records) still runs on the
 * broker thread with those verdicts in place of the CRC computation, so the
 * errors are exactly those of the inline path. Where the helper is not
 * available (it failed to start, exited, or the buffer is not shared) the
 * caller validates inline.
 *
 * The helper is plain JavaScript evaluated from a string (no TypeScript
 * loader, no file beside a bundle) and loads the same @node-rs/crc32 binary as
 * crc32c-native.ts. One helper per process serves every broker in it; it does
 * not keep the process alive while nothing waits for it.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { crc32cIsNative } from "./crc32c-native.ts";

/** Partition data at least this large has its CRCs computed on the helper thread (a round trip to the helper costs about as much as the CRC of 64–250 KB; librdkafka sends ~250 KB per partition when 4 share its 1 MB request). */
export const CRC_OFFLOAD_MIN_BYTES = 64 * 1024;

const HELPER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { crc32c } = require(workerData.crcModule);
parentPort.on("message", (m) => {
  const buf = Buffer.from(m.sab, m.offset, m.length);
  const verdicts = new Uint8Array(m.length / 61 | 0);
  let n = 0;
  let pos = 0;
  while (buf.length - pos >= 61) {
    const size = buf.readInt32BE(pos + 8) + 12;
    if (size < 61 || size > buf.length - pos) break;
    verdicts[n++] = crc32c(buf.subarray(pos + 21, pos + size)) === buf.readUInt32BE(pos + 17) ? 1 : 0;
    pos += size;
  }
  parentPort.postMessage({ id: m.id, verdicts: verdicts.subarray(0, n) });
});
`;

interface Answer {
  id: number;
  verdicts: Uint8Array;
}

/** Per-batch CRC verdicts (1 valid, 0 not) in batch order, for the whole batches the helper reached. */
export type CrcVerdicts = Uint8Array;

export class CrcOffload {
  private worker: Worker | null = null;
  private broken = false;
  private nextId = 0;
  private readonly waiting = new Map<number, (v: CrcVerdicts | null) => void>();

  constructor(private readonly crcModule: string | null) {}

  /** True when `data` can be checked on the helper thread (shared memory, helper usable). */
  accepts(data: Buffer): boolean {
    return !this.broken && this.crcModule !== null && data.buffer instanceof SharedArrayBuffer;
  }

  /**
   * The verdicts for the batches in `data`, or null when the helper could not
   * answer (the caller then computes the CRCs itself). Call only when
   * `accepts(data)`; `data` must not change until the promise settles.
   */
  verdicts(data: Buffer): Promise<CrcVerdicts | null> {
    const worker = this.helper();
    if (!worker || !(data.buffer instanceof SharedArrayBuffer)) return Promise.resolve(null);
    const id = this.nextId++;
    return new Promise((resolve) => {
      if (this.waiting.size === 0) worker.ref();
      this.waiting.set(id, resolve);
      worker.postMessage({ id, sab: data.buffer, offset: data.byteOffset, length: data.length });
    });
  }

  private helper(): Worker | null {
    if (this.broken || this.crcModule === null) return null;
    if (this.worker) return this.worker;
    let worker: Worker;
    try {
      worker = new Worker(HELPER_SOURCE, { eval: true, workerData: { crcModule: this.crcModule }, name: "kappa-crc32c" });
    } catch {
      this.broken = true;
      return null;
    }
    worker.unref();
    worker.on("message", (m: Answer) => {
      const resolve = this.waiting.get(m.id);
      if (!resolve) return;
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) worker.unref();
      resolve(m.verdicts);
    });
    const stop = (): void => {
      // The helper is gone (load failure, crash): every waiter falls back to the inline check, and so does every later batch.
      this.broken = true;
      this.worker = null;
      for (const resolve of this.waiting.values()) resolve(null);
      this.waiting.clear();
    };
    worker.on("error", stop);
    worker.on("exit", stop);
    this.worker = worker;
    return worker;
  }
}

function crcModulePath(): string | null {
  if (!crc32cIsNative) return null;
  try {
    return createRequire(import.meta.url).resolve("@node-rs/crc32");
  } catch {
    return null;
  }
}

/** The process's one helper (shared by every broker and partition in it). */
export const crcOffload = new CrcOffload(crcModulePath());
