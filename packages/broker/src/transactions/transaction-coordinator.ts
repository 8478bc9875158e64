// The transaction coordinator (KIP-98): one per broker, coordinating every
// transactional id (FindCoordinator key type 1 answers with this node). It
// owns the transaction state log and decides each transaction's outcome;
// writing the markers into the data partitions and applying transactional
// offsets to the groups is delegated to `TransactionParticipants`.
//
// Rules followed (Kafka's TransactionCoordinator / TransactionMetadata):
//  - Every transition is written to the state log (fsynced) before it takes
//    effect or is answered. Requests for one transactional id are handled one
//    at a time, in arrival order (Kafka answers CONCURRENT_TRANSACTIONS while
//    a transition is in flight; waiting is the same outcome without the
//    client's retry round trip).
//  - EndTxn: PrepareCommit/PrepareAbort is logged first — from then on the
//    outcome is decided — then a marker is written to every partition (acks=all)
//    and, for a commit, the pending TxnOffsetCommit offsets are applied; only
//    then CompleteCommit/CompleteAbort is logged. On start, a Prepare* record
//    (the broker was killed in between) is completed the same way, and an
//    Ongoing one is aborted once its transaction.timeout.ms has passed.
//  - InitProducerId for an id with an ongoing transaction fences it: the epoch
//    is bumped and the transaction aborted with markers carrying the new epoch,
//    so the previous incarnation's writes, offsets and EndTxn are refused.
//    Kafka then answers CONCURRENT_TRANSACTIONS and bumps once more on the
//    client's retry; here the abort completes first and the second bump is
//    answered at once (same epochs, one round trip).
//  - Timeouts: transactions older than their timeout are aborted with an epoch
//    bump every transaction.abort.timed.out.transaction.cleanup.interval.ms.
//  - Expiry: ids idle (Empty/Complete*) for transactional.id.expiration.ms are
//    removed every transaction.remove.expired.transaction.cleanup.interval.ms.
import { join } from "node:path";
import { ErrorCode } from "@kappa/kafka-protocol";
import { CompactedJournal } from "../storage/compacted-journal.ts";
import {
  NO_PRODUCER_EPOCH,
  TXN_STATES,
  addToTransaction,
  complete,
  containsAll,
  fenceAndAbort,
  hasPartition,
  incrementEpoch,
  isEpochExhausted,
  newRecord,
  prepareEnd,
  rotateProducerId,
  withPendingOffsets,
  type PendingOffset,
  type TransactionRecord,
  type TxnState,
} from "./transaction-metadata.ts";

/** This node is the only coordinator there has ever been: the coordinator epoch never changes. */
export const COORDINATOR_EPOCH = 0;

export interface TransactionMarker {
  producerId: number;
  producerEpoch: number;
  commit: boolean;
  coordinatorEpoch: number;
}

/** What the coordinator needs from the rest of the broker. */
export interface TransactionParticipants {
  /** Appends the marker to the partition and waits until it is durable; "gone" when the partition no longer exists. */
  writeMarker(topic: string, partition: number, marker: TransactionMarker): Promise<"written" | "gone">;
  /** Applies a committed transaction's offsets to a group in one durable write. */
  commitOffsets(groupId: string, offsets: readonly PendingOffset[]): Promise<void>;
  /** A producer id never handed out before (shared with idempotent producers). */
  nextProducerId(): Promise<number>;
  log(level: "info" | "warn", message: string): void;
}

export interface TransactionCoordinatorConfig {
  /** transaction.max.timeout.ms */
  maxTimeoutMs: number;
  /** transaction.abort.timed.out.transaction.cleanup.interval.ms */
  abortTimedOutIntervalMs: number;
  /** transactional.id.expiration.ms */
  idExpirationMs: number;
  /** transaction.remove.expired.transaction.cleanup.interval.ms */
  removeExpiredIntervalMs: number;
  clock?: () => number;
}

export interface InitProducerIdResult {
  errorCode: number;
  producerId: number;
  producerEpoch: number;
}

export interface TransactionDescription {
  transactionalId: string;
  state: TxnState;
  timeoutMs: number;
  startMs: number;
  producerId: number;
  producerEpoch: number;
  partitions: Array<[string, number]>;
}

/** A transactional produce is accepted only for a partition added to the producer's ongoing transaction (KIP-890 part 1). */
export type ProduceVerification = "ok" | "INVALID_PRODUCER_ID_MAPPING" | "INVALID_PRODUCER_EPOCH" | "INVALID_TXN_STATE";

const RETRY_MARKERS_MS = 1000;

export class TransactionCoordinator {
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly timers: NodeJS.Timeout[] = [];
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly clock: () => number;
  /** Group id → transactional ids whose undecided transaction holds TxnOffsetCommit offsets for it (Kafka's pending transactional offsets). */
  private readonly pendingOffsetIds = new Map<string, Set<string>>();

  private constructor(
    private readonly journal: CompactedJournal<TransactionRecord>,
    private readonly participants: TransactionParticipants,
    private readonly config: TransactionCoordinatorConfig,
  ) {
    this.clock = config.clock ?? Date.now;
    for (const [, r] of journal.entries()) this.indexPendingOffsets(null, r);
  }

  /** Opens (and recovers) the state log at `<dataDir>/transactions/state.log`. Call `start()` once the logs can take markers. */
  static async open(dataDir: string, participants: TransactionParticipants, config: TransactionCoordinatorConfig): Promise<TransactionCoordinator> {
    const journal = await CompactedJournal.open<TransactionRecord>(join(dataDir, "transactions", "state.log"));
    if (journal.truncatedBytes > 0) participants.log("warn", `transaction state log: cut ${journal.truncatedBytes} torn byte(s) at its end (never acknowledged)`);
    return new TransactionCoordinator(journal, participants, config);
  }

  /** Completes decided transactions left by a crash, and starts the timeout and expiry timers. */
  start(): void {
    for (const [id, r] of this.journal.entries()) {
      if (r.state === "PrepareCommit" || r.state === "PrepareAbort") {
        this.participants.log("info", `transactional id ${id}: completing ${r.state === "PrepareCommit" ? "commit" : "abort"} of producer ${r.producerId} epoch ${r.producerEpoch} left by the previous run`);
        void this.serial(id, () => this.completeCurrent(id));
      }
    }
    const every = (ms: number, fn: () => void) => {
      const t = setInterval(fn, Math.max(1, Math.min(ms, 2 ** 31 - 1)));
      t.unref();
      this.timers.push(t);
    };
    // Both report their own failures; a timer only starts them.
    every(this.config.abortTimedOutIntervalMs, () => void this.abortTimedOut());
    every(this.config.removeExpiredIntervalMs, () => void this.removeExpired());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await Promise.allSettled([...this.queues.values()]);
    await this.journal.close();
  }

  /** Runs `fn` after every earlier task of the same transactional id. */
  private serial<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(id) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(id, tail);
    void tail.then(() => {
      if (this.queues.get(id) === tail) this.queues.delete(id);
    });
    return run;
  }

  private async persist(r: TransactionRecord): Promise<void> {
    const before = this.journal.get(r.transactionalId) ?? null;
    await this.journal.put(r.transactionalId, r);
    this.indexPendingOffsets(before, r);
  }

  private indexPendingOffsets(before: TransactionRecord | null, after: TransactionRecord): void {
    const id = after.transactionalId;
    for (const group of Object.keys(before?.offsets ?? {})) {
      const ids = this.pendingOffsetIds.get(group);
      ids?.delete(id);
      if (ids?.size === 0) this.pendingOffsetIds.delete(group);
    }
    if (after.state !== "Ongoing" && after.state !== "PrepareCommit" && after.state !== "PrepareAbort") return;
    for (const group of Object.keys(after.offsets)) {
      let ids = this.pendingOffsetIds.get(group);
      if (!ids) this.pendingOffsetIds.set(group, (ids = new Set()));
      ids.add(id);
    }
  }

  /**
   * True while a transaction that is not yet complete holds a TxnOffsetCommit
   * offset of `groupId` for the partition — from the TxnOffsetCommit until its
   * commit has been applied or its abort logged. OffsetFetch with
   * require_stable (KIP-447) answers UNSTABLE_OFFSET_COMMIT for it, so that an
   * exactly-once consumer never starts from the offset before a commit the
   * coordinator is still completing (e.g. after a restart).
   */
  hasPendingOffsets(groupId: string, topic: string, partition: number): boolean {
    for (const id of this.pendingOffsetIds.get(groupId) ?? []) {
      if (this.journal.get(id)?.offsets[groupId]?.some((o) => o.topic === topic && o.partition === partition)) return true;
    }
    return false;
  }

  // ------------------------------------------------------------ InitProducerId

  initProducerId(transactionalId: string, timeoutMs: number, expected: { producerId: number; producerEpoch: number } | null): Promise<InitProducerIdResult> {
    const fail = (errorCode: number): InitProducerIdResult => ({ errorCode, producerId: -1, producerEpoch: -1 });
    if (transactionalId === "") return Promise.resolve(fail(ErrorCode.INVALID_REQUEST));
    if (timeoutMs <= 0 || timeoutMs > this.config.maxTimeoutMs) return Promise.resolve(fail(ErrorCode.INVALID_TRANSACTION_TIMEOUT));
    return this.serial(transactionalId, async () => {
      let r = this.journal.get(transactionalId) ?? newRecord(transactionalId, await this.participants.nextProducerId(), timeoutMs, this.clock());
      // Kafka's isValidProducerId: a new id, the current producer id, or the previous one with an exhausted epoch (a retry across a rotation).
      if (expected && !(r.producerEpoch === NO_PRODUCER_EPOCH || expected.producerId === r.producerId || (expected.producerId === r.lastProducerId && isEpochExhausted(expected.producerEpoch)))) {
        return fail(ErrorCode.PRODUCER_FENCED);
      }
      for (;;) {
        if (r.state === "PrepareCommit" || r.state === "PrepareAbort") {
          if (!(await this.completeCurrent(transactionalId))) return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
        } else if (r.state === "Ongoing") {
          const fenced = fenceAndAbort(r, this.clock());
          await this.persist(fenced);
          this.participants.log("info", `transactional id ${transactionalId}: new producer fences epoch ${r.producerEpoch}; aborting its ongoing transaction with epoch ${fenced.producerEpoch}`);
          if (!(await this.completeCurrent(transactionalId))) return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
        } else {
          let next: TransactionRecord;
          const now = this.clock();
          if (isEpochExhausted(r.producerEpoch) && (!expected || expected.producerEpoch === r.producerEpoch)) {
            next = rotateProducerId(r, await this.participants.nextProducerId(), timeoutMs, expected !== null, now);
          } else {
            const bumped = incrementEpoch(r, timeoutMs, expected ? expected.producerEpoch : null, now);
            if (!bumped.ok) return fail(ErrorCode.PRODUCER_FENCED);
            next = bumped.record;
          }
          await this.persist(next);
          return { errorCode: ErrorCode.NONE, producerId: next.producerId, producerEpoch: next.producerEpoch };
        }
        r = this.journal.get(transactionalId)!;
      }
    });
  }

  // -------------------------------------------------- AddPartitions / AddOffsets

  /** AddPartitionsToTxn (partitions) and AddOffsetsToTxn (a group). */
  addToTransaction(transactionalId: string, producerId: number, producerEpoch: number, partitions: ReadonlyArray<[string, number]>, groups: readonly string[]): Promise<number> {
    if (transactionalId === "") return Promise.resolve(ErrorCode.INVALID_REQUEST);
    return this.serial(transactionalId, async () => {
      let r = this.journal.get(transactionalId);
      if (!r || r.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
      if (r.producerEpoch !== producerEpoch) return ErrorCode.PRODUCER_FENCED;
      if (r.state === "PrepareCommit" || r.state === "PrepareAbort") {
        if (!(await this.completeCurrent(transactionalId))) return ErrorCode.CONCURRENT_TRANSACTIONS;
        r = this.journal.get(transactionalId)!;
      }
      if (containsAll(r, partitions, groups)) return ErrorCode.NONE;
      await this.persist(addToTransaction(r, partitions, groups, this.clock()));
      return ErrorCode.NONE;
    });
  }

  // ------------------------------------------------------------ TxnOffsetCommit

  /**
   * Records offsets to be committed with the transaction. They stay invisible
   * to OffsetFetch until the transaction commits and are dropped if it aborts.
   * The group must have been added with AddOffsetsToTxn (KIP-890 part 1
   * verification of transactional offset commits: INVALID_TXN_STATE otherwise).
   */
  txnOffsetCommit(transactionalId: string, producerId: number, producerEpoch: number, groupId: string, offsets: readonly PendingOffset[]): Promise<number> {
    return this.serial(transactionalId, async () => {
      const r = this.journal.get(transactionalId);
      if (!r || r.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
      if (r.producerEpoch !== producerEpoch) return ErrorCode.INVALID_PRODUCER_EPOCH;
      if (r.state !== "Ongoing" || !r.groups.includes(groupId)) return ErrorCode.INVALID_TXN_STATE;
      if (offsets.length > 0) await this.persist(withPendingOffsets(r, groupId, offsets, this.clock()));
      return ErrorCode.NONE;
    });
  }

  // ---------------------------------------------------------------------- EndTxn

  endTxn(transactionalId: string, producerId: number, producerEpoch: number, commit: boolean): Promise<number> {
    if (transactionalId === "") return Promise.resolve(ErrorCode.INVALID_REQUEST);
    return this.serial(transactionalId, async () => {
      const r = this.journal.get(transactionalId);
      if (!r || r.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
      if (r.producerEpoch !== producerEpoch) return ErrorCode.PRODUCER_FENCED;
      switch (r.state) {
        case "Ongoing":
          await this.persist(prepareEnd(r, commit, this.clock()));
          // Decided: a marker failure now only delays completion (retried), the client is told it worked.
          await this.completeCurrent(transactionalId);
          return ErrorCode.NONE;
        case "CompleteCommit":
          return commit ? ErrorCode.NONE : ErrorCode.INVALID_TXN_STATE;
        case "CompleteAbort":
          return commit ? ErrorCode.INVALID_TXN_STATE : ErrorCode.NONE;
        case "PrepareCommit":
        case "PrepareAbort":
          if ((r.state === "PrepareCommit") !== commit) return ErrorCode.INVALID_TXN_STATE;
          return (await this.completeCurrent(transactionalId)) ? ErrorCode.NONE : ErrorCode.CONCURRENT_TRANSACTIONS;
        default:
          return ErrorCode.INVALID_TXN_STATE;
      }
    });
  }

  /**
   * Writes the markers of the Prepare* transaction of `id` and logs its
   * completion. False (and a retry scheduled) if a participant failed.
   * Must run inside `serial(id)`.
   */
  private async completeCurrent(id: string): Promise<boolean> {
    const r = this.journal.get(id);
    if (!r || (r.state !== "PrepareCommit" && r.state !== "PrepareAbort")) return true;
    const commit = r.state === "PrepareCommit";
    const marker: TransactionMarker = { producerId: r.producerId, producerEpoch: r.producerEpoch, commit, coordinatorEpoch: COORDINATOR_EPOCH };
    try {
      const results = await Promise.all(r.partitions.map(([t, p]) => this.participants.writeMarker(t, p, marker).then((res) => ({ t, p, res }))));
      for (const g of results) {
        if (g.res === "gone") this.participants.log("info", `transactional id ${id}: ${g.t}-${g.p} no longer exists; its marker is skipped`);
      }
      if (commit) for (const [group, offsets] of Object.entries(r.offsets)) await this.participants.commitOffsets(group, offsets);
      await this.persist(complete(r, this.clock()));
      return true;
    } catch (err) {
      this.participants.log("warn", `transactional id ${id}: writing ${commit ? "commit" : "abort"} markers failed (retrying): ${err instanceof Error ? err.message : String(err)}`);
      this.scheduleRetry();
      return false;
    }
  }

  private scheduleRetry(): void {
    if (this.retryTimer || this.stopped) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      for (const [id, r] of this.journal.entries()) {
        if (r.state === "PrepareCommit" || r.state === "PrepareAbort") void this.serial(id, () => this.completeCurrent(id));
      }
    }, RETRY_MARKERS_MS);
    this.retryTimer.unref();
  }

  // ------------------------------------------------------------ timers

  /** Aborts (with an epoch bump) every transaction that has run longer than its timeout. Returns when done. */
  async abortTimedOut(): Promise<void> {
    if (this.stopped) return;
    const now = this.clock();
    const due: string[] = [];
    for (const [id, r] of this.journal.entries()) if (r.state === "Ongoing" && r.startMs + r.timeoutMs < now) due.push(id);
    await Promise.all(
      due.map((id) =>
        this.serial(id, async () => {
          const r = this.journal.get(id);
          if (!r || r.state !== "Ongoing" || r.startMs + r.timeoutMs >= this.clock()) return;
          const fenced = fenceAndAbort(r, this.clock());
          await this.persist(fenced);
          this.participants.log("info", `transactional id ${id}: transaction of producer ${r.producerId} epoch ${r.producerEpoch} timed out after ${r.timeoutMs} ms; aborted with epoch ${fenced.producerEpoch}`);
          await this.completeCurrent(id);
        }).catch((err: unknown) => this.participants.log("warn", `aborting timed-out transaction ${id} failed: ${err instanceof Error ? err.message : String(err)}`)),
      ),
    );
  }

  /** Removes transactional ids that have been idle for transactional.id.expiration.ms. */
  async removeExpired(): Promise<void> {
    if (this.stopped) return;
    const now = this.clock();
    const idle = (r: TransactionRecord) => (r.state === "Empty" || r.state === "CompleteCommit" || r.state === "CompleteAbort") && r.updateMs + this.config.idExpirationMs < now;
    const due = [...this.journal.entries()].filter(([, r]) => idle(r)).map(([id]) => id);
    await Promise.all(
      due.map((id) =>
        this.serial(id, async () => {
          const r = this.journal.get(id);
          if (r && idle(r)) {
            await this.journal.put(id, null);
            this.participants.log("info", `transactional id ${id} expired after ${this.config.idExpirationMs} ms without use`);
          }
        }).catch(() => undefined),
      ),
    );
  }

  // ------------------------------------------------------------ produce side

  /** Synchronous so that the caller can verify and enqueue its append with nothing in between. */
  verifyProduce(transactionalId: string, producerId: number, producerEpoch: number, topic: string, partition: number): ProduceVerification {
    const r = this.journal.get(transactionalId);
    if (!r || r.producerId !== producerId) return "INVALID_PRODUCER_ID_MAPPING";
    if (r.producerEpoch !== producerEpoch) return "INVALID_PRODUCER_EPOCH";
    if (r.state !== "Ongoing" || !hasPartition(r, topic, partition)) return "INVALID_TXN_STATE";
    return "ok";
  }

  // ------------------------------------------------------------ admin

  describe(transactionalId: string): TransactionDescription | null {
    const r = this.journal.get(transactionalId);
    if (!r) return null;
    return {
      transactionalId,
      state: r.state,
      timeoutMs: r.timeoutMs,
      startMs: r.startMs,
      producerId: r.producerId,
      producerEpoch: r.producerEpoch,
      partitions: r.state === "Ongoing" || r.state === "PrepareCommit" || r.state === "PrepareAbort" ? r.partitions.map(([t, p]) => [t, p]) : [],
    };
  }

  /** ListTransactions: unknown state names are reported back instead of matching nothing silently. */
  list(states: readonly string[], producerIds: readonly number[], minDurationMs: number): { unknownStates: string[]; transactions: TransactionDescription[] } {
    const unknownStates = states.filter((s) => !(TXN_STATES as readonly string[]).includes(s));
    const wantStates = new Set(states);
    const wantPids = new Set(producerIds);
    const now = this.clock();
    const out: TransactionDescription[] = [];
    for (const [id] of this.journal.entries()) {
      const d = this.describe(id)!;
      // As Kafka: a non-empty state filter matches only known states (all-unknown filters match nothing).
      if (wantStates.size > 0 && !wantStates.has(d.state)) continue;
      if (wantPids.size > 0 && !wantPids.has(d.producerId)) continue;
      // KIP-994's duration filter, as Kafka computes it: now − transaction start > the duration.
      if (minDurationMs >= 0 && now - d.startMs <= minDurationMs) continue;
      out.push(d);
    }
    return { unknownStates, transactions: out };
  }
}
