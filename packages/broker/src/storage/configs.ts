/**
 * Topic-level configs: the keys this broker understands, with Kafka's names,
 * types, defaults and validators (LogConfig.java / TopicConfig.java), the
 * validation used by CreateTopics / AlterConfigs / IncrementalAlterConfigs,
 * and the rows DescribeConfigs returns.
 *
 * Configs are stored as Kafka does: a string map of the overrides only.
 * Defaults are applied when the effective config is computed, so changing a
 * default later changes every topic that did not override it.
 */

export type ConfigType = "BOOLEAN" | "STRING" | "INT" | "LONG" | "DOUBLE" | "LIST";

/** DescribeConfigs v3+ `config_type` codes (ConfigEntry.ConfigType). */
export const ConfigTypeCode: Record<ConfigType, number> = { BOOLEAN: 1, STRING: 2, INT: 3, LONG: 5, DOUBLE: 6, LIST: 7 };

/** DescribeConfigs `config_source` codes (DescribeConfigsResponse.ConfigSource). */
export const ConfigSource = { DYNAMIC_TOPIC_CONFIG: 1, DEFAULT_CONFIG: 5 } as const;

const LONG_MAX = 9223372036854775807n;
const LONG_MIN = -9223372036854775808n;
const INT_MAX = 2147483647n;
const INT_MIN = -2147483648n;

interface ConfigDef {
  name: string;
  type: ConfigType;
  default: string;
  doc: string;
  min?: bigint;
  max?: bigint;
  /** DOUBLE range. */
  minDouble?: number;
  maxDouble?: number;
  validStrings?: readonly string[];
  validList?: readonly string[];
  /** LIST of free-form items (the replication-throttle lists): no item check beyond syntax. */
  freeList?: RegExp;
  /**
   * The broker setting Kafka reports as this config's DEFAULT_CONFIG synonym, and its default value there.
   * None for retention.ms, segment.ms and segment.jitter.ms: Kafka's ConfigHelper drops the synonyms listed
   * before the primary broker name (log.retention.ms, log.roll.ms, log.roll.jitter.ms), which have no
   * default, so log.retention.hours / log.roll.hours / log.roll.jitter.hours never show as synonyms there.
   */
  synonym?: [string, string];
}

// Every topic config of Apache Kafka 3.9 (TopicConfig / LogConfig), with Kafka's
// defaults, ranges and DEFAULT_CONFIG synonyms, except remote.log.copy.disable and
// remote.log.delete.on.disable (not implemented: they are refused as unknown).
// What each one does on this single node is in packages/broker/README.md
// ("Topic configs"): enforced, or stored and reported only.
const LONG_MAX_S = String(LONG_MAX);
const THROTTLED_REPLICAS = /^(\*|\d+:\d+)$/;
const DEFS: readonly ConfigDef[] = [
  { name: "cleanup.policy", type: "LIST", default: "delete", validList: ["compact", "delete"], doc: "delete and/or compact old segments", synonym: ["log.cleanup.policy", "delete"] },
  { name: "compression.gzip.level", type: "INT", default: "-1", min: -1n, max: 9n, doc: "gzip level when compression.type is gzip (-1 = the codec's default)", synonym: ["compression.gzip.level", "-1"] },
  { name: "compression.lz4.level", type: "INT", default: "9", min: 1n, max: 17n, doc: "lz4 level when compression.type is lz4 (stored and reported)", synonym: ["compression.lz4.level", "9"] },
  { name: "compression.type", type: "STRING", default: "producer", validStrings: ["uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"], doc: "producer keeps the producer's codec; a named codec recompresses batches that use another", synonym: ["compression.type", "producer"] },
  { name: "compression.zstd.level", type: "INT", default: "3", min: -131072n, max: 22n, doc: "zstd level when compression.type is zstd (stored and reported)", synonym: ["compression.zstd.level", "3"] },
  { name: "delete.retention.ms", type: "LONG", default: "86400000", min: 0n, doc: "how long tombstones are kept on compacted topics", synonym: ["log.cleaner.delete.retention.ms", "86400000"] },
  { name: "file.delete.delay.ms", type: "LONG", default: "60000", min: 0n, doc: "stored and reported; segments are deleted at once here", synonym: ["log.segment.delete.delay.ms", "60000"] },
  { name: "flush.messages", type: "LONG", default: LONG_MAX_S, min: 1n, doc: "fsync after this many messages (acks=all produce always fsyncs)", synonym: ["log.flush.interval.messages", LONG_MAX_S] },
  { name: "flush.ms", type: "LONG", default: LONG_MAX_S, min: 0n, doc: "fsync at least this often", synonym: ["log.flush.interval.ms", LONG_MAX_S] },
  { name: "follower.replication.throttled.replicas", type: "LIST", default: "", freeList: THROTTLED_REPLICAS, doc: "stored and reported; there are no followers" },
  { name: "index.interval.bytes", type: "INT", default: "4096", min: 0n, doc: "bytes between offset index entries", synonym: ["log.index.interval.bytes", "4096"] },
  { name: "leader.replication.throttled.replicas", type: "LIST", default: "", freeList: THROTTLED_REPLICAS, doc: "stored and reported; there are no followers" },
  { name: "local.retention.bytes", type: "LONG", default: "-2", min: -2n, doc: "local retention for tiered topics; -2 = same as retention.bytes", synonym: ["log.local.retention.bytes", "-2"] },
  { name: "local.retention.ms", type: "LONG", default: "-2", min: -2n, doc: "local retention for tiered topics; -2 = same as retention.ms", synonym: ["log.local.retention.ms", "-2"] },
  { name: "max.compaction.lag.ms", type: "LONG", default: LONG_MAX_S, min: 1n, doc: "stored and reported; compaction runs on every retention pass", synonym: ["log.cleaner.max.compaction.lag.ms", LONG_MAX_S] },
  { name: "max.message.bytes", type: "INT", default: "1048588", min: 0n, doc: "largest record batch size allowed", synonym: ["message.max.bytes", "1048588"] },
  { name: "message.timestamp.after.max.ms", type: "LONG", default: LONG_MAX_S, min: 0n, doc: "CreateTime records may be at most this far in the future (INVALID_TIMESTAMP)", synonym: ["log.message.timestamp.after.max.ms", LONG_MAX_S] },
  { name: "message.timestamp.before.max.ms", type: "LONG", default: LONG_MAX_S, min: 0n, doc: "CreateTime records may be at most this far in the past (INVALID_TIMESTAMP)", synonym: ["log.message.timestamp.before.max.ms", LONG_MAX_S] },
  { name: "message.timestamp.type", type: "STRING", default: "CreateTime", validStrings: ["CreateTime", "LogAppendTime"], doc: "CreateTime or LogAppendTime", synonym: ["log.message.timestamp.type", "CreateTime"] },
  { name: "min.cleanable.dirty.ratio", type: "DOUBLE", default: "0.5", minDouble: 0, maxDouble: 1, doc: "stored and reported; compaction runs on every retention pass", synonym: ["log.cleaner.min.cleanable.ratio", "0.5"] },
  { name: "min.compaction.lag.ms", type: "LONG", default: "0", min: 0n, doc: "stored and reported; compaction runs on every retention pass", synonym: ["log.cleaner.min.compaction.lag.ms", "0"] },
  { name: "min.insync.replicas", type: "INT", default: "1", min: 1n, doc: "stored and reported; a single node is always in sync (acks=all succeeds)", synonym: ["min.insync.replicas", "1"] },
  { name: "preallocate", type: "BOOLEAN", default: "false", doc: "stored and reported; segment files grow as written", synonym: ["log.preallocate", "false"] },
  { name: "remote.storage.enable", type: "BOOLEAN", default: "false", doc: "copy closed segments to remote storage and serve old offsets from there (needs remote.log.storage.system.enable on the broker)" },
  { name: "retention.bytes", type: "LONG", default: "-1", doc: "maximum partition size before old segments are deleted; -1 = unlimited", synonym: ["log.retention.bytes", "-1"] },
  { name: "retention.ms", type: "LONG", default: "604800000", min: -1n, doc: "maximum age of a segment's newest record before it is deleted; -1 = forever" },
  // Kafka's minimum is LegacyRecord.RECORD_OVERHEAD_V0 (14) in 3.x.
  { name: "segment.bytes", type: "INT", default: "1073741824", min: 14n, doc: "segment file size before rolling", synonym: ["log.segment.bytes", "1073741824"] },
  { name: "segment.index.bytes", type: "INT", default: "10485760", min: 4n, doc: "stored and reported; indexes are sized by their entries", synonym: ["log.index.size.max.bytes", "10485760"] },
  { name: "segment.jitter.ms", type: "LONG", default: "0", min: 0n, doc: "stored and reported; segment.ms rolls without jitter" },
  { name: "segment.ms", type: "LONG", default: "604800000", min: 1n, doc: "segment age before rolling" },
  { name: "unclean.leader.election.enable", type: "BOOLEAN", default: "false", doc: "stored and reported; the only replica is always the leader", synonym: ["unclean.leader.election.enable", "false"] },
];

const DEF_BY_NAME = new Map(DEFS.map((d) => [d.name, d]));

export const KNOWN_TOPIC_CONFIGS: readonly string[] = DEFS.map((d) => d.name);

export function topicConfigDefault(name: string): string | undefined {
  return DEF_BY_NAME.get(name)?.default;
}

export interface ConfigError {
  key: string;
  message: string;
}

/** What topic-config validation needs to know beyond the configs themselves. */
export interface ConfigValidationContext {
  /** Broker setting remote.log.storage.system.enable. */
  remoteStorageSystemEnabled: boolean;
  /** The topic's overrides before this change (alter); undefined for a new topic. */
  previous?: Readonly<Record<string, string>>;
}

/**
 * Read-only, computed per-topic "configs" through which DescribeConfigs
 * reports tiered-storage usage (comma-separated, one value per partition in
 * partition order). Not settable; see packages/broker/README.md.
 */
export const REMOTE_LOG_SIZE_CONFIG = "kappa.remote.log.size.bytes";
export const REMOTE_LOG_SEGMENT_COUNT_CONFIG = "kappa.remote.log.segment.count";
const READ_ONLY_CONFIGS: readonly string[] = [REMOTE_LOG_SIZE_CONFIG, REMOTE_LOG_SEGMENT_COUNT_CONFIG];

function parseInteger(def: ConfigDef, raw: string): { value?: bigint; error?: string } {
  const s = raw.trim();
  const [lo, hi] = def.type === "INT" ? [INT_MIN, INT_MAX] : [LONG_MIN, LONG_MAX];
  if (!/^[+-]?\d+$/.test(s)) return { error: `Not a number of type ${def.type}` };
  const v = BigInt(s);
  if (v < lo || v > hi) return { error: `Not a number of type ${def.type}` };
  if (def.min !== undefined && v < def.min) return { error: `Value must be at least ${def.min}` };
  if (def.max !== undefined && v > def.max) return { error: `Value must be no more than ${def.max}` };
  return { value: v };
}

function validateOne(def: ConfigDef, raw: string): string | undefined {
  switch (def.type) {
    case "INT":
    case "LONG":
      return parseInteger(def, raw).error;
    case "DOUBLE": {
      const s = raw.trim();
      const n = Number(s);
      if (s === "" || !Number.isFinite(n)) return "Not a number of type DOUBLE";
      if (def.minDouble !== undefined && n < def.minDouble) return `Value must be at least ${def.minDouble}`;
      if (def.maxDouble !== undefined && n > def.maxDouble) return `Value must be no more than ${def.maxDouble}`;
      return undefined;
    }
    case "BOOLEAN": {
      const s = raw.trim().toLowerCase();
      return s === "true" || s === "false" ? undefined : "Expected value to be either true or false";
    }
    case "STRING":
      return def.validStrings && !def.validStrings.includes(raw.trim())
        ? `String must be one of: ${def.validStrings.join(", ")}`
        : undefined;
    case "LIST": {
      const items = raw.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
      if (def.freeList) {
        const bad = items.find((i) => !def.freeList!.test(i));
        return bad !== undefined ? `Invalid value ${bad}: must be * or a list of partition:broker pairs` : undefined;
      }
      if (items.length === 0) return `List must contain at least one of: ${def.validList?.join(", ")}`;
      const bad = items.find((i) => !def.validList?.includes(i));
      return bad !== undefined ? `Invalid value ${bad}: must be one of ${def.validList?.join(", ")}` : undefined;
    }
  }
}

/**
 * Validates a topic's complete override map (for an alter, pass the merged
 * result). Returns one error per offending key, empty when valid. Handlers
 * answer INVALID_CONFIG (40) with the messages joined.
 */
export function validateTopicConfigs(
  configs: Readonly<Record<string, string | null>>,
  ctx: ConfigValidationContext = { remoteStorageSystemEnabled: false },
): ConfigError[] {
  const errors: ConfigError[] = [];
  for (const [key, raw] of Object.entries(configs)) {
    const def = DEF_BY_NAME.get(key);
    if (READ_ONLY_CONFIGS.includes(key)) {
      errors.push({ key, message: `Cannot alter read-only config ${key}: it reports tiered-storage usage` });
      continue;
    }
    if (!def) {
      errors.push({ key, message: `Unknown topic config name: ${key}` });
      continue;
    }
    if (raw === null) {
      errors.push({ key, message: `Invalid value null for configuration ${key}: a value is required` });
      continue;
    }
    const problem = validateOne(def, raw);
    if (problem !== undefined) errors.push({ key, message: `Invalid value ${raw} for configuration ${key}: ${problem}` });
  }
  if (errors.length > 0) return errors;

  const eff = (k: string): string => configs[k] ?? DEF_BY_NAME.get(k)!.default;
  const remote = eff("remote.storage.enable").trim().toLowerCase() === "true";
  const wasRemote = ctx.previous !== undefined && (ctx.previous["remote.storage.enable"] ?? "false").trim().toLowerCase() === "true";
  // Kafka's LogConfig.validateRemoteStorageOnlyIfSystemEnabled / validateNoRemoteStorageForCompactedTopic.
  if (remote && !ctx.remoteStorageSystemEnabled) {
    errors.push({
      key: "remote.storage.enable",
      message:
        "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.",
    });
  } else if (remote && eff("cleanup.policy").split(",").map((p) => p.trim()).includes("compact")) {
    errors.push({ key: "remote.storage.enable", message: "Remote log storage is unsupported for the compacted topics" });
  }
  // Kafka (3.9) only lets a topic leave tiered storage through remote.log.copy.disable /
  // remote.log.delete.on.disable; this broker has neither, so the change is refused
  // rather than silently stranding or dropping the remote data.
  if (wasRemote && !remote) {
    errors.push({
      key: "remote.storage.enable",
      message:
        "Disabling remote storage on a topic is not supported: its remote data would be stranded. " +
        "(Apache Kafka requires remote.log.copy.disable=true and remote.log.delete.on.disable=true, which this broker does not implement.) Delete the topic instead.",
    });
  }
  // Kafka's LogConfig.validateRemoteStorageRetention{Time,Size}: local retention
  // may not exceed total retention; -2 means "same as retention.*".
  for (const [localKey, totalKey] of [
    ["local.retention.ms", "retention.ms"],
    ["local.retention.bytes", "retention.bytes"],
  ] as const) {
    const local = BigInt(eff(localKey).trim());
    const total = BigInt(eff(totalKey).trim());
    if (local === -2n) continue;
    if (local === -1n && total !== -1n) {
      errors.push({
        key: localKey,
        message: `Value must not be -1 as ${totalKey} value is set as ${total}.`,
      });
    } else if (total !== -1n && local > total) {
      errors.push({
        key: localKey,
        message: `Value must not be more than ${totalKey} property value: ${total}`,
      });
    }
  }
  return errors;
}

/** The effective, typed configuration of one topic. */
export interface LogConfig {
  retentionMs: number;
  retentionBytes: number;
  compact: boolean;
  deleteRetention: boolean;
  deleteRetentionMs: number;
  segmentBytes: number;
  segmentMs: number;
  maxMessageBytes: number;
  logAppendTime: boolean;
  flushMessages: number;
  flushMs: number;
  indexIntervalBytes: number;
  remoteStorageEnable: boolean;
  /** local.retention.ms with −2 resolved to retention.ms. */
  localRetentionMs: number;
  /** local.retention.bytes with −2 resolved to retention.bytes. */
  localRetentionBytes: number;
  /** compression.type: "producer" keeps each batch's codec; otherwise the codec batches are stored with. */
  compressionType: "producer" | "uncompressed" | "gzip" | "snappy" | "lz4" | "zstd";
  /** compression.gzip.level (−1 = zlib's default). */
  gzipLevel: number;
  /**
   * message.timestamp.before.max.ms / after.max.ms (KIP-937). Kafka 4.0
   * removed the deprecated message.timestamp.difference.max.ms (now an unknown
   * config). Number.MAX_VALUE-like values mean "no bound".
   */
  timestampBeforeMaxMs: number;
  timestampAfterMaxMs: number;
}

export function effectiveLogConfig(overrides: Readonly<Record<string, string>>): LogConfig {
  const get = (k: string): string => (overrides[k] ?? DEF_BY_NAME.get(k)!.default).trim();
  // Long.MAX_VALUE as a double is 9.22e18: comparisons against it behave as "never".
  const num = (k: string): number => Number(get(k));
  const policy = get("cleanup.policy").split(",").map((s) => s.trim());
  return {
    retentionMs: num("retention.ms"),
    retentionBytes: num("retention.bytes"),
    compact: policy.includes("compact"),
    deleteRetention: policy.includes("delete"),
    deleteRetentionMs: num("delete.retention.ms"),
    segmentBytes: num("segment.bytes"),
    segmentMs: num("segment.ms"),
    maxMessageBytes: num("max.message.bytes"),
    logAppendTime: get("message.timestamp.type") === "LogAppendTime",
    flushMessages: num("flush.messages"),
    flushMs: num("flush.ms"),
    indexIntervalBytes: num("index.interval.bytes"),
    remoteStorageEnable: get("remote.storage.enable").toLowerCase() === "true",
    localRetentionMs: num("local.retention.ms") === -2 ? num("retention.ms") : num("local.retention.ms"),
    localRetentionBytes: num("local.retention.bytes") === -2 ? num("retention.bytes") : num("local.retention.bytes"),
    compressionType: get("compression.type") as LogConfig["compressionType"],
    gzipLevel: num("compression.gzip.level"),
    timestampBeforeMaxMs: num("message.timestamp.before.max.ms"),
    timestampAfterMaxMs: num("message.timestamp.after.max.ms"),
  };
}

export interface DescribedConfig {
  name: string;
  value: string;
  isDefault: boolean;
  readOnly: boolean;
  isSensitive: boolean;
  /** ConfigSource code: DYNAMIC_TOPIC_CONFIG (1) or DEFAULT_CONFIG (5). */
  source: number;
  type: ConfigType;
  /** DescribeConfigs v3+ config_type code. */
  typeCode: number;
  documentation: string;
  /** DescribeConfigs v1+ synonyms, highest precedence first: the topic override, then the broker default. */
  synonyms: Array<{ name: string; value: string; source: number }>;
}

/**
 * DescribeConfigs rows for a topic; `keys` null/undefined = all known keys (in
 * KNOWN_TOPIC_CONFIGS' order); named keys are the full listing filtered to them, in the
 * listing's order whatever the request's, unknown names left out — as Kafka
 * does (ConfigHelper filters its full listing; it never follows the request's order).
 */
export function describeTopicConfigs(
  overrides: Readonly<Record<string, string>>,
  keys?: readonly string[] | null,
): DescribedConfig[] {
  const wanted = keys && keys.length > 0 ? new Set(keys) : null;
  const names = wanted ? KNOWN_TOPIC_CONFIGS.filter((k) => wanted.has(k)) : KNOWN_TOPIC_CONFIGS;
  return names.map((name) => {
    const def = DEF_BY_NAME.get(name)!;
    const override = overrides[name];
    return {
      name,
      value: override ?? def.default,
      isDefault: override === undefined,
      readOnly: false,
      isSensitive: false,
      source: override === undefined ? ConfigSource.DEFAULT_CONFIG : ConfigSource.DYNAMIC_TOPIC_CONFIG,
      type: def.type,
      typeCode: ConfigTypeCode[def.type],
      documentation: def.doc,
      // As Kafka's ConfigHelper lists them: the topic override (DYNAMIC_TOPIC_CONFIG), then the broker-level default.
      synonyms: [
        ...(override === undefined ? [] : [{ name, value: override, source: ConfigSource.DYNAMIC_TOPIC_CONFIG }]),
        ...(def.synonym ? [{ name: def.synonym[0], value: def.synonym[1], source: ConfigSource.DEFAULT_CONFIG }] : []),
      ],
    };
  });
}
