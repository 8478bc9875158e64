/**
 * Durable broker metadata: topics and their config overrides, log start
 * offsets, consumer-group committed offsets and the producer-id allocator.
 *
 * Stored as an append-only journal (`meta/journal.log`) of checksummed JSON
 * operations, periodically folded into an atomically replaced snapshot
 * (`meta/snapshot.json`). Every operation is fsynced before it is applied to
 * the in-memory state and acknowledged; concurrent operations share one
 * write and one fsync. Journal entry: uint32 length, uint32 CRC-32C of the
 * payload, UTF-8 JSON payload. A torn tail (crash mid-write) fails its length
 * or CRC check and is cut off on open.
 */
import { mkdir, open, readFile, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { crc32c } from "./batch.ts";
import { fsyncDir, readFully, writeFileAtomic } from "./files.ts";

export interface TopicRecord {
  name: string;
  topicId: string;
  partitions: number;
  configs: Record<string, string>;
  /** Log start offsets by partition, as decimal strings (only those above 0). */
  logStartOffsets: Record<string, string>;
}

export interface StoredOffset {
  offset: string;
  leaderEpoch: number;
  metadata: string;
  commitTimestamp: string;
}

export interface MetadataState {
  topics: Record<string, TopicRecord>;
  /** group → topic → partition → offset */
  groups: Record<string, Record<string, Record<string, StoredOffset>>>;
  /** Producer ids below this were (possibly) handed out. */
  producerIdBlockEnd: string;
}

export type MetaOp =
  | { op: "createTopic"; name: string; topicId: string; partitions: number; configs: Record<string, string> }
  | { op: "deleteTopic"; name: string }
  | { op: "setPartitions"; name: string; partitions: number }
  | { op: "setConfigs"; name: string; configs: Record<string, string> }
  | { op: "logStart"; name: string; topicId: string; partition: number; offset: string }
  | {
      op: "commitOffsets";
      group: string;
      offsets: Array<{ topic: string; partition: number } & StoredOffset>;
    }
  | { op: "deleteGroup"; group: string }
  | { op: "deleteOffsets"; group: string; topic: string; partitions: number[] }
  | { op: "producerIdBlock"; end: string };

function emptyState(): MetadataState {
  return { topics: {}, groups: {}, producerIdBlockEnd: "0" };
}

/** Applies one operation; must be deterministic, it runs both live and on replay. */
export function applyOp(s: MetadataState, op: MetaOp): void {
  switch (op.op) {
    case "createTopic":
      s.topics[op.name] = {
        name: op.name,
        topicId: op.topicId,
        partitions: op.partitions,
        configs: op.configs,
        logStartOffsets: {},
      };
      break;
    case "deleteTopic":
      delete s.topics[op.name];
      // Kafka drops committed offsets of deleted topics (GroupMetadataManager.cleanupGroupMetadata).
      for (const g of Object.values(s.groups)) delete g[op.name];
      break;
    case "setPartitions": {
      const t = s.topics[op.name];
      if (t) t.partitions = op.partitions;
      break;
    }
    case "setConfigs": {
      const t = s.topics[op.name];
      if (t) t.configs = op.configs;
      break;
    }
    case "logStart": {
      const t = s.topics[op.name];
      // The topic id guards against a late update for a deleted-and-recreated topic.
      if (t && t.topicId === op.topicId) t.logStartOffsets[String(op.partition)] = op.offset;
      break;
    }
    case "commitOffsets": {
      const g = (s.groups[op.group] ??= {});
      for (const o of op.offsets) {
        const t = (g[o.topic] ??= {});
        t[String(o.partition)] = {
          offset: o.offset,
          leaderEpoch: o.leaderEpoch,
          metadata: o.metadata,
          commitTimestamp: o.commitTimestamp,
        };
      }
      break;
    }
    case "deleteGroup":
      delete s.groups[op.group];
      break;
    case "deleteOffsets": {
      const g = s.groups[op.group];
      const t = g?.[op.topic];
      if (t) {
        for (const p of op.partitions) delete t[String(p)];
        if (Object.keys(t).length === 0) delete g[op.topic];
      }
      break;
    }
    case "producerIdBlock":
      s.producerIdBlockEnd = op.end;
      break;
  }
}

const SNAPSHOT_AFTER_BYTES = 8 * 1024 * 1024;

interface Pending {
  seq: number;
  entry: Buffer;
  op: MetaOp;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class MetadataStore {
  state: MetadataState = emptyState();
  /** Last sequence number handed out / last one applied to `state`. */
  private seq = 0;
  private appliedSeq = 0;
  private journal!: FileHandle;
  private journalSize = 0;
  private pending: Pending[] = [];
  private writing = false;
  private idleWaiters: Array<() => void> = [];
  private failure: Error | null = null;
  private closed = false;
  /** Bytes cut from a torn journal tail on open (for logs and tests). */
  truncatedBytes = 0;

  private constructor(readonly dir: string) {}

  private get journalPath(): string {
    return join(this.dir, "journal.log");
  }
  private get snapshotPath(): string {
    return join(this.dir, "snapshot.json");
  }

  static async open(dir: string): Promise<MetadataStore> {
    await mkdir(dir, { recursive: true });
    const m = new MetadataStore(dir);
    let snapSeq = 0;
    try {
      const snap = JSON.parse(await readFile(m.snapshotPath, "utf8")) as { seq: number; state: MetadataState };
      m.state = snap.state;
      snapSeq = snap.seq;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    m.seq = snapSeq;
    m.appliedSeq = snapSeq;
    m.journal = await open(m.journalPath, "a+").then(async (h) => {
      await h.close();
      return open(m.journalPath, "r+");
    });
    const { size } = await m.journal.stat();
    const buf = Buffer.allocUnsafe(size);
    await readFully(m.journal, buf, 0);
    let pos = 0;
    while (pos + 8 <= size) {
      const len = buf.readUInt32BE(pos);
      if (pos + 8 + len > size) break;
      const payload = buf.subarray(pos + 8, pos + 8 + len);
      if (crc32c(payload) !== buf.readUInt32BE(pos + 4)) break;
      const rec = JSON.parse(payload.toString("utf8")) as { seq: number; op: MetaOp };
      if (rec.seq > m.seq) {
        applyOp(m.state, rec.op);
        m.seq = rec.seq;
        m.appliedSeq = rec.seq;
      }
      pos += 8 + len;
    }
    if (pos < size) {
      // Torn or corrupt tail: nothing after it was ever acknowledged.
      m.truncatedBytes = size - pos;
      await m.journal.truncate(pos);
      await m.journal.sync();
    }
    m.journalSize = pos;
    await fsyncDir(dir);
    return m;
  }

  /** Durably records `op`, then applies it to `state`. */
  commit(op: MetaOp): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new Error("metadata store is closed"));
    const seq = ++this.seq;
    const payload = Buffer.from(JSON.stringify({ seq, op }), "utf8");
    const entry = Buffer.allocUnsafe(8 + payload.length);
    entry.writeUInt32BE(payload.length, 0);
    entry.writeUInt32BE(crc32c(payload), 4);
    payload.copy(entry, 8);
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ seq, entry, op, resolve, reject });
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
          const data = group.length === 1 ? group[0]!.entry : Buffer.concat(group.map((p) => p.entry));
          let done = 0;
          while (done < data.length) {
            const { bytesWritten } = await this.journal.write(data, done, data.length - done, this.journalSize + done);
            done += bytesWritten;
          }
          await this.journal.datasync();
          this.journalSize += data.length;
        } catch (err) {
          this.failure = err instanceof Error ? err : new Error(String(err));
          for (const p of [...group, ...this.pending]) p.reject(this.failure);
          this.pending = [];
          return;
        }
        for (const p of group) {
          applyOp(this.state, p.op);
          this.appliedSeq = p.seq;
          p.resolve();
        }
        if (this.journalSize > SNAPSHOT_AFTER_BYTES) await this.snapshot();
      }
    } finally {
      this.writing = false;
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /**
   * Folds the journal into the snapshot. The snapshot records the sequence
   * it covers, so a crash between writing it and emptying the journal only
   * means some entries are skipped on replay.
   */
  private async snapshot(): Promise<void> {
    await writeFileAtomic(this.snapshotPath, JSON.stringify({ seq: this.appliedSeq, state: this.state }));
    await this.journal.truncate(0);
    await this.journal.sync();
    this.journalSize = 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.writing) await new Promise<void>((r) => this.idleWaiters.push(r));
    if (!this.failure) await this.snapshot();
    await this.journal.close();
  }
}
