// The broker side of the transaction coordinator: markers go into the
// partition logs (waking READ_COMMITTED fetches parked on them, whose LSO just
// moved), committed transactional offsets into the group offset store.
import { ErrorCode } from "@kappa/kafka-protocol";
import type { Logger } from "../broker.ts";
import { KafkaError, type Logs } from "../logs.ts";
import type { TransactionParticipants } from "./transaction-coordinator.ts";

/** `appended` wakes fetches parked on the partition (BrokerCore.appendWaiters.notify). */
export function brokerParticipants(logs: Logs, appended: (topic: string, partition: number) => void, logger: Logger): TransactionParticipants {
  return {
    async writeMarker(topic, partition, marker) {
      const view = logs.partition(topic, partition);
      if (!view) return "gone";
      try {
        await view.appendTxnMarker(marker);
      } catch (err) {
        // Deleted while the marker was on its way: Kafka's marker channel drops markers for deleted partitions too.
        if (err instanceof KafkaError && err.code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) return "gone";
        throw err;
      }
      appended(topic, partition);
      return "written";
    },
    commitOffsets: (groupId, offsets) =>
      logs.groupOffsets.commit(
        groupId,
        offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: BigInt(o.offset), leaderEpoch: o.leaderEpoch, metadata: o.metadata })),
      ),
    nextProducerId: async () => Number(await logs.nextProducerId()),
    log: (level, message) => (level === "warn" ? logger.warn(message) : logger.info(message)),
  };
}
