/**
 * A durable key → value store with the semantics of a compacted Kafka topic
 * (as `__transaction_state` and `__consumer_offsets` are): every write is a
 * record `key → value` (value null = tombstone), the latest record per key
 * wins, and older records are dropped when the file is rewritten.
 *
 * File: records `[uint32 length][uint32 CRC-32C of payload][UTF-8 JSON payload]`
 * back to back, payload `[[key, value | null], ...]` — one `put` call is one
 * record, so the entries of one call become durable together or not at all.
 * A record is fsynced before its entries are applied in memory and before the
 * call resolves; concurrent calls share one write and one fdatasync (group
 * commit). A torn tail (crash mid-write) fails its length or CRC check and is
 * cut off on open: nothing after it was acknowledged.
 *
 * Rewrite (on open and when dead records outweigh live ones): the live
 * entries go to `<file>.rewrite`, fsynced, renamed over the file, and the
 * directory fsynced; a crash leaves either the old or the new file, and a
 * leftover `.rewrite` is discarded on open.
 */
import { mkdir, open, readFile, rename, rm, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { crc32c } from "./batch.ts";
import { fsyncDir } from "./files.ts";


export interface CompactedJournalOptions {
  /** Rewrite once the file is this large and holds over twice the live bytes (default 4 MiB). */
  rewriteAfterBytes?: number;
}

interface PendingPut {
  record: Buffer;
  entries: ReadonlyArray<readonly [string, unknown]>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

function encodeRecord(entries: ReadonlyArray<readonly [string, unknown]>): Buffer {
  const payload = Buffer.from(JSON.stringify(entries), "utf8");
  const out = Buffer.allocUnsafe(8 + payload.length);
  out.writeUInt32BE(payload.length, 0);
  out.writeUInt32BE(crc32c(payload), 4);
  payload.copy(out, 8);
  return out;
}

/** `V` must survive JSON.stringify/parse unchanged (no bigint, no undefined, no class instances). */
export class CompactedJournal<V> {
  private readonly live = new Map<string, V>();
  private handle: FileHandle | null = null;
  private size = 0;
  /** File size right after the last rewrite: growth past twice that is mostly superseded records. */
  private bytesAtRewrite = 0;
  private pending: PendingPut[] = [];
  private writing = false;
  private idle: Array<() => void> = [];
  private failure: Error | null = null;
  private closed = false;
  /** Bytes cut from a torn tail on open (for logs and tests). */
  truncatedBytes = 0;

  private constructor(
    readonly path: string,
    private readonly rewriteAfterBytes: number,
  ) {}

  static async open<V>(path: string, opts: CompactedJournalOptions = {}): Promise<CompactedJournal<V>> {
    await mkdir(dirname(path), { recursive: true });
    await rm(`${path}.rewrite`, { force: true });
    const j = new CompactedJournal<V>(path, opts.rewriteAfterBytes ?? 4 * 1024 * 1024);
    let buf: Buffer;
    try {
      buf = await readFile(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      buf = Buffer.alloc(0);
    }
    let pos = 0;
    while (pos + 8 <= buf.length) {
      const len = buf.readUInt32BE(pos);
      if (pos + 8 + len > buf.length) break;
      const payload = buf.subarray(pos + 8, pos + 8 + len);
      if (crc32c(payload) !== buf.readUInt32BE(pos + 4)) break;
      let entries: Array<[string, V | null]>;
      try {
        entries = JSON.parse(payload.toString("utf8")) as Array<[string, V | null]>;
      } catch {
        break; // A CRC-valid record that is not JSON cannot have been written by us: treat as the torn end.
      }
      j.apply(entries);
      pos += 8 + len;
    }
    j.truncatedBytes = buf.length - pos;
    // Rewriting on open drops a torn tail and folds away history.
    await j.rewrite();
    return j;
  }

  private apply(entries: ReadonlyArray<readonly [string, V | null]>): void {
    for (const [k, v] of entries) {
      if (v === null) this.live.delete(k);
      else this.live.set(k, v);
    }
  }

  get(key: string): V | undefined {
    return this.live.get(key);
  }

  entries(): IterableIterator<[string, V]> {
    return this.live.entries();
  }

  get count(): number {
    return this.live.size;
  }

  /** Durably writes `key → value` (null deletes the key). */
  put(key: string, value: V | null): Promise<void> {
    return this.putAll([[key, value]]);
  }

  /** Durably writes several entries as one record: after a crash all or none of them are there. */
  putAll(entries: ReadonlyArray<readonly [string, V | null]>): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new Error(`journal ${this.path} is closed`));
    if (entries.length === 0) return Promise.resolve();
    const record = encodeRecord(entries);
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ record, entries, resolve, reject });
      if (!this.writing) void this.writeLoop();
    });
  }

  private async writeLoop(): Promise<void> {
    this.writing = true;
    try {
      while (this.pending.length > 0) {
        const group = this.pending;
        this.pending = [];
        try {
          const data = group.length === 1 ? group[0]!.record : Buffer.concat(group.map((p) => p.record));
          let done = 0;
          while (done < data.length) {
            const { bytesWritten } = await this.handle!.write(data, done, data.length - done, this.size + done);
            done += bytesWritten;
          }
          await this.handle!.datasync();
          this.size += data.length;
        } catch (err) {
          // The file's tail is unknown now: refuse further writes (the next open cuts the tail).
          this.failure = err instanceof Error ? err : new Error(String(err));
          for (const p of [...group, ...this.pending]) p.reject(this.failure);
          this.pending = [];
          return;
        }
        for (const p of group) {
          this.apply(p.entries as ReadonlyArray<readonly [string, V | null]>);
          p.resolve();
        }
        if (this.size > this.rewriteAfterBytes && this.size > 2 * this.bytesAtRewrite) {
          try {
            await this.rewrite();
          } catch (err) {
            this.failure = err instanceof Error ? err : new Error(String(err));
          }
        }
      }
    } finally {
      this.writing = false;
      for (const w of this.idle.splice(0)) w();
    }
  }

  private async rewrite(): Promise<void> {
    const records: Buffer[] = [];
    // One record per key keeps each record small; their order does not matter (keys are distinct).
    for (const [k, v] of this.live) records.push(encodeRecord([[k, v]]));
    const body = Buffer.concat(records);
    const tmp = `${this.path}.rewrite`;
    const h = await open(tmp, "w");
    try {
      await h.writeFile(body);
      await h.sync();
    } finally {
      await h.close();
    }
    if (this.handle) await this.handle.close();
    this.handle = null;
    await rename(tmp, this.path);
    await fsyncDir(dirname(this.path));
    this.handle = await open(this.path, "r+");
    this.size = body.length;
    this.bytesAtRewrite = body.length;
  }

  /** Waits for writes in flight, then closes the file (entries stay readable in memory). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.writing) await new Promise<void>((r) => this.idle.push(r));
    await this.handle?.close();
    this.handle = null;
  }
}
