/**
 * Keeps a partition's fsynced log bytes from piling up in the OS page cache
 * (broker setting log.page.cache.window.bytes).
 *
 * Kafka leaves every byte it writes in the page cache and lets the kernel
 * evict it. On the virtual machines this project runs on, every page the
 * cache grows by costs the broker's threads several times the copy that
 * wrote it (the hypervisor backs each new guest page on first touch): a
 * durable produce of 1.5 GB in 1 MiB fdatasync steps took 4.6–5.1 s of
 * system CPU with the cache kept and 0.6–0.9 s with synced bytes dropped
 * behind a 4–256 MiB window (16 MiB best), in a Python loop measured
 * before this code. Dropping synced pages lets the kernel reuse the same
 * physical pages for the next writes.
 *
 * What is dropped: only bytes already covered by an fdatasync (clean
 * pages), only those more than the window behind the segment's end, in
 * steps of at least DROP_STEP_BYTES and aligned to 64 KiB. Consumers at
 * the tail read the window from memory; a consumer further behind reads
 * from disk, as it does on Kafka once the log outgrows memory. Nothing of
 * correctness depends on it: posix_fadvise is advice, and its failure is
 * counted, never raised.
 *
 * posix_fadvise is called through koffi (an FFI with prebuilt binaries in
 * its npm package) on a thread-pool thread, at most one call in flight per
 * partition, holding the file's handle lease so that the descriptor cannot
 * be closed and reused under it. Off where koffi cannot load or the OS is
 * not Linux (the advice constant is Linux's), and with a window of −1.
 */
import { createRequire } from "node:module";
import type { FileHandleCache } from "./files.ts";

/** POSIX_FADV_DONTNEED on Linux. */
const FADV_DONTNEED = 4;
/** The least the window's trailing edge must move before another call is worth its cost. */
export const DROP_STEP_BYTES = 4 * 1024 * 1024;
const ALIGN = 64 * 1024;

type Fadvise = (fd: number, offset: number, len: number, advice: number, done: (err: unknown, res: number) => void) => void;

function loadFadvise(): Fadvise | null {
  if (process.platform !== "linux") return null;
  try {
    const koffi = createRequire(import.meta.url)("koffi") as typeof import("koffi");
    const fn = koffi.load("libc.so.6").func("int posix_fadvise(int fd, int64_t offset, int64_t len, int advice)");
    return (fd, offset, len, advice, done) => {
      fn.async(fd, offset, len, advice, done);
    };
  } catch {
    return null;
  }
}

const fadvise = loadFadvise();

/** True when synced pages can be dropped on this platform (tests check it is on the platforms CI runs). */
export const pageCacheDropIsNative = fadvise !== null;

/** Process-wide counts, for tests and the benchmark. */
export const pageCacheDropStats = { calls: 0, bytes: 0, failures: 0 };

/** One partition's window over its active segment. */
export class PageCacheWindow {
  private path = "";
  /** Bytes of `path` from 0 already advised away. */
  private droppedTo = 0;
  private inFlight: Promise<void> | null = null;

  /** `windowBytes` −1 turns it off. */
  constructor(
    private readonly files: FileHandleCache,
    private readonly windowBytes: number,
  ) {}

  get enabled(): boolean {
    return fadvise !== null && this.windowBytes >= 0;
  }

  /**
   * After an fdatasync of `path` that covered its first `syncedBytes`.
   * `final` when the segment was rolled (no further call will come for it):
   * then the step does not apply, and a call waits for one in flight.
   */
  afterSync(path: string, syncedBytes: number, final = false): void {
    if (!this.enabled) return;
    if (path !== this.path) {
      this.path = path;
      this.droppedTo = 0;
    }
    // A rolled segment with no window is dropped through its end, partial last page included (length 0: to the end of the file).
    const whole = final && this.windowBytes === 0;
    const upTo = whole ? syncedBytes : Math.floor(Math.max(0, syncedBytes - this.windowBytes) / ALIGN) * ALIGN;
    const from = this.droppedTo;
    if (upTo <= from || (!final && upTo - from < DROP_STEP_BYTES)) return;
    if (this.inFlight && !final) return; // the next sync covers it
    this.droppedTo = upTo;
    const previous = this.inFlight ?? Promise.resolve();
    const call = previous.then(() => this.drop(path, from, whole ? 0 : upTo - from, upTo - from));
    this.inFlight = call;
    void call.then(() => {
      if (this.inFlight === call) this.inFlight = null;
    });
  }

  /** Resolves when no call is in flight (tests; close). */
  async settled(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  /** posix_fadvise(DONTNEED) of `len` bytes from `offset` (0: to the end); `bytes` is what that covers, for the counts. */
  private async drop(path: string, offset: number, len: number, bytes: number): Promise<void> {
    let lease: Awaited<ReturnType<FileHandleCache["acquire"]>>;
    try {
      lease = await this.files.acquire(path);
    } catch {
      pageCacheDropStats.failures++; // deleted meanwhile (retention, topic deletion): nothing to drop
      return;
    }
    try {
      const rc = await new Promise<number>((resolve, reject) => {
        fadvise!(lease.handle.fd, offset, len, FADV_DONTNEED, (err, res) => (err ? reject(err instanceof Error ? err : new Error("posix_fadvise failed")) : resolve(res)));
      });
      if (rc === 0) {
        pageCacheDropStats.calls++;
        pageCacheDropStats.bytes += bytes;
      } else {
        pageCacheDropStats.failures++;
      }
    } catch {
      pageCacheDropStats.failures++;
    } finally {
      lease.release();
    }
  }
}
