/**
 * The idempotent-producer state of a partition on disk (Kafka's
 * `.snapshot` files, simplified to one JSON file): written atomically at
 * segment roll and at close, and on open replayed forward from its offset
 * over the batch headers written after it. A missing or unreadable
 * snapshot means a replay from the first segment.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "./files.ts";
import { ProducerStateTable } from "./producer-state.ts";
import type { Segment } from "./segment.ts";

const PRODUCER_SNAPSHOT = "producer-state.json";

/** Producer state as of `logEndOffset`: the snapshot, then every later batch header of `segments`. */
export async function loadProducerState(dir: string, segments: readonly Segment[], logEndOffset: number): Promise<ProducerStateTable> {
  let table = new ProducerStateTable();
  let from = segments[0]!.baseOffset;
  try {
    const snap = JSON.parse(await readFile(join(dir, PRODUCER_SNAPSHOT), "utf8")) as {
      offset: number;
      producers: unknown;
    };
    if (snap.offset <= logEndOffset) {
      table = ProducerStateTable.fromJSON(snap.producers);
      from = Math.max(snap.offset, from);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT" && !(err instanceof SyntaxError)) throw err;
    // No snapshot, or one torn by a crash: rebuild from every batch header.
  }
  for (const seg of segments) {
    if (seg.nextOffset <= from) continue;
    const start = seg.baseOffset >= from ? 0 : seg.lookup(from);
    await seg.scan(start, seg.size, false, (h) => {
      if (h.baseOffset >= from) table.trackBatch(h);
    });
  }
  return table;
}

/** Persists the state as of `offset` (everything appended before it). */
export async function writeProducerSnapshot(dir: string, offset: number, table: ProducerStateTable): Promise<void> {
  await writeFileAtomic(join(dir, PRODUCER_SNAPSHOT), JSON.stringify({ offset, producers: table.toJSON() }));
}
