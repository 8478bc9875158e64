// The durable state of one transactional id, and the transitions Kafka's
// transaction coordinator makes on it (KIP-98; epoch handling of KIP-360 and
// KIP-588). One record per transactional id is kept in the transaction state
// log (transaction-state-log.ts): every transition writes the whole new record
// before it takes effect, as Kafka appends a TransactionLogValue to
// __transaction_state.
//
// States and who moves them (Kafka's TransactionState):
//   Empty ──AddPartitions/AddOffsets──▶ Ongoing ──EndTxn(commit)──▶ PrepareCommit ──markers──▶ CompleteCommit
//                                         │     ──EndTxn(abort) / timeout / fencing──▶ PrepareAbort ──markers──▶ CompleteAbort
//   CompleteCommit / CompleteAbort ──AddPartitions──▶ Ongoing;  ──InitProducerId──▶ Empty (epoch bumped)
// PrepareEpochFence and Dead are Kafka's transient states; here fencing writes
// PrepareAbort with the bumped epoch directly and expiry deletes the record.

export type TxnState = "Empty" | "Ongoing" | "PrepareCommit" | "PrepareAbort" | "CompleteCommit" | "CompleteAbort" | "Dead" | "PrepareEpochFence";

/** Every state name Kafka knows (ListTransactions filters are matched against these). */
export const TXN_STATES: readonly TxnState[] = ["Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"];

export const NO_PRODUCER_ID = -1;
export const NO_PRODUCER_EPOCH = -1;
const SHORT_MAX = 32767;

/** Kafka: an epoch at Short.MAX_VALUE − 1 or above cannot be bumped again; the producer id is rotated instead. */
export function isEpochExhausted(epoch: number): boolean {
  return epoch >= SHORT_MAX - 1;
}

export interface PendingOffset {
  topic: string;
  partition: number;
  /** Decimal string: offsets are int64. */
  offset: string;
  leaderEpoch: number;
  metadata: string;
}

/** The persisted record (JSON in the state log). */
export interface TransactionRecord {
  transactionalId: string;
  producerId: number;
  /** The producer id before the last rotation (−1 if none), so a retried InitProducerId across a rotation is recognised. */
  lastProducerId: number;
  producerEpoch: number;
  /** The epoch before the last client-requested bump (−1 if none or after fencing): a retry with it gets the current epoch. */
  lastProducerEpoch: number;
  timeoutMs: number;
  state: TxnState;
  /** Data partitions in the transaction, [topic, partition]. */
  partitions: Array<[string, number]>;
  /** Consumer groups added by AddOffsetsToTxn. */
  groups: string[];
  /** TxnOffsetCommit offsets per group, applied when (and only when) the transaction commits. */
  offsets: Record<string, PendingOffset[]>;
  /** When the first partition or group was added (−1 outside a transaction). */
  startMs: number;
  updateMs: number;
}

export type TransitionResult = { ok: true; record: TransactionRecord } | { ok: false; error: "PRODUCER_FENCED" };

export function newRecord(transactionalId: string, producerId: number, timeoutMs: number, now: number): TransactionRecord {
  return {
    transactionalId,
    producerId,
    lastProducerId: NO_PRODUCER_ID,
    producerEpoch: NO_PRODUCER_EPOCH,
    lastProducerEpoch: NO_PRODUCER_EPOCH,
    timeoutMs,
    state: "Empty",
    partitions: [],
    groups: [],
    offsets: {},
    startMs: -1,
    updateMs: now,
  };
}

function cleared(r: TransactionRecord, patch: Partial<TransactionRecord>): TransactionRecord {
  return { ...r, partitions: [], groups: [], offsets: {}, startMs: -1, ...patch };
}

/**
 * InitProducerId on an Empty/Complete transactional id: bump the epoch
 * (Kafka's prepareIncrementProducerEpoch). With an expected epoch (v3+):
 * equal to the current one → bump and remember it; equal to the last one → a
 * retry of a bump that succeeded, answer the current epoch; else fenced.
 */
export function incrementEpoch(r: TransactionRecord, timeoutMs: number, expectedEpoch: number | null, now: number): TransitionResult {
  let epoch: number;
  let last: number;
  if (expectedEpoch === null) {
    epoch = r.producerEpoch + 1;
    last = NO_PRODUCER_EPOCH;
  } else if (r.producerEpoch === NO_PRODUCER_EPOCH || expectedEpoch === r.producerEpoch) {
    epoch = r.producerEpoch + 1;
    last = r.producerEpoch;
  } else if (expectedEpoch === r.lastProducerEpoch) {
    epoch = r.producerEpoch;
    last = r.lastProducerEpoch;
  } else {
    return { ok: false, error: "PRODUCER_FENCED" };
  }
  return { ok: true, record: cleared(r, { state: "Empty", producerEpoch: epoch, lastProducerEpoch: last, timeoutMs, updateMs: now }) };
}

/** InitProducerId when the epoch is exhausted: a new producer id with epoch 0 (Kafka's prepareProducerIdRotation). */
export function rotateProducerId(r: TransactionRecord, newProducerId: number, timeoutMs: number, recordLastEpoch: boolean, now: number): TransactionRecord {
  return cleared(r, {
    state: "Empty",
    producerId: newProducerId,
    lastProducerId: r.producerId,
    producerEpoch: 0,
    lastProducerEpoch: recordLastEpoch ? r.producerEpoch : NO_PRODUCER_EPOCH,
    timeoutMs,
    updateMs: now,
  });
}

/**
 * Fencing (a new incarnation's InitProducerId, or the timeout) aborts an
 * ongoing transaction with the epoch bumped, so the markers carry an epoch the
 * old producer cannot write with any more. The last epoch is forgotten: the
 * fenced producer must not be able to resume with it.
 */
export function fenceAndAbort(r: TransactionRecord, now: number): TransactionRecord {
  const epoch = r.producerEpoch >= SHORT_MAX ? r.producerEpoch : r.producerEpoch + 1;
  return { ...r, state: "PrepareAbort", producerEpoch: epoch, lastProducerEpoch: NO_PRODUCER_EPOCH, updateMs: now };
}

/** AddPartitionsToTxn / AddOffsetsToTxn: the transaction starts (start time set) when the first one arrives. */
export function addToTransaction(r: TransactionRecord, partitions: ReadonlyArray<[string, number]>, groups: readonly string[], now: number): TransactionRecord {
  const starting = r.state !== "Ongoing";
  const parts = starting ? [] : [...r.partitions];
  const have = new Set(parts.map(([t, p]) => `${t}\u0000${p}`));
  for (const [t, p] of partitions) {
    const k = `${t}\u0000${p}`;
    if (!have.has(k)) {
      have.add(k);
      parts.push([t, p]);
    }
  }
  const gs = starting ? [] : [...r.groups];
  for (const g of groups) if (!gs.includes(g)) gs.push(g);
  return {
    ...r,
    state: "Ongoing",
    partitions: parts,
    groups: gs,
    offsets: starting ? {} : r.offsets,
    startMs: starting ? now : r.startMs,
    updateMs: now,
  };
}

export function containsAll(r: TransactionRecord, partitions: ReadonlyArray<[string, number]>, groups: readonly string[]): boolean {
  if (r.state !== "Ongoing") return false;
  const have = new Set(r.partitions.map(([t, p]) => `${t}\u0000${p}`));
  return partitions.every(([t, p]) => have.has(`${t}\u0000${p}`)) && groups.every((g) => r.groups.includes(g));
}

export function hasPartition(r: TransactionRecord, topic: string, partition: number): boolean {
  return r.partitions.some(([t, p]) => t === topic && p === partition);
}

/** TxnOffsetCommit: later commits for the same partition replace earlier ones within the transaction. */
export function withPendingOffsets(r: TransactionRecord, groupId: string, offsets: readonly PendingOffset[], now: number): TransactionRecord {
  const current = new Map((r.offsets[groupId] ?? []).map((o) => [`${o.topic}\u0000${o.partition}`, o]));
  for (const o of offsets) current.set(`${o.topic}\u0000${o.partition}`, o);
  return { ...r, offsets: { ...r.offsets, [groupId]: [...current.values()] }, updateMs: now };
}

export function prepareEnd(r: TransactionRecord, commit: boolean, now: number): TransactionRecord {
  return { ...r, state: commit ? "PrepareCommit" : "PrepareAbort", updateMs: now };
}

/** Every marker is written (and, for a commit, the offsets applied): the transaction is over. */
export function complete(r: TransactionRecord, now: number): TransactionRecord {
  return cleared(r, { state: r.state === "PrepareCommit" ? "CompleteCommit" : "CompleteAbort", startMs: r.startMs, updateMs: now });
}
