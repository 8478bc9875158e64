/**
 * File helpers: atomic replace, directory fsync, full positioned reads and
 * writes, and a reference-counted cache of open file handles with a limit.
 */
import { writevSync } from "node:fs";
import { open, rename, writeFile, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * A rename is only durable once the directory entry is flushed; without this
 * a crash can bring back the old name (ext4 data=ordered, XFS).
 */
export async function fsyncDir(dir: string): Promise<void> {
  const h = await open(dir, "r");
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

/** Replaces `path` with `data` so that a crash leaves either the old or the new content. */
export async function writeFileAtomic(path: string, data: string | Buffer): Promise<void> {
  const tmp = `${path}.tmp`;
  const h = await open(tmp, "w");
  try {
    await h.writeFile(data);
    await h.sync();
  } finally {
    await h.close();
  }
  await rename(tmp, path);
  await fsyncDir(dirname(path));
}

export async function readFully(h: FileHandle, buf: Buffer, position: number): Promise<number> {
  let done = 0;
  while (done < buf.length) {
    const { bytesRead } = await h.read(buf, done, buf.length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}

/** Bytes in `bufs` together. */
export function byteLength(bufs: readonly Buffer[]): number {
  let total = 0;
  for (const b of bufs) total += b.length;
  return total;
}

export async function writevFully(h: FileHandle, bufs: Buffer[], position: number): Promise<void> {
  const total = byteLength(bufs);
  let written = 0;
  let pending = bufs;
  while (written < total) {
    const { bytesWritten } = await h.writev(pending, position + written);
    written += bytesWritten;
    // Short write (disk full, signals): resume at the first unwritten byte.
    if (written < total) pending = after(pending, bytesWritten);
  }
}

/**
 * `writevFully` on the calling thread: for small appends written through the
 * page cache, where the write is a copy into memory and handing it to
 * libuv's thread pool and back cost more than the copy (partition-log.ts
 * `SYNC_WRITE_BELOW_BYTES`). Blocks the caller for as long as write(2) does.
 */
export function writevFullySync(fd: number, bufs: Buffer[], position: number): void {
  const total = byteLength(bufs);
  let written = 0;
  let pending = bufs;
  while (written < total) {
    const n = writevSync(fd, pending, position + written);
    written += n;
    if (written < total) pending = after(pending, n);
  }
}

/** `bufs` without their first `skip` bytes. */
function after(bufs: Buffer[], skip: number): Buffer[] {
  const rest: Buffer[] = [];
  for (const b of bufs) {
    if (skip >= b.length) skip -= b.length;
    else {
      rest.push(skip > 0 ? b.subarray(skip) : b);
      skip = 0;
    }
  }
  return rest;
}

export async function writeEmpty(path: string): Promise<void> {
  await writeFile(path, Buffer.alloc(0), { flag: "w" });
}

interface Entry {
  path: string;
  handle: Promise<FileHandle>;
  refs: number;
  lastUse: number;
  retired: boolean;
}

export interface HandleLease {
  handle: FileHandle;
  release(): void;
}

/**
 * Open log files are shared through this cache so that thousands of segments
 * do not pin thousands of descriptors. Entries in use are never closed;
 * `retire` (segment deleted or replaced) closes the handle once the last
 * reader lets go, which keeps in-flight fetches valid on the unlinked inode.
 */
export class FileHandleCache {
  private entries = new Map<string, Entry>();
  private tick = 0;
  private closing = new Set<Promise<void>>();
  private closeError: { error: unknown } | null = null;
  constructor(
    readonly limit = 512,
    /** How files are opened (fs.open flags): read-write by default; the direct writers' cache opens O_WRONLY | O_DIRECT (direct-io.ts). */
    private readonly flags: string | number = "r+",
  ) {}

  async acquire(path: string): Promise<HandleLease> {
    let e = this.entries.get(path);
    const isNew = !e;
    if (!e) {
      e = { path, handle: open(path, this.flags), refs: 0, lastUse: 0, retired: false };
      this.entries.set(path, e);
      e.handle.catch(() => {
        if (this.entries.get(path) === e) this.entries.delete(path);
      });
    }
    const entry = e;
    // Count the reference before evicting, so the entry being acquired is never the victim.
    entry.refs++;
    entry.lastUse = ++this.tick;
    if (isNew) this.evict();
    let handle: FileHandle;
    try {
      handle = await entry.handle;
    } catch (err) {
      entry.refs--;
      throw err;
    }
    let released = false;
    return {
      handle,
      release: () => {
        if (released) return;
        released = true;
        entry.refs--;
        if (entry.refs === 0 && (entry.retired || this.entries.size > this.limit)) this.close(entry);
      },
    };
  }

  /** The file was deleted or replaced: stop handing out this handle. */
  retire(path: string): void {
    const e = this.entries.get(path);
    if (!e) return;
    this.entries.delete(path);
    e.retired = true;
    if (e.refs === 0) this.close(e);
  }

  private close(e: Entry): void {
    if (this.entries.get(e.path) === e) this.entries.delete(e.path);
    const p = e.handle.then(
      (h) => h.close(),
      () => undefined, // open failed: already reported to the acquirer
    );
    // Background closes are awaited (and their errors reported) by closeAll.
    const tracked = p.then(
      () => undefined,
      (err: unknown) => {
        this.closeError ??= { error: err };
      },
    );
    this.closing.add(tracked);
    void tracked.finally(() => this.closing.delete(tracked));
  }

  private evict(): void {
    if (this.entries.size <= this.limit) return;
    const idle = [...this.entries.values()].filter((e) => e.refs === 0).sort((a, b) => a.lastUse - b.lastUse);
    for (const e of idle) {
      if (this.entries.size <= this.limit) break;
      this.close(e);
    }
  }

  async closeAll(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    const opened = await Promise.allSettled(all.map((e) => e.handle));
    // A rejected open was already reported to the caller that acquired it; only real handles need closing.
    const handles = opened.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const closed = await Promise.allSettled(handles.map((h) => h.close()));
    await Promise.all([...this.closing]);
    const failure = closed.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failure) throw failure.reason;
    if (this.closeError !== null) throw this.closeError.error;
  }

  get size(): number {
    return this.entries.size;
  }
}
