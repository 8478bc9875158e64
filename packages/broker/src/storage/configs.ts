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

export type ConfigType = "BOOLEAN" | "STRING" | "INT" | "LONG" | "LIST";

/** DescribeConfigs v3+ `config_type` codes (ConfigEntry.ConfigType). */
export const ConfigTypeCode: Record<ConfigType, number> = { BOOLEAN: 1, STRING: 2, INT: 3, LONG: 5, LIST: 7 };

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
  validStrings?: readonly string[];
  validList?: readonly string[];
}

const DEFS: readonly ConfigDef[] = [
  { name: "cleanup.policy", type: "LIST", default: "delete", validList: ["compact", "delete"], doc: "delete and/or compact old segments" },
  { name: "delete.retention.ms", type: "LONG", default: "86400000", min: 0n, doc: "how long tombstones are kept on compacted topics" },
  { name: "flush.messages", type: "LONG", default: String(LONG_MAX), min: 1n, doc: "fsync after this many messages (acks=all produce always fsyncs)" },
  { name: "flush.ms", type: "LONG", default: String(LONG_MAX), min: 0n, doc: "fsync at least this often" },
  { name: "index.interval.bytes", type: "INT", default: "4096", min: 0n, doc: "bytes between offset index entries" },
  { name: "local.retention.bytes", type: "LONG", default: "-2", min: -2n, doc: "local retention for tiered topics; -2 = same as retention.bytes" },
  { name: "local.retention.ms", type: "LONG", default: "-2", min: -2n, doc: "local retention for tiered topics; -2 = same as retention.ms" },
  { name: "max.message.bytes", type: "INT", default: "1048588", min: 0n, doc: "largest record batch size allowed" },
  { name: "message.timestamp.type", type: "STRING", default: "CreateTime", validStrings: ["CreateTime", "LogAppendTime"], doc: "CreateTime or LogAppendTime" },
  { name: "min.insync.replicas", type: "INT", default: "1", min: 1n, doc: "accepted for compatibility; a single node is always in sync" },
  { name: "remote.storage.enable", type: "BOOLEAN", default: "false", doc: "copy closed segments to remote storage and serve old offsets from there (needs remote.log.storage.system.enable on the broker)" },
  { name: "retention.bytes", type: "LONG", default: "-1", doc: "maximum partition size before old segments are deleted; -1 = unlimited" },
  { name: "retention.ms", type: "LONG", default: "604800000", min: -1n, doc: "maximum age of a segment's newest record before it is deleted; -1 = forever" },
  // Kafka's minimum is LegacyRecord.RECORD_OVERHEAD_V0 (14) in 3.x.
  { name: "segment.bytes", type: "INT", default: "1073741824", min: 14n, doc: "segment file size before rolling" },
  { name: "segment.ms", type: "LONG", default: "604800000", min: 1n, doc: "segment age before rolling" },
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
  return { value: v };
}

function validateOne(def: ConfigDef, raw: string): string | undefined {
  switch (def.type) {
    case "INT":
    case "LONG":
      return parseInteger(def, raw).error;
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
}

/** DescribeConfigs rows for a topic; `keys` null/undefined = all known keys. */
export function describeTopicConfigs(
  overrides: Readonly<Record<string, string>>,
  keys?: readonly string[] | null,
): DescribedConfig[] {
  const names = keys && keys.length > 0 ? keys.filter((k) => DEF_BY_NAME.has(k)) : KNOWN_TOPIC_CONFIGS;
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
    };
  });
}
