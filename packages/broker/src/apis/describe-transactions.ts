// DescribeTransactions (key 65), version 0 (flexible). KIP-664.
//
// Request:  transactional_ids [STRING]
// Response: throttle_time_ms INT32, transaction_states [error_code INT16, transactional_id STRING,
//           transaction_state STRING, transaction_timeout_ms INT32, transaction_start_time_ms INT64,
//           producer_id INT64, producer_epoch INT16, topics [topic STRING, partitions [INT32]]]
//
// As KafkaApis: each id needs DESCRIBE on its TRANSACTIONAL_ID
// (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), an unknown id is
// TRANSACTIONAL_ID_NOT_FOUND, an empty one INVALID_REQUEST, and the partitions
// listed are only those of topics the caller may DESCRIBE. Partitions are listed
// while a transaction is ongoing or being completed.
import { ApiKey, type DeepPartial, type DescribeTransactionsRequest, type DescribeTransactionsResponse, ErrorCode } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";

type StateOut = DeepPartial<DescribeTransactionsResponse["transactionStates"][number]>;

export const describeTransactionsApi = defineApi<DescribeTransactionsRequest, DescribeTransactionsResponse>({
  apiKey: ApiKey.DescribeTransactions,
  name: "DescribeTransactions",
  advertised: { min: 0, max: 0 },
  implemented: { min: 0, max: 0 },
  handle(ctx, req) {
    const b = ctx.broker;
    const states = req.transactionalIds.map((id): StateOut => {
      const empty: StateOut = { transactionalId: id, transactionState: "", transactionTimeoutMs: 0, transactionStartTimeMs: -1n, producerId: -1n, producerEpoch: -1, topics: [] };
      if (!b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "TRANSACTIONAL_ID", name: id })) return { ...empty, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
      if (id === "") return { ...empty, errorCode: ErrorCode.INVALID_REQUEST };
      const d = b.transactions.describe(id);
      if (!d) return { ...empty, errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND };
      const byTopic = new Map<string, number[]>();
      for (const [topic, partition] of d.partitions) {
        if (!b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "TOPIC", name: topic })) continue;
        const list = byTopic.get(topic) ?? [];
        list.push(partition);
        byTopic.set(topic, list);
      }
      return {
        errorCode: ErrorCode.NONE,
        transactionalId: id,
        transactionState: d.state,
        transactionTimeoutMs: d.timeoutMs,
        transactionStartTimeMs: BigInt(d.startMs),
        producerId: BigInt(d.producerId),
        producerEpoch: d.producerEpoch,
        topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
      };
    });
    return { throttleTimeMs: 0, transactionStates: states };
  },
});
