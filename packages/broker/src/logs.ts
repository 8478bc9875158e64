// The view of storage that the request handlers use. src/storage-adapter.ts
// implements it on top of the storage engine (src/storage/, owned separately),
// so handlers do not depend on the engine's internals and tests can reason about
// one small surface. Offsets and timestamps are bigint, as on the wire.

/** A failure with the Kafka error code the handler puts in its response. */
export class KafkaError extends Error {
  constructor(
    readonly code: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "KafkaError";
  }
}

export interface TopicMeta {
  name: string;
  /** 16 bytes. */
  topicId: Buffer;
  partitionCount: number;
}

export interface AppendResult {
  baseOffset: bigint;
  /** -1 unless the topic uses LogAppendTime. */
  logAppendTimeMs: bigint;
  logStartOffset: bigint;
}

export interface ReadResult {
  /** Whole record batches only (possibly empty). */
  records: Buffer;
}

/** A transaction marker the coordinator writes (Kafka's WriteTxnMarkers entry for one partition). */
export interface TxnMarkerInput {
  producerId: number;
  producerEpoch: number;
  commit: boolean;
  coordinatorEpoch: number;
}

/** Fetch's aborted_transactions entry. */
export interface AbortedTransactionView {
  producerId: bigint;
  firstOffset: bigint;
}

/** DescribeProducers' ProducerState (KIP-664). */
export interface ProducerView {
  producerId: bigint;
  producerEpoch: number;
  lastSequence: number;
  lastTimestamp: bigint;
  coordinatorEpoch: number;
  /** −1 when the producer has no open transaction in this partition. */
  currentTxnStartOffset: bigint;
}

export interface PartitionView {
  readonly topic: string;
  readonly partition: number;
  logStartOffset(): bigint;
  /** High watermark = log end offset on a single node. */
  highWatermark(): bigint;
  /** The first offset of an open transaction, or the high watermark when none is open: READ_COMMITTED reads stop here. */
  lastStableOffset(): bigint;
  /** One produce request's records for this partition (one batch, validated by the engine). */
  append(records: Buffer, opts: { requireDurable: boolean }): Promise<AppendResult>;
  /**
   * Whole batches starting with the one containing `fetchOffset`, stopping before
   * `maxOffset` (exclusive) and before `maxBytes` — except that the first batch is
   * always returned whole so a consumer can make progress past a large batch.
   */
  read(fetchOffset: bigint, maxBytes: number, maxOffset: bigint): Promise<ReadResult>;
  /** First offset whose timestamp is >= ts, or null. */
  offsetForTimestamp(ts: bigint): Promise<{ offset: bigint; timestamp: bigint } | null>;
  /** Offset and timestamp of the record with the highest timestamp, or null for an empty log. */
  maxTimestamp(): Promise<{ offset: bigint; timestamp: bigint } | null>;
  /** Advances the log start offset; returns the new low watermark. */
  deleteRecordsBefore(offset: bigint): Promise<bigint>;
  /** Appends a transaction marker (control batch) and resolves once it is durable. */
  appendTxnMarker(marker: TxnMarkerInput): Promise<void>;
  /** Aborted transactions overlapping [fetchOffset, upperBound), by first offset (READ_COMMITTED fetches). */
  abortedTransactions(fetchOffset: bigint, upperBound: bigint): Promise<AbortedTransactionView[]>;
  /** Producers with state in this partition (DescribeProducers). */
  activeProducers(): ProducerView[];
}

export interface ConfigEntryView {
  name: string;
  value: string | null;
  readOnly: boolean;
  isDefault: boolean;
  /** DescribeConfigs ConfigSource: 1 TOPIC_CONFIG, 4 STATIC_BROKER_CONFIG, 5 DEFAULT_CONFIG. */
  source: number;
  isSensitive: boolean;
  /** DescribeConfigs v3 config_type. */
  configType: number;
  documentation: string | null;
  /** DescribeConfigs v1+ synonyms, highest precedence first. */
  synonyms: Array<{ name: string; value: string | null; source: number }>;
}

export interface ConfigProblem {
  name: string;
  message: string;
}

export interface Logs {
  topic(name: string): TopicMeta | undefined;
  topics(): TopicMeta[];
  /** The existing topic whose name equals `name` once '.' and '_' are equated (Kafka's collision rule), if any. */
  collidingTopic(name: string): string | undefined;
  partition(topic: string, partition: number): PartitionView | undefined;
  /** Throws KafkaError (TOPIC_ALREADY_EXISTS, INVALID_CONFIG, ...). */
  createTopic(name: string, partitions: number, configs: Record<string, string>): Promise<TopicMeta>;
  /** Several topics in one go (one CreateTopics request): per topic its meta or its error (KafkaError for Kafka's codes); durable before it resolves. */
  createTopics(topics: ReadonlyArray<{ name: string; partitions: number; configs: Record<string, string> }>): Promise<Array<TopicMeta | Error>>;
  deleteTopic(name: string): Promise<void>;
  addPartitions(name: string, totalCount: number): Promise<void>;
  /** Validation of topic config overrides (null value = remove the override). */
  validateTopicConfigs(configs: Record<string, string | null>): ConfigProblem[];
  /** Current overrides of a topic. */
  topicConfigOverrides(name: string): Record<string, string>;
  /** Replace all overrides of a topic. */
  setTopicConfigs(name: string, overrides: Record<string, string>): Promise<void>;
  describeTopicConfigs(name: string, keys: string[] | null, includeDocumentation: boolean): ConfigEntryView[];
  nextProducerId(): Promise<bigint>;
  /** Group offset store, for the coordinator. */
  readonly groupOffsets: import("./groups/coordinator.ts").OffsetStore;
  close(): Promise<void>;
}
