/**
 * The aborted-transactions index of one segment (Kafka's TransactionIndex,
 * `<base offset>.txnindex`): one entry per transaction whose ABORT marker is in
 * that segment, so a READ_COMMITTED fetch can tell the consumer which
 * producers' records in the returned range to drop.
 *
 * File layout (Kafka's): entries of 34 bytes back to back,
 *   version int16 (0), producer_id int64, first_offset int64,
 *   last_offset int64 (the marker), last_stable_offset int64 (the LSO once the
 *   transaction was complete).
 * Entries are in marker order, so last_offset ascends. A closed segment's index
 * is written (atomically) when the segment is rolled; the active segment's
 * entries are kept in memory and travel in the producer snapshot until then,
 * so recovery after a crash rebuilds them by replaying the segment.
 */
import { readFile } from "node:fs/promises";
import { writeFileAtomic } from "./files.ts";

export const TXN_INDEX_ENTRY_SIZE = 34;
const VERSION = 0;

export interface AbortedTxn {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
  lastStableOffset: number;
}

export interface CollectResult {
  /** Aborted transactions overlapping [fetchOffset, upperBound). */
  aborted: AbortedTxn[];
  /**
   * True once an entry shows the LSO had passed `upperBound`: every
   * transaction with records below `upperBound` was complete by then, so no
   * later segment can hold an entry that matters (Kafka's TxnIndexSearchResult.isComplete).
   */
  complete: boolean;
}

export class TxnIndex {
  private constructor(private entries: AbortedTxn[]) {}

  static empty(): TxnIndex {
    return new TxnIndex([]);
  }

  static fromEntries(entries: readonly AbortedTxn[]): TxnIndex {
    return new TxnIndex([...entries]);
  }

  /** A missing file is an empty index (segments written before transactions existed have none). */
  static async load(path: string): Promise<TxnIndex> {
    let buf: Buffer;
    try {
      buf = await readFile(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return TxnIndex.empty();
      throw err;
    }
    return new TxnIndex(TxnIndex.decode(buf));
  }

  static decode(buf: Buffer): AbortedTxn[] {
    const out: AbortedTxn[] = [];
    // A partial trailing entry cannot come from writeFileAtomic; ignore it rather than trust it.
    for (let pos = 0; pos + TXN_INDEX_ENTRY_SIZE <= buf.length; pos += TXN_INDEX_ENTRY_SIZE) {
      const version = buf.readInt16BE(pos);
      if (version !== VERSION) throw new Error(`unknown transaction index entry version ${version}`);
      out.push({
        producerId: Number(buf.readBigInt64BE(pos + 2)),
        firstOffset: Number(buf.readBigInt64BE(pos + 10)),
        lastOffset: Number(buf.readBigInt64BE(pos + 18)),
        lastStableOffset: Number(buf.readBigInt64BE(pos + 26)),
      });
    }
    return out;
  }

  encode(): Buffer {
    const buf = Buffer.allocUnsafe(this.entries.length * TXN_INDEX_ENTRY_SIZE);
    this.entries.forEach((e, i) => {
      const pos = i * TXN_INDEX_ENTRY_SIZE;
      buf.writeInt16BE(VERSION, pos);
      buf.writeBigInt64BE(BigInt(e.producerId), pos + 2);
      buf.writeBigInt64BE(BigInt(e.firstOffset), pos + 10);
      buf.writeBigInt64BE(BigInt(e.lastOffset), pos + 18);
      buf.writeBigInt64BE(BigInt(e.lastStableOffset), pos + 26);
    });
    return buf;
  }

  async write(path: string): Promise<void> {
    await writeFileAtomic(path, this.encode());
  }

  append(e: AbortedTxn): void {
    const last = this.entries[this.entries.length - 1];
    if (last && e.lastOffset < last.lastOffset) throw new Error(`transaction index entries must be appended in offset order (${e.lastOffset} after ${last.lastOffset})`);
    this.entries.push(e);
  }

  /** Drops entries whose marker is at or beyond `offset` (the log was truncated there). */
  truncateTo(offset: number): void {
    this.entries = this.entries.filter((e) => e.lastOffset < offset);
  }

  all(): readonly AbortedTxn[] {
    return this.entries;
  }

  get size(): number {
    return this.entries.length;
  }

  /** Kafka's TransactionIndex.collectAbortedTxns. */
  collect(fetchOffset: number, upperBound: number): CollectResult {
    const aborted: AbortedTxn[] = [];
    for (const e of this.entries) {
      if (e.lastOffset >= fetchOffset && e.firstOffset < upperBound) aborted.push(e);
      if (e.lastStableOffset >= upperBound) return { aborted, complete: true };
    }
    return { aborted, complete: false };
  }

  /** True when the batch of `producerId` at `offset` belongs to an aborted transaction recorded here. */
  isAborted(producerId: number, offset: number): boolean {
    return this.entries.some((e) => e.producerId === producerId && e.firstOffset <= offset && offset <= e.lastOffset);
  }
}

/**
 * Collects aborted transactions for a fetch across consecutive segments,
 * starting at the one holding `fetchOffset` (Kafka's collectAbortedTransactions):
 * an entry lives in the segment of its marker, which can be after the fetched
 * range, so later segments are searched until one reports completeness.
 * The result is sorted by first offset, as clients consume it in that order.
 */
export function collectAbortedTransactions(indexes: Iterable<TxnIndex>, fetchOffset: number, upperBound: number): AbortedTxn[] {
  const out: AbortedTxn[] = [];
  for (const idx of indexes) {
    const r = idx.collect(fetchOffset, upperBound);
    out.push(...r.aborted);
    if (r.complete) break;
  }
  return out.sort((a, b) => a.firstOffset - b.firstOffset || a.lastOffset - b.lastOffset);
}
