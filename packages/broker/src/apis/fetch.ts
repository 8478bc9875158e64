// Fetch (key 1), advertised and served 4-11 (message format v2 only;
// as Apache Kafka 4.0 after KIP-896, the versions that carry message format v0/v1
// are not advertised).
//
// Request:  replica_id INT32, max_wait_ms INT32, min_bytes INT32, max_bytes INT32 (v3+),
//           isolation_level INT8 (v4+), session_id INT32 (v7+), session_epoch INT32 (v7+),
//           topics [topic STRING, partitions [partition INT32, current_leader_epoch INT32 (v9+),
//                   fetch_offset INT64, log_start_offset INT64 (v5+), partition_max_bytes INT32]],
//           forgotten_topics_data [topic STRING, partitions [INT32]] (v7+), rack_id STRING (v11+)
// Response: throttle_time_ms INT32, error_code INT16 (v7+), session_id INT32 (v7+),
//           responses [topic STRING, partitions [partition_index INT32, error_code INT16, high_watermark INT64,
//                      last_stable_offset INT64, log_start_offset INT64 (v5+),
//                      aborted_transactions [producer_id INT64, first_offset INT64] (nullable),
//                      preferred_read_replica INT32 (v11+), records RECORDS]]
//
// Semantics (BROKER-SPEC §3, §7.5):
//  - Whole batches only, starting with the batch that contains fetch_offset; the
//    first batch of the response is sent even if larger than the limits, so a
//    consumer is never stuck re-fetching a partial batch (kafkajs#1072).
//  - Long poll: while fewer than min_bytes are available the request is parked and
//    woken by appends to any partition it asked for, until max_wait_ms.
//  - READ_COMMITTED reads up to the last stable offset (the first offset of an
//    open transaction, else the high watermark) and lists the aborted
//    transactions overlapping the returned batches (producer id, first offset,
//    by first offset), so the client drops their records; markers are returned
//    as the control batches they are. READ_UNCOMMITTED reads to the high
//    watermark with aborted_transactions null.
//  - Fetch sessions (KIP-227, v7+): full and incremental fetches with session ids
//    and epochs, kept in the broker's FetchSessionCache (src/fetch-sessions.ts,
//    max.incremental.fetch.session.cache.slots). An incremental fetch reads every
//    partition of its session and answers only those with news.
import { ApiKey, type DeepPartial, ErrorCode, type FetchRequest, type FetchResponse } from "@kappa/kafka-protocol";
import { FetchSessionCache, sessionPartitionKey, type FetchSession, type SessionPartition } from "../fetch-sessions.ts";
import { quotaUser } from "../quotas/manager.ts";
import { defineApi, type RequestContext } from "../registry.ts";
import { errorOf } from "./common.ts";

type PartitionOut = DeepPartial<FetchResponse["responses"][number]["partitions"][number]>;
type TopicOut = DeepPartial<FetchResponse["responses"][number]>;

const EMPTY = Buffer.alloc(0);
const READ_COMMITTED = 1;

/** The offset after the last batch of whole batches (their next offset). */
function endOffsetOf(records: Buffer): bigint {
  let pos = 0;
  let end = 0n;
  while (pos + 61 <= records.length) {
    end = records.readBigInt64BE(pos) + BigInt(records.readInt32BE(pos + 23)) + 1n;
    pos += records.readInt32BE(pos + 8) + 12;
  }
  return end;
}

async function readOnce(ctx: RequestContext, req: FetchRequest): Promise<{ responses: TopicOut[]; bytes: number; hasError: boolean }> {
  const b = ctx.broker;
  const readCommitted = (req.isolationLevel ?? 0) === READ_COMMITTED;
  // Kafka caps a fetch at what the client's consumer_byte_rate allows in one quota window.
  const quotaCap = b.quotas.maxValueInQuotaWindow("fetch", quotaUser(ctx.session.principal), ctx.session.clientId);
  let budget = Math.min(req.maxBytes ?? 0x7fffffff, b.config["fetch.max.bytes"], Math.max(1, Math.floor(quotaCap)));
  let bytes = 0;
  let hasError = false;
  const responses: TopicOut[] = [];
  for (const t of req.topics) {
    const topicName = t.topic ?? "";
    const partitions: PartitionOut[] = [];
    const readable = b.authorizer.authorize(ctx.session, "READ", { type: "TOPIC", name: topicName });
    for (const p of t.partitions) {
      const out: PartitionOut = {
        partitionIndex: p.partition,
        errorCode: ErrorCode.NONE,
        highWatermark: -1n,
        lastStableOffset: -1n,
        logStartOffset: -1n,
        abortedTransactions: readCommitted ? [] : null,
        preferredReadReplica: -1,
        records: EMPTY,
      };
      partitions.push(out);
      if (!readable) {
        out.errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
        hasError = true;
        continue;
      }
      const view = b.logs.partition(topicName, p.partition);
      if (!view) {
        out.errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        hasError = true;
        continue;
      }
      const hw = view.highWatermark();
      const lso = view.lastStableOffset();
      const start = view.logStartOffset();
      out.highWatermark = hw;
      out.lastStableOffset = lso;
      out.logStartOffset = start;
      if (p.fetchOffset < start || p.fetchOffset > hw) {
        out.errorCode = ErrorCode.OFFSET_OUT_OF_RANGE;
        hasError = true;
        continue;
      }
      const upTo = readCommitted ? lso : hw;
      if (p.fetchOffset >= upTo) continue;
      // Once the response holds data, a partition only gets what still fits; the
      // first data in a response may exceed the limits by one batch (Kafka's minOneMessage).
      if (bytes > 0 && budget <= 0) continue;
      const limit = Math.max(0, Math.min(p.partitionMaxBytes, budget));
      try {
        const { records } = await view.read(p.fetchOffset, bytes > 0 ? limit : Math.max(1, limit), upTo);
        out.records = records;
        if (readCommitted && records.length > 0) out.abortedTransactions = await view.abortedTransactions(p.fetchOffset, endOffsetOf(records));
        bytes += records.length;
        budget -= records.length;
        ctx.broker.metrics.bytesOut(topicName, records.length);
      } catch (err) {
        const e = errorOf(ctx, err, `reading ${topicName}-${p.partition} at ${p.fetchOffset}`);
        out.errorCode = e.code;
        hasError = true;
      }
    }
    responses.push({ topic: topicName, partitions });
  }
  return { responses, bytes, hasError };
}

export const fetchApi = defineApi<FetchRequest, FetchResponse>({
  apiKey: ApiKey.Fetch,
  name: "Fetch",
  advertised: { min: 4, max: 11 },
  implemented: { min: 4, max: 11 },
  async handle(ctx, request) {
    const b = ctx.broker;
    let req = request;
    let session: FetchSession | null = null;
    let incremental = false;
    if (ctx.apiVersion >= 7) {
      const decision = b.fetchSessions.begin({ sessionId: req.sessionId, sessionEpoch: req.sessionEpoch, topics: req.topics, forgottenTopicsData: req.forgottenTopicsData });
      if (decision.kind === "error") return { throttleTimeMs: 0, errorCode: ErrorCode[decision.errorCode], sessionId: 0, responses: [] };
      session = decision.session;
      incremental = decision.kind === "incremental";
      if (incremental && session) req = { ...req, topics: sessionTopics(session) };
    }
    const answer = (responses: TopicOut[], bytes: number): DeepPartial<FetchResponse> => {
      // Client quotas (Kafka's KafkaApis.handleFetchRequest): the records' bytes count against
      // consumer_byte_rate; over quota, they are taken back and the answer is empty, with the
      // throttle time (and no session for a full fetch), and the connection is muted for it.
      const user = quotaUser(ctx.session.principal);
      const throttleTimeMs = b.quotas.recordAndGetThrottleTimeMs("fetch", user, ctx.session.clientId, bytes);
      if (throttleTimeMs > 0) {
        b.quotas.unrecord("fetch", user, ctx.session.clientId, bytes);
        ctx.throttleMs = throttleTimeMs;
        return { throttleTimeMs, errorCode: ErrorCode.NONE, sessionId: session && incremental ? session.id : 0, responses: [] };
      }
      if (!session) return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses };
      if (!incremental) FetchSessionCache.started(session);
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: session.id, responses: newsOnly(session, responses, incremental) };
    };
    const deadline = Date.now() + Math.max(0, req.maxWaitMs);
    const minBytes = Math.max(0, req.minBytes);
    for (;;) {
      const result = await readOnce(ctx, req);
      const remaining = deadline - Date.now();
      if (result.bytes >= minBytes || result.hasError || remaining <= 0 || ctx.signal.aborted) {
        return answer(result.responses, result.bytes);
      }
      // Park until an append to one of our partitions, the deadline, or the connection closing.
      await new Promise<void>((resolve) => {
        const removers: Array<() => void> = [];
        const finish = (): void => {
          clearTimeout(timer);
          for (const r of removers) r();
          ctx.signal.removeEventListener("abort", finish);
          resolve();
        };
        const timer = setTimeout(finish, remaining);
        for (const t of req.topics) for (const p of t.partitions) removers.push(b.appendWaiters.add(t.topic ?? "", p.partition, finish));
        ctx.signal.addEventListener("abort", finish);
      });
    }
  },
});

/** The fetch an incremental request stands for: every partition of its session, grouped by topic in session order. */
function sessionTopics(session: FetchSession): FetchRequest["topics"] {
  const byTopic = new Map<string, FetchRequest["topics"][number]>();
  for (const p of session.partitions.values()) {
    let t = byTopic.get(p.topic);
    if (!t) byTopic.set(p.topic, (t = { topic: p.topic, topicId: "AAAAAAAAAAAAAAAAAAAAAA", partitions: [] }));
    t.partitions.push({
      partition: p.partition,
      currentLeaderEpoch: p.currentLeaderEpoch,
      fetchOffset: p.fetchOffset,
      lastFetchedEpoch: -1,
      logStartOffset: p.logStartOffset,
      partitionMaxBytes: p.partitionMaxBytes,
      replicaDirectoryId: "AAAAAAAAAAAAAAAAAAAAAA",
    });
  }
  return [...byTopic.values()];
}

/**
 * Records what the answer tells the client about each session partition, and for
 * an incremental answer keeps only partitions with news (records, an error, or a
 * changed high watermark / last stable offset / log start offset), as KIP-227 asks.
 */
function newsOnly(session: FetchSession, responses: TopicOut[], incremental: boolean): TopicOut[] {
  const out: TopicOut[] = [];
  for (const t of responses) {
    const kept: PartitionOut[] = [];
    for (const p of t.partitions ?? []) {
      const s: SessionPartition | undefined = session.partitions.get(sessionPartitionKey(t.topic ?? "", p.partitionIndex ?? -1));
      const records = p.records as Buffer | undefined;
      const changed =
        !s ||
        (records?.length ?? 0) > 0 ||
        (p.errorCode ?? 0) !== ErrorCode.NONE ||
        p.highWatermark !== s.lastHighWatermark ||
        p.lastStableOffset !== s.lastStableOffset ||
        p.logStartOffset !== s.lastLogStartOffset;
      if (s) {
        s.lastHighWatermark = p.highWatermark ?? -1n;
        s.lastStableOffset = p.lastStableOffset ?? -1n;
        s.lastLogStartOffset = p.logStartOffset ?? -1n;
      }
      if (!incremental || changed) kept.push(p);
    }
    if (!incremental || kept.length > 0) out.push({ ...t, partitions: kept });
  }
  return out;
}
