/**
 * What a PartitionLog needs from tiered storage. Kept as an interface so the
 * partition log does not depend on the copier, the object store or the cache.
 */
import type { TxnIndex } from "../txn-index.ts";

export interface RemoteTimestampAndOffset {
  offset: number;
  timestamp: number;
}

export interface PartitionTier {
  /** Base offset of the oldest readable (COPY_SEGMENT_FINISHED) remote segment; null when there is none. */
  earliestOffset(): number | null;
  /** Kafka's highestOffsetInRemoteStorage: last offset of the newest readable remote segment, −1 when none. */
  highestOffset(): number;
  /** Whole batches from the remote segment holding `offset` (at least one, else ≤ maxBytes); null when not remote. */
  read(offset: number, maxBytes: number): Promise<Buffer | null>;
  /** First record at or after `minOffset` with timestamp ≥ ts, searching remote segments only. */
  offsetForTimestamp(ts: number, minOffset: number): Promise<RemoteTimestampAndOffset | null>;
  /** The record with the largest timestamp among remote segments ending at or after `minOffset`. */
  maxTimestamp(minOffset: number): Promise<RemoteTimestampAndOffset | null>;
  /** Transaction indexes of the remote segments from the one holding `offset` on, oldest first (READ_COMMITTED fetches). */
  txnIndexesFrom(offset: number): Promise<TxnIndex[]>;
}
