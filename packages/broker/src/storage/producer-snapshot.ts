/**
 * The producer state of a partition on disk (Kafka's `.snapshot` files,
 * simplified to one JSON file): idempotent-producer sequences, epochs and
 * the open transactions, written atomically at segment roll and at close,
 * and on open replayed forward from its offset over the batches written
 * after it. A missing or unreadable snapshot means a replay from the first
 * segment.
 *
 * The replay also redoes what transaction markers did: each marker closes
 * its producer's transaction and an ABORT adds the segment's transaction
 * index entry. Entries at or after the replay's start are dropped first and
 * rebuilt, so an index file written at close but newer than the snapshot
 * (a crash between the two writes) cannot count an abort twice.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ControlRecordType, decodeControlRecordType, decodeEndTxnMarkerValue } from "@kappa/kafka-protocol";
import { ATTR_CONTROL, decodeRecords, type BatchHeader } from "./batch.ts";
import { writeFileAtomic } from "./files.ts";
import { ProducerStateTable } from "./producer-state.ts";
import type { Segment } from "./segment.ts";

const PRODUCER_SNAPSHOT = "producer-state.json";

/** Producer state as of `logEndOffset`: the snapshot, then every later batch of `segments`. */
export async function loadProducerState(dir: string, segments: readonly Segment[], logEndOffset: number): Promise<ProducerStateTable> {
  let table = new ProducerStateTable();
  let from = segments[0]!.baseOffset;
  try {
    const snap = JSON.parse(await readFile(join(dir, PRODUCER_SNAPSHOT), "utf8")) as {
      offset: number;
      producers: unknown;
      ongoing?: unknown;
    };
    if (snap.offset <= logEndOffset) {
      table = ProducerStateTable.fromJSON(snap.producers, snap.ongoing);
      from = Math.max(snap.offset, from);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT" && !(err instanceof SyntaxError)) throw err;
    // No snapshot, or one torn by a crash: rebuild from every batch header.
  }
  for (const seg of segments) if (seg.nextOffset > from) seg.txnIndex.truncateTo(from);
  for (const seg of segments) {
    if (seg.nextOffset <= from) continue;
    const start = seg.baseOffset >= from ? 0 : seg.lookup(from);
    // With bytes (verifyCrc): a marker's outcome is in its record. This runs over what was
    // written after the snapshot, normally the active segment after a crash, which the
    // segment's own recovery has just CRC-scanned too.
    await seg.scan(start, seg.size, true, (h, _pos, bytes) => {
      if (h.baseOffset < from) return;
      if ((h.attributes & ATTR_CONTROL) !== 0) replayMarker(table, seg, h, bytes);
      else table.trackBatch(h);
    });
  }
  return table;
}

function replayMarker(table: ProducerStateTable, seg: Segment, h: BatchHeader, bytes: Buffer | null): void {
  if (!bytes) return;
  const record = decodeRecords(bytes)[0];
  if (!record) return;
  const type = decodeControlRecordType(record.key);
  // Only end-transaction markers are written by this broker; other control types carry no producer state.
  if (type !== ControlRecordType.COMMIT && type !== ControlRecordType.ABORT) return;
  const { coordinatorEpoch } = decodeEndTxnMarkerValue(record.value);
  const aborted = table.applyMarker(h.producerId, h.producerEpoch, coordinatorEpoch, h.baseOffset, type === ControlRecordType.COMMIT, h.maxTimestamp);
  if (aborted) seg.txnIndex.append(aborted);
}

/** Persists the state as of `offset` (everything appended before it). */
export async function writeProducerSnapshot(dir: string, offset: number, table: ProducerStateTable): Promise<void> {
  await writeFileAtomic(join(dir, PRODUCER_SNAPSHOT), JSON.stringify({ offset, producers: table.toJSON(), ongoing: table.ongoing.toJSON() }));
}
