/**
 * A partition directory's topic id file (`partition.metadata`, Kafka's
 * PartitionMetadataFile: "version: 0" is left out, one line
 * `topic_id: <uuid>`) and the guard that makes it durable before the
 * partition's first record bytes are written.
 *
 * Durability model of creation (Kafka's own: UnifiedLog schedules the id
 * file's flush asynchronously when a log is created and flushes it at the
 * latest at the start of the first append, "so that any log data can be
 * recovered with the correct topic ID"):
 * - Creating a partition writes the id file and the empty first segment
 *   without any fsync; CreateTopics / CreatePartitions fsync the logs
 *   directory once per request, before answering, so the partition
 *   directories themselves exist after a crash.
 * - Before the first record bytes go into a partition (FirstWriteGuard), the
 *   id file and then the partition directory are fsynced, once. A partition
 *   that ever held data therefore has a durable, whole id.
 * - A crash in between can leave an id file missing, empty or torn in a
 *   directory with no record bytes. Nothing was ever acknowledged there, so
 *   start-up adopts such a directory (rewrites the id from the metadata
 *   journal, which is durable before any partition is created) instead of
 *   treating it as a foreign one (log-manager.ts `openAllLogs`).
 */
import { open, readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fsyncDir } from "./files.ts";

export const PARTITION_METADATA = "partition.metadata";

function idLine(topicId: string): string {
  return `topic_id: ${topicId}\n`;
}

/** Writes the id file without fsync (durable later, by the FirstWriteGuard). */
export async function writePartitionMetadata(dir: string, topicId: string): Promise<void> {
  await writeFile(join(dir, PARTITION_METADATA), idLine(topicId));
}

/**
 * What the id file of a partition directory says about `topicId`:
 * "match" — the whole id; "other" — a whole id of another topic (an older
 * topic of the same name); "unwritten" — missing, empty or torn (a prefix of
 * an id line, possibly padded with the NUL bytes some file systems show for
 * a write that did not reach the disk), i.e. never made durable.
 */
export async function readPartitionMetadata(dir: string, topicId: string): Promise<"match" | "other" | "unwritten"> {
  let text: string;
  try {
    text = await readText(join(dir, PARTITION_METADATA));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return "unwritten";
    throw err;
  }
  if (text.trim() === idLine(topicId).trim()) return "match";
  if (/^topic_id: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\s*$/.test(text)) return "other";
  return "unwritten";
}

async function readText(path: string): Promise<string> {
  const h = await open(path, "r");
  try {
    return (await h.readFile("utf8")).replace(/\0+$/, "");
  } finally {
    await h.close();
  }
}

/**
 * True when no file of the directory holds record bytes: every segment file
 * (`.log`, an interrupted compaction's `.log.swap` or `.cleaned`) is empty.
 * Index files, the producer snapshot and the id file are not records.
 */
export async function holdsNoRecords(dir: string): Promise<boolean> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOTDIR") return false; // a stray file: not a partition
    throw err;
  }
  for (const name of names) {
    if (!/\.log$|\.log\.swap$|\.cleaned$/.test(name)) continue;
    if ((await stat(join(dir, name))).size > 0) return false;
  }
  return true;
}

/**
 * Makes the id file durable before a partition's first record bytes are
 * written: an fsync of the file, then of the partition directory (which
 * also covers the entry of the first segment file), once. Armed only for a
 * partition that holds no records when opened; one with records had its id
 * made durable before them. Runs inside the partition's writer queue.
 */
export class FirstWriteGuard {
  private pending: Promise<void> | null;

  constructor(
    private readonly dir: string,
    armed: boolean,
  ) {
    this.pending = armed ? null : Promise.resolve();
  }

  /** True until the first write made the id durable. */
  get armed(): boolean {
    return this.pending === null;
  }

  beforeWrite(): Promise<void> {
    this.pending ??= this.syncId().catch((err: unknown) => {
      // Not durable: the next write tries again (the log fails on this one anyway).
      this.pending = null;
      throw err;
    });
    return this.pending;
  }

  private async syncId(): Promise<void> {
    const h = await open(join(this.dir, PARTITION_METADATA), "r");
    try {
      await h.sync();
    } finally {
      await h.close();
    }
    await fsyncDir(this.dir);
  }
}
