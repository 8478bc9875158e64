/**
 * The open transactions of one partition (the transactional part of Kafka's
 * ProducerStateManager): for each producer with an ongoing transaction, the
 * offset of its first record in this partition. The smallest of them is the
 * first unstable offset, which bounds the last stable offset (LSO) that
 * READ_COMMITTED consumers may read up to. A marker completes the producer's
 * transaction; an ABORT yields the entry for the segment's transaction index.
 *
 * Kept in memory, persisted in the producer snapshot, and rebuilt from batch
 * headers after a crash (replaying batches and markers from the snapshot on).
 */
import type { AbortedTxn } from "./txn-index.ts";

export class OngoingTransactions {
  private readonly firstOffsets = new Map<number, number>();

  /** A transactional batch of `producerId` was appended at `offset`: its transaction starts there unless already open. */
  begin(producerId: number, offset: number): void {
    if (!this.firstOffsets.has(producerId)) this.firstOffsets.set(producerId, offset);
  }

  has(producerId: number): boolean {
    return this.firstOffsets.has(producerId);
  }

  firstOffsetOf(producerId: number): number | undefined {
    return this.firstOffsets.get(producerId);
  }

  /**
   * A marker for `producerId` was appended at `markerOffset`. Returns the
   * aborted-transaction entry when an open transaction was aborted, else null
   * (a commit, or a marker for a producer with nothing open here).
   */
  complete(producerId: number, markerOffset: number, commit: boolean): AbortedTxn | null {
    const first = this.firstOffsets.get(producerId);
    if (first === undefined) return null;
    this.firstOffsets.delete(producerId);
    if (commit) return null;
    // As Kafka: the LSO right after this transaction completed, i.e. the first offset still undecided.
    return { producerId, firstOffset: first, lastOffset: markerOffset, lastStableOffset: this.firstUnstableOffset() ?? markerOffset + 1 };
  }

  /** The first offset of any open transaction, or null when none is open. */
  firstUnstableOffset(): number | null {
    let min: number | null = null;
    for (const o of this.firstOffsets.values()) if (min === null || o < min) min = o;
    return min;
  }

  get size(): number {
    return this.firstOffsets.size;
  }

  entries(): IterableIterator<[number, number]> {
    return this.firstOffsets.entries();
  }

  /** The log was truncated at `offset`: transactions that started there or later never happened. */
  truncateTo(offset: number): void {
    for (const [pid, first] of this.firstOffsets) if (first >= offset) this.firstOffsets.delete(pid);
  }

  toJSON(): Array<[number, number]> {
    return [...this.firstOffsets];
  }

  static fromJSON(data: unknown): OngoingTransactions {
    const t = new OngoingTransactions();
    if (data === undefined || data === null) return t;
    if (!Array.isArray(data)) throw new Error("ongoing transactions snapshot is not an array");
    for (const item of data as unknown[]) {
      if (!Array.isArray(item) || typeof item[0] !== "number" || typeof item[1] !== "number") throw new Error("bad ongoing transaction entry in snapshot");
      t.firstOffsets.set(item[0], item[1]);
    }
    return t;
  }
}
