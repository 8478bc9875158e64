/**
 * Idempotent-producer state of one partition (Kafka's ProducerStateManager,
 * ProducerAppendInfo.checkSequence): per producer id the current epoch and
 * the sequence ranges and offsets of its last 5 batches, which is how many
 * in-flight requests an idempotent producer may have.
 */
import { ATTR_CONTROL, type BatchHeader } from "./batch.ts";
import { StorageError } from "./errors.ts";

export const BATCHES_PER_PRODUCER = 5;
const INT32_MAX = 2147483647;

export interface BatchMetadata {
  firstSeq: number;
  lastSeq: number;
  baseOffset: number;
  lastOffset: number;
  timestamp: number;
}

export interface ProducerEntry {
  epoch: number;
  batches: BatchMetadata[];
}

export type SequenceCheck = { kind: "append" } | { kind: "duplicate"; batch: BatchMetadata };

function nextSeq(seq: number): number {
  return seq === INT32_MAX ? 0 : seq + 1;
}

export function lastSequence(firstSeq: number, lastOffsetDelta: number): number {
  // Sequences wrap at INT32_MAX like offsets within a batch do (DefaultRecordBatch.incrementSequence).
  const s = firstSeq + lastOffsetDelta;
  return s > INT32_MAX ? s - INT32_MAX - 1 : s;
}

export class ProducerStateTable {
  readonly producers = new Map<number, ProducerEntry>();

  /** Decides what to do with an incoming batch; throws the Kafka error to return. */
  check(producerId: number, epoch: number, firstSeq: number, lastSeq: number): SequenceCheck {
    const entry = this.producers.get(producerId);
    if (!entry) return { kind: "append" };
    if (epoch < entry.epoch) {
      throw new StorageError(
        "INVALID_PRODUCER_EPOCH",
        `Producer ${producerId}'s epoch ${epoch} is older than the current epoch ${entry.epoch}`,
      );
    }
    if (epoch > entry.epoch) {
      if (firstSeq !== 0) {
        throw new StorageError(
          "OUT_OF_ORDER_SEQUENCE_NUMBER",
          `Producer ${producerId} bumped its epoch to ${epoch} but sent sequence ${firstSeq}; expected 0`,
        );
      }
      return { kind: "append" };
    }
    const dup = entry.batches.find((b) => b.firstSeq === firstSeq && b.lastSeq === lastSeq);
    if (dup) return { kind: "duplicate", batch: dup };
    const last = entry.batches[entry.batches.length - 1];
    if (last && firstSeq !== nextSeq(last.lastSeq)) {
      throw new StorageError(
        "OUT_OF_ORDER_SEQUENCE_NUMBER",
        `Out of order sequence number for producer ${producerId}: expected ${nextSeq(last.lastSeq)}, got ${firstSeq}`,
      );
    }
    return { kind: "append" };
  }

  /** Records an appended (or recovered) batch. */
  update(producerId: number, epoch: number, batch: BatchMetadata): void {
    let entry = this.producers.get(producerId);
    if (!entry || epoch > entry.epoch) {
      entry = { epoch, batches: [] };
      this.producers.set(producerId, entry);
    }
    entry.batches.push(batch);
    if (entry.batches.length > BATCHES_PER_PRODUCER) entry.batches.shift();
  }

  /** Records the header of a batch appended or found on disk; batches without a producer id and control batches carry no sequence. */
  trackBatch(h: BatchHeader): void {
    if (h.producerId < 0 || (h.attributes & ATTR_CONTROL) !== 0) return;
    this.update(h.producerId, h.producerEpoch, {
      firstSeq: h.baseSequence,
      lastSeq: lastSequence(h.baseSequence, h.lastOffsetDelta),
      baseOffset: h.baseOffset,
      lastOffset: h.baseOffset + h.lastOffsetDelta,
      timestamp: h.maxTimestamp,
    });
  }

  toJSON(): unknown {
    return [...this.producers].map(([pid, e]) => ({ pid, epoch: e.epoch, batches: e.batches }));
  }

  static fromJSON(data: unknown): ProducerStateTable {
    const t = new ProducerStateTable();
    if (!Array.isArray(data)) throw new Error("producer state snapshot is not an array");
    for (const item of data as Array<{ pid: number; epoch: number; batches: BatchMetadata[] }>) {
      t.producers.set(item.pid, { epoch: item.epoch, batches: item.batches });
    }
    return t;
  }

  /** Drops state for batches that no longer exist (log truncated below them). */
  truncateTo(endOffset: number): void {
    for (const [pid, e] of this.producers) {
      e.batches = e.batches.filter((b) => b.lastOffset < endOffset);
      if (e.batches.length === 0) this.producers.delete(pid);
    }
  }
}
