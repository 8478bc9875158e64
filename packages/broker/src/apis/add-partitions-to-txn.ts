// AddPartitionsToTxn (key 24), versions 0-3 (flexible from 3).
//
// Request (v0-3):  transactional_id STRING, producer_id INT64, producer_epoch INT16,
//                  topics [name STRING, partitions [INT32]]
// Response (v0-3): throttle_time_ms INT32,
//                  results_by_topic [name STRING, results_by_partition [partition_index INT32, partition_error_code INT16]]
//
// Versions 4-5 are Kafka's broker-to-broker form (batched transactions,
// verify_only, CLUSTER_ACTION); with one node there is no other broker to send
// them, so they are not advertised. The verification they exist for (KIP-890
// part 1) happens inside this broker: a transactional Produce is checked
// against the coordinator directly (see produce.ts).
//
// As KafkaApis: WRITE on the TRANSACTIONAL_ID first (else every partition gets
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED); then WRITE on each topic and the
// partition must exist; if any partition fails, nothing is added and the others
// get OPERATION_NOT_ATTEMPTED. PRODUCER_FENCED is INVALID_PRODUCER_EPOCH before v2.
import { ApiKey, type AddPartitionsToTxnRequest, type AddPartitionsToTxnResponse, type DeepPartial, ErrorCode } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { errorOf } from "./common.ts";
import { fencedErrorFor, mayWriteTransaction } from "./txn-common.ts";

type TopicOut = DeepPartial<AddPartitionsToTxnResponse["resultsByTopicV3AndBelow"][number]>;

export const addPartitionsToTxnApi = defineApi<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse>({
  apiKey: ApiKey.AddPartitionsToTxn,
  name: "AddPartitionsToTxn",
  advertised: { min: 0, max: 3 },
  implemented: { min: 0, max: 3 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const transactionalId = req.v3AndBelowTransactionalId;
    const topics = req.v3AndBelowTopics;
    const answer = (code: (topic: string, partition: number) => number): DeepPartial<AddPartitionsToTxnResponse> => ({
      throttleTimeMs: 0,
      resultsByTopicV3AndBelow: topics.map(
        (t): TopicOut => ({ name: t.name, resultsByPartition: t.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: code(t.name, p) })) }),
      ),
    });
    if (!mayWriteTransaction(ctx, transactionalId)) return answer(() => ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);

    const problems = new Map<string, number>();
    const toAdd: Array<[string, number]> = [];
    for (const t of topics) {
      const writable = b.authorizer.authorize(ctx.session, "WRITE", { type: "TOPIC", name: t.name });
      const meta = b.logs.topic(t.name);
      for (const p of t.partitions) {
        if (!writable) problems.set(`${t.name}\u0000${p}`, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
        else if (!meta || p < 0 || p >= meta.partitionCount) problems.set(`${t.name}\u0000${p}`, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        else toAdd.push([t.name, p]);
      }
    }
    if (problems.size > 0) return answer((t, p) => problems.get(`${t}\u0000${p}`) ?? ErrorCode.OPERATION_NOT_ATTEMPTED);
    let code: number;
    try {
      code = await b.transactions.addToTransaction(transactionalId, Number(req.v3AndBelowProducerId), req.v3AndBelowProducerEpoch, toAdd, []);
    } catch (err) {
      code = errorOf(ctx, err, `AddPartitionsToTxn for transactional id ${transactionalId}`).code;
    }
    const final = fencedErrorFor(code, ctx.apiVersion, 2);
    return answer(() => final);
  },
});
