/**
 * Opening the segments of one partition directory at start-up: completes or
 * discards an interrupted compaction swap, opens every `<base>.log` in
 * offset order (CRC-scanning and truncating the last one after an unclean
 * shutdown) and creates the first segment of an empty partition (unsynced,
 * like the rest of a partition's creation: partition-metadata.ts).
 *
 * Compaction's swap protocol (compaction.ts): `.cleaned` files were never
 * complete, so they are dropped; a `.log.swap` was fully written and fsynced
 * before its rename, so the swap is finished (its stale indexes removed, to
 * be rebuilt by the scan).
 */
import { readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { fsyncDir, type FileHandleCache } from "./files.ts";
import { Segment } from "./segment.ts";

export interface LoadedSegments {
  /** Oldest first; never empty. */
  segments: Segment[];
  /** Bytes cut off torn or corrupt tails. */
  truncatedBytes: number;
  /** Segments found on disk (0 for a new partition). */
  segmentsOpened: number;
}

export async function loadSegments(
  dir: string,
  files: FileHandleCache,
  indexIntervalBytes: number,
  /** Base offset of the first segment when the directory has none. */
  emptyBaseOffset: number,
  recover: boolean,
  now: number,
): Promise<LoadedSegments> {
  const names = await readdir(dir);
  for (const n of names) {
    if (n.endsWith(".cleaned")) await rm(join(dir, n), { force: true });
  }
  for (const n of names) {
    if (!n.endsWith(".log.swap")) continue;
    const base = n.slice(0, -".log.swap".length);
    await rm(join(dir, `${base}.index`), { force: true });
    await rm(join(dir, `${base}.timeindex`), { force: true });
    await rename(join(dir, n), join(dir, `${base}.log`));
    await fsyncDir(dir);
  }
  const bases = (await readdir(dir))
    .filter((n) => /^\d{20}\.log$/.test(n))
    .map((n) => Number(n.slice(0, 20)))
    .sort((a, b) => a - b);

  const segments: Segment[] = [];
  let truncatedBytes = 0;
  for (let i = 0; i < bases.length; i++) {
    const isLast = i === bases.length - 1;
    const opened = await Segment.open(dir, bases[i]!, files, indexIntervalBytes, recover && isLast);
    truncatedBytes += opened.truncatedBytes;
    segments.push(opened.segment);
  }
  const segmentsOpened = segments.length;
  if (segments.length === 0) {
    // No fsync: the file is empty, and the partition's first write fsyncs the
    // directory before any record bytes go in (partition-metadata.ts).
    segments.push(await Segment.create(dir, emptyBaseOffset, files, indexIntervalBytes, now));
  }
  return { segments, truncatedBytes, segmentsOpened };
}
