/**
 * Producer state of one partition (Kafka's ProducerStateManager,
 * ProducerAppendInfo): per producer id the current epoch, the sequence
 * ranges and offsets of its last 5 batches (how many in-flight requests an
 * idempotent producer may have), the coordinator epoch of its last
 * transaction marker, and (ongoing-transactions.ts) the first offset of its
 * open transaction, which bounds the last stable offset.
 *
 * Transaction rules (ProducerAppendInfo): a transactional batch opens the
 * producer's transaction at its offset unless one is open; a
 * non-transactional batch while one is open is INVALID_TXN_STATE; a marker
 * must carry an epoch at least the producer's (INVALID_PRODUCER_EPOCH) and a
 * coordinator epoch at least the last one (TRANSACTION_COORDINATOR_FENCED),
 * raises the producer's epoch to its own — which is how fencing reaches the
 * partition — and closes the open transaction.
 */
import { ATTR_CONTROL, ATTR_TRANSACTIONAL, type BatchHeader } from "./batch.ts";
import { StorageError } from "./errors.ts";
import { OngoingTransactions } from "./ongoing-transactions.ts";
import type { AbortedTxn } from "./txn-index.ts";

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
  /** Coordinator epoch of the producer's last marker here, −1 before any (Kafka's default). */
  coordinatorEpoch?: number;
  /** Timestamp of the producer's last batch or marker, −1 if unknown. */
  lastTimestamp?: number;
}

/** One producer as DescribeProducers reports it. */
export interface ProducerSummary {
  producerId: number;
  epoch: number;
  lastSequence: number;
  lastTimestamp: number;
  coordinatorEpoch: number;
  /** First offset of its open transaction here, −1 if none. */
  currentTxnStartOffset: number;
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
  /** Open transactions by producer: their first offsets bound the LSO. */
  ongoing = new OngoingTransactions();

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

  /**
   * The transactional rule for a data batch of a producer id, checked before
   * it is appended: a plain batch while the producer has a transaction open
   * here would be swallowed by that transaction's outcome.
   */
  checkTransactionState(producerId: number, transactional: boolean): void {
    if (!transactional && this.ongoing.has(producerId)) {
      throw new StorageError(
        "INVALID_TXN_STATE",
        `Expected transactional write from producer ${producerId} at offset after its open transaction (started at ${this.ongoing.firstOffsetOf(producerId)})`,
      );
    }
  }

  /** Records an appended (or recovered) batch. */
  update(producerId: number, epoch: number, batch: BatchMetadata): void {
    let entry = this.producers.get(producerId);
    if (!entry || epoch > entry.epoch) {
      entry = { epoch, batches: [], coordinatorEpoch: entry?.coordinatorEpoch ?? -1, lastTimestamp: -1 };
      this.producers.set(producerId, entry);
    }
    entry.batches.push(batch);
    if (entry.batches.length > BATCHES_PER_PRODUCER) entry.batches.shift();
    entry.lastTimestamp = batch.timestamp;
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
    if ((h.attributes & ATTR_TRANSACTIONAL) !== 0) this.ongoing.begin(h.producerId, h.baseOffset);
  }

  /** Checks a marker before it is written (Kafka's appendEndTxnMarker checks). */
  checkMarker(producerId: number, epoch: number, coordinatorEpoch: number): void {
    const entry = this.producers.get(producerId);
    if (!entry) return;
    if (epoch < entry.epoch) {
      throw new StorageError("INVALID_PRODUCER_EPOCH", `Transaction marker for producer ${producerId} has epoch ${epoch}, older than the current epoch ${entry.epoch}`);
    }
    if ((entry.coordinatorEpoch ?? -1) > coordinatorEpoch) {
      throw new StorageError(
        "TRANSACTION_COORDINATOR_FENCED",
        `Transaction marker for producer ${producerId} comes from coordinator epoch ${coordinatorEpoch}, older than ${entry.coordinatorEpoch}`,
      );
    }
  }

  /**
   * Applies a marker at `offset`: the producer's epoch becomes the marker's
   * (a bump forgets its sequences: the next batch must start at 0) and its
   * open transaction ends. Returns the aborted-transaction entry for the
   * segment's index when an open transaction was aborted.
   */
  applyMarker(producerId: number, epoch: number, coordinatorEpoch: number, offset: number, commit: boolean, timestamp: number): AbortedTxn | null {
    let entry = this.producers.get(producerId);
    if (!entry || epoch > entry.epoch) {
      entry = { epoch, batches: [], coordinatorEpoch, lastTimestamp: timestamp };
      this.producers.set(producerId, entry);
    }
    entry.coordinatorEpoch = coordinatorEpoch;
    entry.lastTimestamp = timestamp;
    return this.ongoing.complete(producerId, offset, commit);
  }

  /** The first offset of an open transaction, or null. */
  firstUnstableOffset(): number | null {
    return this.ongoing.firstUnstableOffset();
  }

  summaries(): ProducerSummary[] {
    return [...this.producers].map(([producerId, e]) => ({
      producerId,
      epoch: e.epoch,
      lastSequence: e.batches[e.batches.length - 1]?.lastSeq ?? -1,
      lastTimestamp: e.lastTimestamp ?? e.batches[e.batches.length - 1]?.timestamp ?? -1,
      coordinatorEpoch: e.coordinatorEpoch ?? -1,
      currentTxnStartOffset: this.ongoing.firstOffsetOf(producerId) ?? -1,
    }));
  }

  toJSON(): unknown {
    return [...this.producers].map(([pid, e]) => ({ pid, epoch: e.epoch, batches: e.batches, coordinatorEpoch: e.coordinatorEpoch ?? -1, lastTimestamp: e.lastTimestamp ?? -1 }));
  }

  /** `ongoing` is absent in snapshots written before transactions existed (none can be open in those). */
  static fromJSON(data: unknown, ongoing?: unknown): ProducerStateTable {
    const t = new ProducerStateTable();
    if (!Array.isArray(data)) throw new Error("producer state snapshot is not an array");
    for (const item of data as Array<{ pid: number; epoch: number; batches: BatchMetadata[]; coordinatorEpoch?: number; lastTimestamp?: number }>) {
      t.producers.set(item.pid, { epoch: item.epoch, batches: item.batches, coordinatorEpoch: item.coordinatorEpoch ?? -1, lastTimestamp: item.lastTimestamp ?? -1 });
    }
    t.ongoing = OngoingTransactions.fromJSON(ongoing);
    return t;
  }

  /** Drops state for batches that no longer exist (log truncated below them). */
  truncateTo(endOffset: number): void {
    for (const [pid, e] of this.producers) {
      e.batches = e.batches.filter((b) => b.lastOffset < endOffset);
      this.ongoing.truncateTo(endOffset);
      if (e.batches.length === 0) this.producers.delete(pid);
    }
  }
}
