// DescribeProducers (key 61), version 0 (flexible). KIP-664.
//
// Request:  topics [name STRING, partition_indexes [INT32]]
// Response: throttle_time_ms INT32, topics [name STRING, partitions [partition_index INT32, error_code INT16,
//           error_message NULLABLE_STRING, active_producers [producer_id INT64, producer_epoch INT32,
//           last_sequence INT32, last_timestamp INT64, coordinator_epoch INT32, current_txn_start_offset INT64]]]
//
// The producer state of each partition (the same state that checks idempotent
// sequences and tracks open transactions): as KafkaApis, READ on the TOPIC is
// required (TOPIC_AUTHORIZATION_FAILED), an unknown partition is
// UNKNOWN_TOPIC_OR_PARTITION. current_txn_start_offset is −1 for producers
// without an open transaction in the partition; a hanging transaction shows
// here (kafka-transactions.sh find-hanging uses it).
import { ApiKey, type DeepPartial, type DescribeProducersRequest, type DescribeProducersResponse, ErrorCode } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";

type PartitionOut = DeepPartial<DescribeProducersResponse["topics"][number]["partitions"][number]>;

export const describeProducersApi = defineApi<DescribeProducersRequest, DescribeProducersResponse>({
  apiKey: ApiKey.DescribeProducers,
  name: "DescribeProducers",
  advertised: { min: 0, max: 0 },
  implemented: { min: 0, max: 0 },
  handle(ctx, req) {
    const b = ctx.broker;
    const topics = req.topics.map((t) => {
      const readable = b.authorizer.authorize(ctx.session, "READ", { type: "TOPIC", name: t.name });
      const partitions = t.partitionIndexes.map((index): PartitionOut => {
        const fail = (errorCode: number, errorMessage: string | null = null): PartitionOut => ({ partitionIndex: index, errorCode, errorMessage, activeProducers: [] });
        if (!readable) return fail(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
        const view = b.logs.partition(t.name, index);
        if (!view) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `This server does not host ${t.name}-${index}.`);
        return {
          partitionIndex: index,
          errorCode: ErrorCode.NONE,
          errorMessage: null,
          activeProducers: view.activeProducers().map((p) => ({
            producerId: p.producerId,
            producerEpoch: p.producerEpoch,
            lastSequence: p.lastSequence,
            lastTimestamp: p.lastTimestamp,
            coordinatorEpoch: p.coordinatorEpoch,
            currentTxnStartOffset: p.currentTxnStartOffset,
          })),
        };
      });
      return { name: t.name, partitions };
    });
    return { throttleTimeMs: 0, topics };
  },
});
