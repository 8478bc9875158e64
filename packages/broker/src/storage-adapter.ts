// Implements the handlers' view of storage (logs.ts) on top of the storage engine
// in ./storage (owned separately). Thin on purpose: it converts types, maps the
// engine's errors to Kafka error codes, and applies broker-level log.* defaults.
//
// Broker-level defaults: the engine's topic config defaults are Kafka's
// (retention.ms = 7 days, segment.bytes = 1 GiB, ...). When this broker is
// started with a different log.* setting, new topics get it as an explicit
// override, so the setting takes effect; it then shows up as a topic config in
// DescribeConfigs (Kafka would show it as a broker default instead).
import type { BrokerConfig } from "./config.ts";
import { DEFAULT_CONFIG } from "./config.ts";
import type { CommittedOffset, OffsetStore } from "./groups/coordinator.ts";
import {
  KafkaError,
  type AbortedTransactionView,
  type ConfigEntryView,
  type ConfigProblem,
  type Logs,
  type PartitionView,
  type ProducerView,
  type TopicMeta,
  type TxnMarkerInput,
} from "./logs.ts";
import { LogManager, StorageError, batchesBelow, topicIdToBytes, type PartitionLog, type TopicInfo } from "./storage/index.ts";
import { validateTopicConfigs } from "./storage/index.ts";
import { remoteLogOptions } from "./storage/tiered/broker-options.ts";

/** Rethrows engine errors as KafkaError with the engine's code; everything else passes through. */
async function mapped<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof StorageError) throw new KafkaError(err.code, err.message, { cause: err });
    throw err;
  }
}

function topicMeta(t: TopicInfo): TopicMeta {
  return { name: t.name, topicId: topicIdToBytes(t.topicId), partitionCount: t.partitions };
}

/** Topic config name ← broker setting, for settings whose value differs from Kafka's default. */
function brokerTopicDefaults(cfg: BrokerConfig): Record<string, string> {
  const out: Record<string, string> = {};
  const map: Array<[keyof BrokerConfig, string]> = [
    ["log.segment.bytes", "segment.bytes"],
    ["log.roll.ms", "segment.ms"],
    ["log.retention.ms", "retention.ms"],
    ["log.retention.bytes", "retention.bytes"],
    ["log.cleanup.policy", "cleanup.policy"],
    ["log.flush.interval.messages", "flush.messages"],
    ["log.flush.interval.ms", "flush.ms"],
    ["message.max.bytes", "max.message.bytes"],
    ["delete.retention.ms", "delete.retention.ms"],
  ];
  for (const [setting, topicConfig] of map) {
    const v = cfg[setting];
    if (v !== null && v !== DEFAULT_CONFIG[setting]) out[topicConfig] = String(v);
  }
  return out;
}

class PartitionAdapter implements PartitionView {
  constructor(private readonly log: PartitionLog) {}
  get topic(): string {
    return this.log.topic;
  }
  get partition(): number {
    return this.log.partition;
  }
  logStartOffset(): bigint {
    return this.log.logStartOffset;
  }
  highWatermark(): bigint {
    return this.log.highWatermark;
  }
  lastStableOffset(): bigint {
    return this.log.lastStableOffset;
  }
  append(records: Buffer, opts: { requireDurable: boolean }) {
    // Produce v3+ carries exactly one batch per partition (LogValidator).
    return mapped(this.log.append(records, { requireDurable: opts.requireDurable, singleBatch: true })).then((r) => ({
      baseOffset: r.baseOffset,
      logAppendTimeMs: r.logAppendTime,
      logStartOffset: r.logStartOffset,
    }));
  }
  async read(fetchOffset: bigint, maxBytes: number, maxOffset: bigint) {
    const r = await mapped(this.log.read(fetchOffset, maxBytes));
    // maxOffset is the LSO for READ_COMMITTED; it is always a batch boundary.
    return { records: batchesBelow(r.records, Number(maxOffset)) };
  }
  offsetForTimestamp(ts: bigint) {
    return mapped(this.log.offsetForTimestamp(ts));
  }
  maxTimestamp() {
    return mapped(this.log.maxTimestampOffset());
  }
  deleteRecordsBefore(offset: bigint) {
    return mapped(this.log.deleteRecordsBefore(offset));
  }
  async appendTxnMarker(marker: TxnMarkerInput): Promise<void> {
    await mapped(this.log.appendTxnMarker(marker));
  }
  async abortedTransactions(fetchOffset: bigint, upperBound: bigint): Promise<AbortedTransactionView[]> {
    const list = await mapped(this.log.abortedTransactions(fetchOffset, upperBound));
    return list.map((t) => ({ producerId: BigInt(t.producerId), firstOffset: BigInt(t.firstOffset) }));
  }
  activeProducers(): ProducerView[] {
    return this.log.activeProducers().map((p) => ({
      producerId: BigInt(p.producerId),
      producerEpoch: p.epoch,
      lastSequence: p.lastSequence,
      lastTimestamp: BigInt(p.lastTimestamp),
      coordinatorEpoch: p.coordinatorEpoch,
      currentTxnStartOffset: BigInt(p.currentTxnStartOffset),
    }));
  }
}

export class StorageLogs implements Logs {
  readonly groupOffsets: OffsetStore;
  private readonly views = new WeakMap<PartitionLog, PartitionAdapter>();
  private readonly topicDefaults: Record<string, string>;

  constructor(
    readonly manager: LogManager,
    config: BrokerConfig,
  ) {
    this.topicDefaults = brokerTopicDefaults(config);
    const groups = manager.groups;
    this.groupOffsets = {
      commit: (groupId: string, offsets: CommittedOffset[]) =>
        mapped(groups.commit(groupId, offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset, leaderEpoch: o.leaderEpoch, metadata: o.metadata })))),
      fetch: (groupId: string) => groups.fetch(groupId),
      groupIds: () => groups.listGroups(),
      deleteGroup: async (groupId: string) => {
        await mapped(groups.deleteGroup(groupId));
      },
    };
  }

  static async open(config: BrokerConfig): Promise<StorageLogs> {
    return new StorageLogs(
      await LogManager.open(config["log.dirs"], { remote: await remoteLogOptions(config), maxDecompressedBytes: config["message.decompressed.max.bytes"], pageCacheWindowBytes: config["log.page.cache.window.bytes"], directIo: config["log.direct.io"] }),
      config,
    );
  }

  topic(name: string): TopicMeta | undefined {
    const t = this.manager.getTopic(name);
    return t ? topicMeta(t) : undefined;
  }
  topics(): TopicMeta[] {
    return this.manager.listTopics().map(topicMeta);
  }
  collidingTopic(name: string): string | undefined {
    return this.manager.collidingTopic(name);
  }
  partition(topic: string, partition: number): PartitionView | undefined {
    const log = this.manager.partition(topic, partition);
    if (!log) return undefined;
    let v = this.views.get(log);
    if (!v) {
      v = new PartitionAdapter(log);
      this.views.set(log, v);
    }
    return v;
  }
  async createTopic(name: string, partitions: number, configs: Record<string, string>): Promise<TopicMeta> {
    return topicMeta(await mapped(this.manager.createTopic(name, { partitions, configs: { ...this.topicDefaults, ...configs } })));
  }
  async createTopics(topics: ReadonlyArray<{ name: string; partitions: number; configs: Record<string, string> }>): Promise<Array<TopicMeta | Error>> {
    const results = await this.manager.createTopics(topics.map((t) => ({ name: t.name, partitions: t.partitions, configs: { ...this.topicDefaults, ...t.configs } })));
    return results.map((r) => (r instanceof StorageError ? new KafkaError(r.code, r.message, { cause: r }) : r instanceof Error ? r : topicMeta(r)));
  }
  deleteTopic(name: string): Promise<void> {
    return mapped(this.manager.deleteTopic(name));
  }
  addPartitions(name: string, totalCount: number): Promise<void> {
    return mapped(this.manager.createPartitions(name, totalCount));
  }
  validateTopicConfigs(configs: Record<string, string | null>): ConfigProblem[] {
    return validateTopicConfigs(configs, { remoteStorageSystemEnabled: this.manager.remoteStorageSystemEnabled }).map((e) => ({ name: e.key, message: e.message }));
  }
  topicConfigOverrides(name: string): Record<string, string> {
    return { ...(this.manager.getTopic(name)?.configs ?? {}) };
  }
  setTopicConfigs(name: string, overrides: Record<string, string>): Promise<void> {
    return mapped(this.manager.alterTopicConfigs(name, overrides));
  }
  describeTopicConfigs(name: string, keys: string[] | null, includeDocumentation: boolean): ConfigEntryView[] {
    let rows;
    try {
      rows = this.manager.describeTopicConfigs(name, keys);
    } catch (err) {
      if (err instanceof StorageError) throw new KafkaError(err.code, err.message, { cause: err });
      throw err;
    }
    return rows.map((r) => ({
      name: r.name,
      value: r.value,
      readOnly: r.readOnly,
      isDefault: r.isDefault,
      source: r.source,
      isSensitive: r.isSensitive,
      configType: r.typeCode,
      documentation: includeDocumentation ? r.documentation : null,
      synonyms: r.synonyms,
    }));
  }
  nextProducerId(): Promise<bigint> {
    return mapped(this.manager.nextProducerId());
  }
  /** Retention and compaction pass; returns what was removed, for the log line. */
  async maintenance(): Promise<{ segments: number; records: number }> {
    const segments = await this.manager.runRetention();
    const records = await this.manager.runCompaction();
    return { segments, records };
  }
  close(): Promise<void> {
    return this.manager.close();
  }
}

