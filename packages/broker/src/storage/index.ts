/**
 * Durable storage engine of the single-node broker: topics and partitions on
 * disk, record-batch logs with Kafka's segment layout, committed consumer
 * offsets and topic configs. See README.md in this directory.
 */
export { LogManager, type TopicInfo, type LogManagerOptions, type CreateTopicOptions, type AlterConfigOp } from "./log-manager.ts";
export { GroupOffsetStore, type OffsetCommitEntry, type CommittedOffset } from "./group-offset-store.ts";
export { topicIdToBytes, topicIdFromBytes } from "./topic-id.ts";
export {
  PartitionLog,
  type AppendOptions,
  type AppendResult,
  type ReadOptions,
  type ReadResult,
  type TimestampAndOffset,
  type PartitionLogOptions,
  type TxnMarker,
  type ProducerSummary,
  type AbortedTxn,
} from "./partition-log.ts";
export { batchesBelow } from "./partition-reads.ts";
export {
  validateTopicConfigs,
  describeTopicConfigs,
  effectiveLogConfig,
  topicConfigDefault,
  KNOWN_TOPIC_CONFIGS,
  ConfigSource,
  ConfigTypeCode,
  type ConfigError,
  type ConfigType,
  type DescribedConfig,
  type LogConfig,
} from "./configs.ts";
export { StorageError, StorageErrorCode, type StorageErrorName } from "./errors.ts";
export { FileHandleCache } from "./files.ts";
