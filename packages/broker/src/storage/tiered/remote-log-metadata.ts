/**
 * Durable remote-log segment metadata (Kafka's RemoteLogSegmentMetadata and
 * its state machine, KIP-405): which offsets of which partition live in
 * which remote objects.
 *
 * Journal `<dataDir>/meta/remote-log-segments.journal`: entries of
 * `[u32 length][u32 CRC-32C of payload][JSON payload]`, each payload a full
 * segment record with its new state. Every entry is fsynced before it takes
 * effect; a torn or corrupt tail (crash mid-write) is cut off on open. When
 * the journal has grown well past its live content it is rewritten (temp
 * file, fsync, rename) with one entry per live segment.
 *
 * States: COPY_SEGMENT_STARTED → COPY_SEGMENT_FINISHED → DELETE_SEGMENT_STARTED
 * → DELETE_SEGMENT_FINISHED (the record is then dropped). Only FINISHED
 * segments are readable; see remote-log-manager.ts for the crash protocol.
 */
import { mkdir, open, readFile, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { crc32c } from "../batch.ts";
import { writeFileAtomic } from "../files.ts";
import { SerialQueue } from "../locks.ts";

export type RemoteSegmentState =
  | "COPY_SEGMENT_STARTED"
  | "COPY_SEGMENT_FINISHED"
  | "DELETE_SEGMENT_STARTED"
  | "DELETE_SEGMENT_FINISHED";

export interface RemoteSegmentMetadata {
  /** Random UUID (Kafka's RemoteLogSegmentId); part of every object key, so a re-copy never collides. */
  id: string;
  topic: string;
  topicId: string;
  partition: number;
  baseOffset: number;
  /** Last offset in the segment (inclusive). */
  endOffset: number;
  /** Largest record timestamp in the segment (−1 if none) and the offset it belongs to. */
  maxTimestamp: number;
  offsetOfMaxTimestamp: number;
  /** Bytes of the `.log` object. */
  size: number;
  /** True when a `.txnindex` object (aborted transactions) was uploaded; absent in records from before transactions. */
  txnIndex?: boolean;
  state: RemoteSegmentState;
  /** Wall-clock ms of the last state change. */
  eventTimestamp: number;
}

const JOURNAL = "remote-log-segments.journal";
const COMPACT_AFTER_BYTES = 4 * 1024 * 1024;

function encode(rec: RemoteSegmentMetadata): Buffer {
  const payload = Buffer.from(JSON.stringify(rec), "utf8");
  const entry = Buffer.allocUnsafe(8 + payload.length);
  entry.writeUInt32BE(payload.length, 0);
  entry.writeUInt32BE(crc32c(payload), 4);
  payload.copy(entry, 8);
  return entry;
}

export class RemoteLogMetadataStore {
  /** Live records by id (DELETE_SEGMENT_FINISHED ones are dropped). */
  private readonly records = new Map<string, RemoteSegmentMetadata>();
  private journal!: FileHandle;
  private size = 0;
  private readonly writes = new SerialQueue();
  private closed = false;
  /** Bytes cut from a torn tail on open. */
  truncatedBytes = 0;

  private constructor(private readonly dir: string) {}

  private get path(): string {
    return join(this.dir, JOURNAL);
  }

  static async open(metaDir: string): Promise<RemoteLogMetadataStore> {
    await mkdir(metaDir, { recursive: true });
    const s = new RemoteLogMetadataStore(metaDir);
    let buf: Buffer;
    try {
      buf = await readFile(s.path);
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
      s.apply(JSON.parse(payload.toString("utf8")) as RemoteSegmentMetadata);
      pos += 8 + len;
    }
    s.truncatedBytes = buf.length - pos;
    // Rewriting on open both drops a torn tail and folds finished history away.
    await s.rewrite();
    return s;
  }

  private apply(rec: RemoteSegmentMetadata): void {
    if (rec.state === "DELETE_SEGMENT_FINISHED") this.records.delete(rec.id);
    else this.records.set(rec.id, rec);
  }

  private async rewrite(): Promise<void> {
    const body = Buffer.concat([...this.records.values()].map(encode));
    if (this.journal) await this.journal.close();
    await writeFileAtomic(this.path, body);
    this.journal = await open(this.path, "r+");
    this.size = body.length;
  }

  /** Durably records a segment's new state, then applies it. */
  update(rec: RemoteSegmentMetadata): Promise<void> {
    return this.writes.run(async () => {
      if (this.closed) throw new Error("remote log metadata store is closed");
      const entry = encode(rec);
      let done = 0;
      while (done < entry.length) {
        const { bytesWritten } = await this.journal.write(entry, done, entry.length - done, this.size + done);
        done += bytesWritten;
      }
      await this.journal.datasync();
      this.size += entry.length;
      this.apply(rec);
      if (this.size > COMPACT_AFTER_BYTES && this.size > 4 * this.records.size * 300) await this.rewrite();
    });
  }

  all(): RemoteSegmentMetadata[] {
    return [...this.records.values()];
  }

  get(id: string): RemoteSegmentMetadata | undefined {
    return this.records.get(id);
  }

  async close(): Promise<void> {
    await this.writes.run(async () => {
      if (this.closed) return;
      this.closed = true;
      await this.journal.close();
    });
  }
}
