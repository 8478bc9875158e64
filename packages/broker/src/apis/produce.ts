// Produce (key 0), advertised and served 3-8 (message format v2 only;
// as Apache Kafka 4.0 after KIP-896, the versions that carry message format v0/v1
// are not advertised).
//
// Request:  transactional_id NULLABLE_STRING (v3+), acks INT16, timeout_ms INT32,
//           topic_data [name STRING, partition_data [index INT32, records RECORDS]]
// Response: responses [name STRING, partition_responses [index INT32, error_code INT16, base_offset INT64,
//           log_append_time_ms INT64 (v2+), log_start_offset INT64 (v5+),
//           record_errors [batch_index INT32, batch_index_error_message NULLABLE_STRING] (v8+),
//           error_message NULLABLE_STRING (v8+)]], throttle_time_ms INT32 (v1+)
//
// acks=0 gets no response at all (BROKER-SPEC §2); acks=-1 is acknowledged only
// once the batch is fsync'd (log.flush.on.acks.all, default on); acks=1 once it is
// written to the page cache. Offsets are assigned by the storage engine.
//
// Order: for topics that already exist, every partition's append is started
// synchronously, before the handler's first await, so pipelined produce requests
// on one connection append in arrival order.
//
// Client quotas: the request's size counts against the client's
// producer_byte_rate (src/quotas/manager.ts); over quota, the response carries
// the throttle time and the connection is muted for it (KIP-219).
//
// Transactions (KIP-98): a request carrying transactional batches needs WRITE on
// its transactional_id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED for the whole
// request, as KafkaApis answers). With transaction.partition.verification.enable
// (KIP-890 part 1) each transactional batch is checked against the coordinator
// — the partition must be in the producer's ongoing transaction at its current
// epoch — in the same synchronous step that enqueues the append, so no marker
// can slip between the check and the write.
import { ApiKey, type DeepPartial, ErrorCode, type ProduceRequest, type ProduceResponse } from "@kappa/kafka-protocol";
import type { AppendResult, TopicMeta } from "../logs.ts";
import { quotaUser } from "../quotas/manager.ts";
import { defineApi, type RequestContext } from "../registry.ts";
import { errorOf, logRefusal } from "./common.ts";

const ATTRIBUTES = 21;
const PRODUCER_ID = 43;
const PRODUCER_EPOCH = 51;
const TRANSACTIONAL = 0x10;
const BATCH_HEADER = 61;

function isTransactional(records: Buffer | null | undefined): records is Buffer {
  return !!records && records.length >= BATCH_HEADER && (records.readInt16BE(ATTRIBUTES) & TRANSACTIONAL) !== 0;
}

const VERIFICATION_MESSAGES: Record<string, string> = {
  INVALID_TXN_STATE: "Partition was not added to the transaction",
  INVALID_PRODUCER_EPOCH: "Producer's epoch is not the transaction's current epoch (fenced)",
  INVALID_PRODUCER_ID_MAPPING: "The producer id is not the one of this transactional id",
};

type PartitionOut = DeepPartial<ProduceResponse["responses"][number]["partitionResponses"][number]>;
type TopicIn = ProduceRequest["topicData"][number];

function partitionError(index: number, errorCode: number, errorMessage: string | null = null): PartitionOut {
  return { index, errorCode, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n, recordErrors: [], errorMessage };
}

function appendTopic(ctx: RequestContext, topic: TopicMeta, data: TopicIn, requireDurable: boolean, transactionalId: string | null): Array<Promise<PartitionOut>> {
  const b = ctx.broker;
  return data.partitionData.map(async (p): Promise<PartitionOut> => {
    const view = b.logs.partition(topic.name, p.index);
    if (!view) return partitionError(p.index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    if (!p.records || p.records.length === 0) return partitionError(p.index, ErrorCode.INVALID_RECORD, "Produce request carries no records");
    if (transactionalId !== null && isTransactional(p.records) && b.config["transaction.partition.verification.enable"]) {
      const verdict = b.transactions.verifyProduce(transactionalId, Number(p.records.readBigInt64BE(PRODUCER_ID)), p.records.readInt16BE(PRODUCER_EPOCH), topic.name, p.index);
      if (verdict !== "ok") return partitionError(p.index, ErrorCode[verdict], VERIFICATION_MESSAGES[verdict] ?? null);
    }
    let result: AppendResult;
    try {
      result = await view.append(p.records, { requireDurable });
    } catch (err) {
      const e = errorOf(ctx, err, `appending to ${topic.name}-${p.index}`);
      logRefusal(ctx, `Produce to ${topic.name}-${p.index}`, e.code, e.message);
      return partitionError(p.index, e.code, e.message);
    }
    b.appendWaiters.notify(topic.name, p.index);
    b.metrics.bytesIn(topic.name, p.records);
    return {
      index: p.index,
      errorCode: ErrorCode.NONE,
      baseOffset: result.baseOffset,
      logAppendTimeMs: result.logAppendTimeMs,
      logStartOffset: result.logStartOffset,
      recordErrors: [],
      errorMessage: null,
    };
  });
}

export const produceApi = defineApi<ProduceRequest, ProduceResponse>({
  apiKey: ApiKey.Produce,
  name: "Produce",
  advertised: { min: 3, max: 8 },
  implemented: { min: 3, max: 8 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const acks = req.acks;
    const requireDurable = acks === -1 && b.config["log.flush.on.acks.all"];
    const transactionalId = req.transactionalId ?? null;
    const pending: Array<{ name: string; parts: Promise<PartitionOut[]> }> = [];
    const transactional = req.topicData.some((t) => t.partitionData.some((p) => isTransactional(p.records)));
    const txnAuthorized = !transactional || (transactionalId !== null && b.authorizer.authorize(ctx.session, "WRITE", { type: "TRANSACTIONAL_ID", name: transactionalId }));
    for (const t of req.topicData) {
      const reject = (code: number, message: string | null = null): void => {
        pending.push({ name: t.name, parts: Promise.resolve(t.partitionData.map((p) => partitionError(p.index, code, message))) });
      };
      if (acks !== 0 && acks !== 1 && acks !== -1) {
        reject(ErrorCode.INVALID_REQUIRED_ACKS);
        continue;
      }
      if (!txnAuthorized) {
        reject(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        continue;
      }
      if (!b.authorizer.authorize(ctx.session, "WRITE", { type: "TOPIC", name: t.name })) {
        reject(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
        continue;
      }
      const existing = b.logs.topic(t.name);
      if (!existing) {
        // Kafka 4.x never creates a topic on Produce, whatever auto.create.topics.enable and CREATE say (only
        // Metadata does): the partition is unknown, which clients treat as retriable after a metadata refresh.
        reject(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        continue;
      }
      pending.push({ name: t.name, parts: Promise.all(appendTopic(ctx, existing, t, requireDurable, transactionalId)) });
    }
    const responses: DeepPartial<ProduceResponse["responses"][number]>[] = [];
    for (const p of pending) responses.push({ name: p.name, partitionResponses: await p.parts });
    // Kafka's produce quota counts the whole request's size, once it is handled (also for acks=0,
    // whose connection is muted without an answer).
    const throttleTimeMs = b.quotas.recordAndGetThrottleTimeMs("produce", quotaUser(ctx.session.principal), ctx.session.clientId, ctx.requestBytes);
    ctx.throttleMs = throttleTimeMs;
    if (acks === 0) return null;
    return { responses, throttleTimeMs };
  },
});
