// Incremental fetch sessions (KIP-227), as Kafka's FetchSession / FetchSessionCache:
//
//   session_id 0, epoch -1 (FINAL)   sessionless full fetch (what clients without KIP-227 send)
//   session_id 0, epoch 0 (INITIAL)  full fetch that asks for a new session; the answer carries
//                                     its id (or 0 when the cache keeps no new session)
//   session_id S, epoch 0            closes S and starts a new session from this full request
//   session_id S, epoch -1           closes S; this request is a sessionless full fetch
//   session_id S, epoch N > 0        incremental: the request lists only changed partitions
//                                     (added, or new fetch offset / max bytes), forgotten_topics_data
//                                     removes some; the fetch covers every partition of the session,
//                                     and the answer lists only partitions with news: records, an
//                                     error, or a changed high watermark, last stable offset or log
//                                     start offset. Unknown S → FETCH_SESSION_ID_NOT_FOUND, wrong N →
//                                     INVALID_FETCH_SESSION_EPOCH (top-level errors, no partitions).
//   Each successful request on S moves its expected epoch to N + 1 (wrapping after 2^31 − 1 to 1).
//
// The cache holds at most max.incremental.fetch.session.cache.slots sessions (Kafka's
// default 1000). When it is full a new session may take the slot of one that has been
// unused for more than 2 minutes (Kafka's evictionMs), else of the session with the
// fewest partitions if the new one has more; otherwise the new one is not cached and
// the client gets session id 0 (it keeps sending full fetches). Sessions live in the
// broker, not the connection, as in Kafka.
import { randomInt } from "node:crypto";

/** Kafka's FetchSessionCache evictionMs: sessions unused for this long may be evicted. */
export const FETCH_SESSION_EVICTION_MS = 120_000;
const FINAL_EPOCH = -1;
const INITIAL_EPOCH = 0;

export interface SessionPartition {
  topic: string;
  partition: number;
  fetchOffset: bigint;
  logStartOffset: bigint;
  partitionMaxBytes: number;
  currentLeaderEpoch: number;
  /** What the last answer said about this partition (−2 = never answered). */
  lastHighWatermark: bigint;
  lastStableOffset: bigint;
  lastLogStartOffset: bigint;
}

export interface FetchSession {
  readonly id: number;
  /** Expected epoch of the next request. */
  epoch: number;
  lastUsedMs: number;
  /** Keyed `topic\0partition`, in the order partitions were added (the order answers use). */
  readonly partitions: Map<string, SessionPartition>;
}

interface RequestPartition {
  partition: number;
  fetchOffset: bigint;
  logStartOffset?: bigint;
  partitionMaxBytes: number;
  currentLeaderEpoch?: number;
}

export interface SessionRequest {
  sessionId: number;
  sessionEpoch: number;
  topics: ReadonlyArray<{ topic: string; partitions: readonly RequestPartition[] }>;
  forgottenTopicsData: ReadonlyArray<{ topic: string; partitions: readonly number[] }>;
}

export type SessionDecision =
  /** Full fetch of the request's partitions; `session` (if any) is the new session to record the answer in. */
  | { kind: "full"; session: FetchSession | null }
  /** Incremental: fetch every partition of the session; answer only partitions with news. */
  | { kind: "incremental"; session: FetchSession }
  | { kind: "error"; errorCode: "FETCH_SESSION_ID_NOT_FOUND" | "INVALID_FETCH_SESSION_EPOCH" };

/** Map key of a session partition. */
export const sessionPartitionKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;
const key = sessionPartitionKey;

function nextEpoch(epoch: number): number {
  return epoch >= 0x7fffffff ? 1 : epoch + 1;
}

export class FetchSessionCache {
  private readonly sessions = new Map<number, FetchSession>();
  /** Sessions created, evicted and refused for lack of room (tests, logs). */
  readonly counters = { created: 0, evicted: 0, notCached: 0 };

  constructor(
    private readonly maxSlots: number,
    private readonly clock: () => number = Date.now,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Decides what a Fetch request with these session fields means, updating the cache (KIP-227). */
  begin(req: SessionRequest): SessionDecision {
    const now = this.clock();
    if (req.sessionEpoch === FINAL_EPOCH) {
      if (req.sessionId !== 0) this.sessions.delete(req.sessionId);
      return { kind: "full", session: null };
    }
    if (req.sessionEpoch === INITIAL_EPOCH) {
      if (req.sessionId !== 0) this.sessions.delete(req.sessionId);
      const partitions = new Map<string, SessionPartition>();
      for (const t of req.topics) for (const p of t.partitions) partitions.set(key(t.topic, p.partition), this.fresh(t.topic, p));
      return { kind: "full", session: this.tryCreate(partitions, now) };
    }
    const session = this.sessions.get(req.sessionId);
    if (!session) return { kind: "error", errorCode: "FETCH_SESSION_ID_NOT_FOUND" };
    if (session.epoch !== req.sessionEpoch) return { kind: "error", errorCode: "INVALID_FETCH_SESSION_EPOCH" };
    for (const t of req.topics) {
      for (const p of t.partitions) {
        const k = key(t.topic, p.partition);
        const existing = session.partitions.get(k);
        if (existing) {
          existing.fetchOffset = p.fetchOffset;
          existing.logStartOffset = p.logStartOffset ?? -1n;
          existing.partitionMaxBytes = p.partitionMaxBytes;
          existing.currentLeaderEpoch = p.currentLeaderEpoch ?? -1;
        } else {
          session.partitions.set(k, this.fresh(t.topic, p));
        }
      }
    }
    for (const f of req.forgottenTopicsData) for (const p of f.partitions) session.partitions.delete(key(f.topic, p));
    session.epoch = nextEpoch(session.epoch);
    session.lastUsedMs = now;
    return { kind: "incremental", session };
  }

  /** After a full answer on a new session: the epoch the client must send next. */
  static started(session: FetchSession): void {
    session.epoch = nextEpoch(INITIAL_EPOCH);
  }

  private fresh(topic: string, p: RequestPartition): SessionPartition {
    return {
      topic,
      partition: p.partition,
      fetchOffset: p.fetchOffset,
      logStartOffset: p.logStartOffset ?? -1n,
      partitionMaxBytes: p.partitionMaxBytes,
      currentLeaderEpoch: p.currentLeaderEpoch ?? -1,
      lastHighWatermark: -2n,
      lastStableOffset: -2n,
      lastLogStartOffset: -2n,
    };
  }

  private tryCreate(partitions: Map<string, SessionPartition>, now: number): FetchSession | null {
    if (this.maxSlots <= 0) {
      this.counters.notCached++;
      return null;
    }
    if (this.sessions.size >= this.maxSlots && !this.evictFor(partitions.size, now)) {
      this.counters.notCached++;
      return null;
    }
    let id: number;
    do id = randomInt(1, 0x7fffffff);
    while (this.sessions.has(id));
    const session: FetchSession = { id, epoch: INITIAL_EPOCH, lastUsedMs: now, partitions };
    this.sessions.set(id, session);
    this.counters.created++;
    return session;
  }

  /** Frees a slot for a session of `size` partitions by Kafka's rules; false when none may go. */
  private evictFor(size: number, now: number): boolean {
    let stale: FetchSession | null = null;
    let smallest: FetchSession | null = null;
    for (const s of this.sessions.values()) {
      if (now - s.lastUsedMs > FETCH_SESSION_EVICTION_MS && (!stale || s.lastUsedMs < stale.lastUsedMs)) stale = s;
      if (!smallest || s.partitions.size < smallest.partitions.size) smallest = s;
    }
    const victim = stale ?? (smallest && size > smallest.partitions.size ? smallest : null);
    if (!victim) return false;
    this.sessions.delete(victim.id);
    this.counters.evicted++;
    return true;
  }
}
