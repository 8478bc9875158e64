/**
 * The object store behind tiered storage (Kafka's RemoteStorageManager, reduced
 * to plain objects): whole-object put, get, ranged get, delete and list by
 * prefix. Keys are `/`-separated paths such as
 * `orders-0-<topicId>/00000000000000000000-<segmentId>.log`.
 *
 * Contract every implementation keeps, because the copier's crash protocol
 * relies on it:
 * - `put` is atomic: a reader sees the whole object or no object, never a
 *   prefix (S3 PUT / CompleteMultipartUpload behave this way; the folder
 *   store writes a temporary file, fsyncs it and renames it).
 * - `put` resolves only once the object is durable.
 * - `delete` of a missing key succeeds (deletion is retried after crashes).
 *
 * An S3-compatible store implements the same five calls (PutObject or a
 * multipart upload fed from the async iterable, GetObject with a Range
 * header, DeleteObject, ListObjectsV2) and is passed to `LogManager.open`.
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { fsyncDir, readFully } from "../files.ts";

export interface RemoteStorage {
  /** Human-readable location for logs and docs (a folder path, an s3:// URL). */
  readonly description: string;
  put(key: string, body: Buffer | AsyncIterable<Buffer>): Promise<void>;
  get(key: string): Promise<Buffer>;
  /** Bytes [start, start + length) of an object; shorter only at the object's end. */
  getRange(key: string, start: number, length: number): Promise<Buffer>;
  delete(key: string): Promise<void>;
  /** Keys starting with `prefix` ("" = all), in no particular order. */
  list(prefix: string): Promise<string[]>;
}

/** Thrown by `get`/`getRange` for a key that does not exist. */
export class RemoteObjectNotFoundError extends Error {
  override name = "RemoteObjectNotFoundError";
  constructor(
    readonly key: string,
    options?: { cause?: unknown },
  ) {
    super(`remote object ${key} does not exist`, options);
  }
}

const TMP_DIR = ".tmp";

/** A directory as an object store: one file per object, `/` in keys become subdirectories. */
export class FolderRemoteStorage implements RemoteStorage {
  private constructor(readonly root: string) {}

  get description(): string {
    return this.root;
  }

  /**
   * Opens (creating) the folder. Temporary files of puts that a crash
   * interrupted are removed here: nothing can be writing them yet.
   */
  static async open(root: string): Promise<FolderRemoteStorage> {
    await rm(join(root, TMP_DIR), { recursive: true, force: true });
    await mkdir(join(root, TMP_DIR), { recursive: true });
    return new FolderRemoteStorage(root);
  }

  private path(key: string): string {
    if (key === "" || key.split("/").some((part) => part === "" || part === "." || part === ".." || part === TMP_DIR)) {
      throw new Error(`invalid remote object key "${key}"`);
    }
    return join(this.root, ...key.split("/"));
  }

  async put(key: string, body: Buffer | AsyncIterable<Buffer>): Promise<void> {
    const target = this.path(key);
    const tmp = join(this.root, TMP_DIR, `${randomBytes(8).toString("hex")}.part`);
    const h = await open(tmp, "w");
    try {
      if (Buffer.isBuffer(body)) await h.writeFile(body);
      else for await (const chunk of body) await h.write(chunk);
      await h.sync();
    } catch (err) {
      await h.close();
      await rm(tmp, { force: true });
      throw err;
    }
    await h.close();
    await mkdir(dirname(target), { recursive: true });
    await rename(tmp, target);
    await fsyncDir(dirname(target));
  }

  private async openForRead(key: string) {
    try {
      return await open(this.path(key), "r");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new RemoteObjectNotFoundError(key, { cause: err });
      throw err;
    }
  }

  async get(key: string): Promise<Buffer> {
    const h = await this.openForRead(key);
    try {
      return await h.readFile();
    } finally {
      await h.close();
    }
  }

  async getRange(key: string, start: number, length: number): Promise<Buffer> {
    const h = await this.openForRead(key);
    try {
      const buf = Buffer.allocUnsafe(length);
      const n = await readFully(h, buf, start);
      return n === length ? buf : buf.subarray(0, n);
    } finally {
      await h.close();
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
        throw err;
      }
      for (const n of names) {
        const p = join(dir, n);
        if (dir === this.root && n === TMP_DIR) continue;
        const st = await stat(p);
        if (st.isDirectory()) await walk(p);
        else {
          const key = relative(this.root, p).split(sep).join("/");
          if (key.startsWith(prefix)) out.push(key);
        }
      }
    };
    await walk(this.root);
    return out;
  }
}
