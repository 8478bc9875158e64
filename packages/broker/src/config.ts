// Broker settings, with Apache Kafka's property names and defaults wherever Kafka
// has the setting: the typed model, the defaults and the validation of every
// value. Read once at start-up from CLI flags or a Java-properties file
// (config-sources.ts) or from a programmatic object (resolveConfig), and
// validated by hand so that every failure names the setting that is wrong.
import { DEFAULT_PROTOCOL_MAP, ListenerConfigError, parseListeners, parseProtocolMap, usesTls } from "./net/listeners.ts";
import { SUPPORTED_SASL_MECHANISMS } from "./security/sasl/mechanisms.ts";

export interface BrokerConfig {
  "node.id": number;
  /** Interface the listener binds to. */
  host: string;
  /** Port the listener binds to; 0 picks an ephemeral port. */
  port: number;
  /** Host clients are told to connect to (Metadata, FindCoordinator). Defaults to `host`, or 127.0.0.1 when bound to a wildcard. */
  "advertised.host": string | null;
  /** Port clients are told to connect to. Defaults to the bound port. */
  "advertised.port": number | null;
  /** Kappa-specific: port of the Prometheus metrics endpoint (GET /metrics on 127.0.0.1); null = none, 0 = ephemeral. */
  "metrics.port": number | null;
  "log.dirs": string;
  "auto.create.topics.enable": boolean;
  "num.partitions": number;
  /** Accepted as Kafka does; any value above 1 makes topic creation that relies on it fail with INVALID_REPLICATION_FACTOR (one broker). */
  "default.replication.factor": number;
  /** false: DeleteTopics answers TOPIC_DELETION_DISABLED (Kafka's name and default). */
  "delete.topic.enable": boolean;
  "group.initial.rebalance.delay.ms": number;
  "group.min.session.timeout.ms": number;
  "group.max.session.timeout.ms": number;
  /** KIP-848 consumer groups: a member that sends no ConsumerGroupHeartbeat for this long is removed (Kafka's name and default). */
  "group.consumer.session.timeout.ms": number;
  /** KIP-848 consumer groups: the heartbeat interval the coordinator gives members (Kafka's name and default). */
  "group.consumer.heartbeat.interval.ms": number;
  "log.segment.bytes": number;
  "log.roll.ms": number;
  "log.retention.ms": number;
  "log.retention.bytes": number;
  "log.retention.check.interval.ms": number;
  "log.cleanup.policy": string;
  /** Messages appended before a flush; Kafka's default (Long.MAX) means "let the OS decide" for acks=1. */
  "log.flush.interval.messages": number;
  "log.flush.interval.ms": number | null;
  "log.flush.scheduler.interval.ms": number;
  /** Kappa-specific: acks=-1 produce requests are fsync'd before they are acknowledged. */
  "log.flush.on.acks.all": boolean;
  "message.max.bytes": number;
  "socket.request.max.bytes": number;
  /** Largest request frame before SASL authentication completes (Kafka's name and default). */
  "sasl.server.max.receive.size": number;
  /** Connections with no bytes in either direction and nothing in flight for this long are closed; −1 = never. */
  "connections.max.idle.ms": number;
  /** KIP-306: a failed authentication's answer, and the close after it, wait this long (Kafka's name and default). */
  "connection.failed.authentication.delay.ms": number;
  /** Kappa-specific: failed authentications of one client address or user name before it is put in backoff; 0 = no backoff. */
  "sasl.failed.authentication.backoff.threshold": number;
  /** Kappa-specific: the first backoff; doubled for every further failure. */
  "sasl.failed.authentication.backoff.ms": number;
  /** Kappa-specific: the longest backoff. */
  "sasl.failed.authentication.backoff.max.ms": number;
  /**
   * Kappa-specific: a request frame must arrive within this long of its first
   * byte, plus one second per MiB it declares; a slower one closes the
   * connection (slowloris). Kafka has no such bound.
   */
  "socket.request.receive.timeout.ms": number;
  /** Kappa-specific: largest decompressed records section of one produced batch (compression bombs). */
  "message.decompressed.max.bytes": number;
  /** Most partitions one DescribeTopicPartitions answer holds, whatever the client asks (Kafka's name and default). */
  "max.request.partition.size.limit": number;
  /** Upper bound on a Fetch response's record bytes regardless of what the client asks (Kafka's fetch.max.bytes). */
  "fetch.max.bytes": number;
  /** Client quotas: samples kept per quota sensor (Kafka's name and default, 11). */
  "quota.window.num": number;
  /** Client quotas: length of one sample, in seconds (Kafka's name and default, 1). */
  "quota.window.size.seconds": number;
  /** Fetch sessions (KIP-227) the broker keeps at once (Kafka's name and default). */
  "max.incremental.fetch.session.cache.slots": number;
  /**
   * Kappa-specific: requests of one connection handled concurrently (pipelining).
   * Further requests wait in arrival order; together with the write high-water mark
   * this bounds the memory one connection can hold.
   */
  "queued.max.requests.per.connection": number;
  "delete.retention.ms": number;
  "remote.log.storage.system.enable": boolean;
  /** Kappa-specific: folder of the object store for tiered storage; null = `<log.dirs>-remote` beside the data dir. */
  "remote.log.storage.dir": string | null;
  /** How often closed segments are copied to remote storage and remote retention runs (Kafka's name and default). */
  "remote.log.manager.task.interval.ms": number;
  /** Kappa-specific: bytes of remote segment data (chunks and indexes) cached for fetches below the local log start. */
  "remote.log.reader.cache.bytes": number;
  /**
   * Kappa-specific: bytes of a partition's active segment, behind its end,
   * left in the OS page cache once fsynced; older synced bytes are dropped
   * from it (posix_fadvise DONTNEED, Linux only). −1 keeps everything cached,
   * as Kafka does. See the storage README ("The page cache").
   */
  "log.page.cache.window.bytes": number;
  /**
   * Kappa-specific: appends go to disk with O_DIRECT, bypassing the OS page
   * cache, where the data dir's filesystem allows it (otherwise, and with
   * false, they are buffered writes as in Kafka). log.page.cache.window.bytes
   * then has nothing of the appends to drop. See the storage README ("Direct I/O").
   */
  "log.direct.io": boolean;
  // Authorization (src/security/acl). Kafka's names and defaults.
  /**
   * null/"" = no authorizer: everything is allowed and the ACL APIs answer
   * SECURITY_DISABLED. "standard" (or Kafka's class names
   * org.apache.kafka.metadata.authorizer.StandardAuthorizer /
   * kafka.security.authorizer.AclAuthorizer) = ACLs with StandardAuthorizer semantics.
   */
  "authorizer.class.name": string | null;
  /** Principals that bypass ACLs, separated by ";" (e.g. "User:admin;User:ops"). */
  "super.users": string | null;
  "allow.everyone.if.no.acl.found": boolean;

  // Listeners, SASL and TLS (src/net/listeners.ts, src/security/sasl). Kafka's names.
  /** `NAME://host:port,...`; null = one PLAINTEXT listener on `host`:`port`. */
  listeners: string | null;
  /** Per-listener addresses told to clients; a listener not named here advertises its own address. */
  "advertised.listeners": string | null;
  "listener.security.protocol.map": string;
  /** Mechanisms offered on SASL listeners (Kafka's default is GSSAPI, which this broker does not implement). */
  "sasl.enabled.mechanisms": string;
  /** PEM file with the private key and certificate chain, as Kafka's ssl.keystore.type=PEM keystore. */
  "ssl.keystore.location": string | null;
  /** Kappa-specific (librdkafka's names): certificate chain and unencrypted key as two PEM files. */
  "ssl.certificate.location": string | null;
  "ssl.key.location": string | null;

  // Transactions (src/transactions). Kafka's names and defaults.
  /** Largest transaction.timeout.ms a producer may ask for (INVALID_TRANSACTION_TIMEOUT above it). */
  "transaction.max.timeout.ms": number;
  /** How often transactions older than their timeout are aborted. */
  "transaction.abort.timed.out.transaction.cleanup.interval.ms": number;
  /** A transactional id without a transaction for this long is forgotten. */
  "transactional.id.expiration.ms": number;
  "transaction.remove.expired.transaction.cleanup.interval.ms": number;
  /** KIP-890 part 1: a transactional write is accepted only for a partition added to the producer's ongoing transaction. */
  "transaction.partition.verification.enable": boolean;
}

/** Kafka's defaults, except where noted in a comment. */
export const DEFAULT_CONFIG: BrokerConfig = {
  "node.id": 1,
  host: "127.0.0.1",
  port: 9092,
  "advertised.host": null,
  "advertised.port": null,
  "metrics.port": null,
  "log.dirs": "/tmp/kafka-logs",
  "auto.create.topics.enable": true,
  "num.partitions": 1,
  "default.replication.factor": 1,
  "delete.topic.enable": true,
  "group.initial.rebalance.delay.ms": 3000,
  "group.min.session.timeout.ms": 6000,
  "group.max.session.timeout.ms": 1800000,
  "group.consumer.session.timeout.ms": 45000,
  "group.consumer.heartbeat.interval.ms": 5000,
  "log.segment.bytes": 1073741824,
  "log.roll.ms": 7 * 24 * 3600 * 1000,
  "log.retention.ms": 7 * 24 * 3600 * 1000,
  "log.retention.bytes": -1,
  "log.retention.check.interval.ms": 300000,
  "log.cleanup.policy": "delete",
  "log.flush.interval.messages": Number.MAX_SAFE_INTEGER,
  "log.flush.interval.ms": null,
  "log.flush.scheduler.interval.ms": Number.MAX_SAFE_INTEGER,
  "log.flush.on.acks.all": true,
  "message.max.bytes": 1048588,
  "socket.request.max.bytes": 104857600,
  "sasl.server.max.receive.size": 524288,
  "connections.max.idle.ms": 600000,
  "connection.failed.authentication.delay.ms": 100,
  "sasl.failed.authentication.backoff.threshold": 5,
  "sasl.failed.authentication.backoff.ms": 1000,
  "sasl.failed.authentication.backoff.max.ms": 5000,
  "socket.request.receive.timeout.ms": 30000,
  "message.decompressed.max.bytes": 128 * 1024 * 1024,
  "max.request.partition.size.limit": 2000,
  "fetch.max.bytes": 57671680,
  "quota.window.num": 11,
  "quota.window.size.seconds": 1,
  "max.incremental.fetch.session.cache.slots": 1000,
  "queued.max.requests.per.connection": 1000,
  "delete.retention.ms": 86400000,
  "remote.log.storage.system.enable": false,
  "remote.log.storage.dir": null,
  "remote.log.manager.task.interval.ms": 30000,
  "remote.log.reader.cache.bytes": 64 * 1024 * 1024,
  "log.page.cache.window.bytes": 16 * 1024 * 1024,
  "log.direct.io": true,
  "authorizer.class.name": null,
  "super.users": null,
  "allow.everyone.if.no.acl.found": false,
  listeners: null,
  "advertised.listeners": null,
  "listener.security.protocol.map": DEFAULT_PROTOCOL_MAP,
  "sasl.enabled.mechanisms": SUPPORTED_SASL_MECHANISMS.join(","),
  "ssl.keystore.location": null,
  "ssl.certificate.location": null,
  "ssl.key.location": null,
  "transaction.max.timeout.ms": 900000,
  "transaction.abort.timed.out.transaction.cleanup.interval.ms": 10000,
  "transactional.id.expiration.ms": 604800000,
  "transaction.remove.expired.transaction.cleanup.interval.ms": 3600000,
  "transaction.partition.verification.enable": true,
};

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Settings before validation (any names, any values). */
export type RawSettings = Record<string, unknown>;
type Raw = RawSettings;

function isKey(name: string): name is keyof BrokerConfig {
  return Object.prototype.hasOwnProperty.call(DEFAULT_CONFIG, name);
}

function int(raw: Raw, name: keyof BrokerConfig, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const v = raw[name];
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    throw new ConfigError(`${name} must be an integer in [${min}, ${max}], got ${JSON.stringify(v)}`);
  }
  return v;
}
function nullableInt(raw: Raw, name: keyof BrokerConfig, min: number, max = Number.MAX_SAFE_INTEGER): number | null {
  return raw[name] === null ? null : int(raw, name, min, max);
}
function bool(raw: Raw, name: keyof BrokerConfig): boolean {
  const v = raw[name];
  if (typeof v !== "boolean") throw new ConfigError(`${name} must be true or false, got ${JSON.stringify(v)}`);
  return v;
}
function str(raw: Raw, name: keyof BrokerConfig): string {
  const v = raw[name];
  if (typeof v !== "string" || v === "") throw new ConfigError(`${name} must be a non-empty string, got ${JSON.stringify(v)}`);
  return v;
}

function nullableStr(raw: Raw, name: keyof BrokerConfig): string | null {
  const v = raw[name];
  if (v === null) return null;
  if (typeof v !== "string" || v === "") throw new ConfigError(`${name} must be a non-empty string or unset, got ${JSON.stringify(v)}`);
  return v;
}

/** Accepted values of authorizer.class.name that turn on the ACL authorizer. */
export const STANDARD_AUTHORIZER_NAMES: readonly string[] = [
  "standard",
  "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
  "kafka.security.authorizer.AclAuthorizer",
];

function authorizerClass(raw: Raw): string | null {
  const v = raw["authorizer.class.name"];
  if (v === null || v === "" || v === "none") return null;
  if (typeof v !== "string" || !STANDARD_AUTHORIZER_NAMES.includes(v)) {
    throw new ConfigError(`authorizer.class.name must be empty, "none" or one of ${STANDARD_AUTHORIZER_NAMES.join(", ")}, got ${JSON.stringify(v)}`);
  }
  return v;
}

function superUsers(raw: Raw): string | null {
  const v = raw["super.users"];
  if (v === null || v === "") return null;
  if (typeof v !== "string") throw new ConfigError(`super.users must be principals separated by ";", got ${JSON.stringify(v)}`);
  for (const p of v.split(";").map((s) => s.trim()).filter((s) => s !== "")) {
    if (!p.includes(":")) throw new ConfigError(`super.users entry "${p}" must look like User:<name>`);
  }
  return v;
}

/** Checks every setting's type and range and returns a typed config; the error names the setting. */
export function validateConfig(raw: Raw): BrokerConfig {
  for (const k of Object.keys(raw)) if (!isKey(k)) throw new ConfigError(`unknown broker setting "${k}"`);
  const policy = str(raw, "log.cleanup.policy");
  if (!["delete", "compact", "compact,delete", "delete,compact"].includes(policy)) {
    throw new ConfigError(`log.cleanup.policy must be delete, compact or compact,delete, got "${policy}"`);
  }
  // Kafka accepts any factor ≥ 1 at start-up and refuses topic creation that cannot reach it.
  const rf = int(raw, "default.replication.factor", 1, 32767);
  const minSession = int(raw, "group.min.session.timeout.ms", 1);
  const consumerSession = int(raw, "group.consumer.session.timeout.ms", 1);
  const consumerHeartbeat = int(raw, "group.consumer.heartbeat.interval.ms", 1);
  // Kafka's GroupCoordinatorConfig requires the interval to be below the session timeout.
  if (consumerHeartbeat >= consumerSession) throw new ConfigError(`group.consumer.heartbeat.interval.ms (${consumerHeartbeat}) must be less than group.consumer.session.timeout.ms (${consumerSession})`);
  const advertisedHost = raw["advertised.host"];
  if (advertisedHost !== null && (typeof advertisedHost !== "string" || advertisedHost === "")) {
    throw new ConfigError(`advertised.host must be a host name or address, got ${JSON.stringify(advertisedHost)}`);
  }
  return {
    "node.id": int(raw, "node.id", 0, 2 ** 31 - 1),
    host: str(raw, "host"),
    port: int(raw, "port", 0, 65535),
    "advertised.host": advertisedHost,
    "advertised.port": nullableInt(raw, "advertised.port", 1, 65535),
    "metrics.port": nullableInt(raw, "metrics.port", 0, 65535),
    "log.dirs": str(raw, "log.dirs"),
    "auto.create.topics.enable": bool(raw, "auto.create.topics.enable"),
    "num.partitions": int(raw, "num.partitions", 1, 100000),
    "default.replication.factor": rf,
    "delete.topic.enable": bool(raw, "delete.topic.enable"),
    "group.initial.rebalance.delay.ms": int(raw, "group.initial.rebalance.delay.ms", 0),
    "group.min.session.timeout.ms": minSession,
    "group.max.session.timeout.ms": int(raw, "group.max.session.timeout.ms", minSession),
    "group.consumer.session.timeout.ms": consumerSession,
    "group.consumer.heartbeat.interval.ms": consumerHeartbeat,
    "log.segment.bytes": int(raw, "log.segment.bytes", 14, 2 ** 31 - 1),
    "log.roll.ms": int(raw, "log.roll.ms", 1),
    "log.retention.ms": int(raw, "log.retention.ms", -1),
    "log.retention.bytes": int(raw, "log.retention.bytes", -1),
    "log.retention.check.interval.ms": int(raw, "log.retention.check.interval.ms", 1),
    "log.cleanup.policy": policy,
    "log.flush.interval.messages": int(raw, "log.flush.interval.messages", 1),
    "log.flush.interval.ms": nullableInt(raw, "log.flush.interval.ms", 0),
    "log.flush.scheduler.interval.ms": int(raw, "log.flush.scheduler.interval.ms", 1),
    "log.flush.on.acks.all": bool(raw, "log.flush.on.acks.all"),
    "message.max.bytes": int(raw, "message.max.bytes", 0, 2 ** 31 - 1),
    "socket.request.max.bytes": int(raw, "socket.request.max.bytes", 1, 2 ** 31 - 1),
    "sasl.server.max.receive.size": int(raw, "sasl.server.max.receive.size", 1, 2 ** 31 - 1),
    "connections.max.idle.ms": int(raw, "connections.max.idle.ms", -1),
    "connection.failed.authentication.delay.ms": failedAuthDelay(raw),
    "sasl.failed.authentication.backoff.threshold": int(raw, "sasl.failed.authentication.backoff.threshold", 0, 1_000_000),
    "sasl.failed.authentication.backoff.ms": int(raw, "sasl.failed.authentication.backoff.ms", 1, 2 ** 31 - 1),
    "sasl.failed.authentication.backoff.max.ms": int(raw, "sasl.failed.authentication.backoff.max.ms", int(raw, "sasl.failed.authentication.backoff.ms", 1), 2 ** 31 - 1),
    "socket.request.receive.timeout.ms": int(raw, "socket.request.receive.timeout.ms", 1, 2 ** 31 - 1),
    "message.decompressed.max.bytes": int(raw, "message.decompressed.max.bytes", 1024, 2 ** 31 - 1),
    "max.request.partition.size.limit": int(raw, "max.request.partition.size.limit", 1, 2 ** 31 - 1),
    "fetch.max.bytes": int(raw, "fetch.max.bytes", 1024, 2 ** 31 - 1),
    "quota.window.num": int(raw, "quota.window.num", 1, 1000),
    "quota.window.size.seconds": int(raw, "quota.window.size.seconds", 1, 3600),
    "max.incremental.fetch.session.cache.slots": int(raw, "max.incremental.fetch.session.cache.slots", 0, 2 ** 31 - 1),
    "queued.max.requests.per.connection": int(raw, "queued.max.requests.per.connection", 1, 100000),
    "delete.retention.ms": int(raw, "delete.retention.ms", 0),
    "remote.log.storage.system.enable": bool(raw, "remote.log.storage.system.enable"),
    "remote.log.storage.dir": nullableStr(raw, "remote.log.storage.dir"),
    "remote.log.manager.task.interval.ms": int(raw, "remote.log.manager.task.interval.ms", 1, 2 ** 31 - 1),
    "remote.log.reader.cache.bytes": int(raw, "remote.log.reader.cache.bytes", 0),
    "log.page.cache.window.bytes": int(raw, "log.page.cache.window.bytes", -1),
    "log.direct.io": bool(raw, "log.direct.io"),
    "authorizer.class.name": authorizerClass(raw),
    "super.users": superUsers(raw),
    "allow.everyone.if.no.acl.found": bool(raw, "allow.everyone.if.no.acl.found"),
    "transaction.max.timeout.ms": int(raw, "transaction.max.timeout.ms", 1, 2 ** 31 - 1),
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": int(raw, "transaction.abort.timed.out.transaction.cleanup.interval.ms", 1, 2 ** 31 - 1),
    "transactional.id.expiration.ms": int(raw, "transactional.id.expiration.ms", 1, 2 ** 31 - 1),
    "transaction.remove.expired.transaction.cleanup.interval.ms": int(raw, "transaction.remove.expired.transaction.cleanup.interval.ms", 1, 2 ** 31 - 1),
    "transaction.partition.verification.enable": bool(raw, "transaction.partition.verification.enable"),
    ...listenerSettings(raw),
  };
}

/** Kafka (KafkaConfig) requires the delay to be below connections.max.idle.ms. */
function failedAuthDelay(raw: Raw): number {
  const delay = int(raw, "connection.failed.authentication.delay.ms", 0, 2 ** 31 - 1);
  const idle = raw["connections.max.idle.ms"];
  if (typeof idle === "number" && idle > 0 && delay >= idle) {
    throw new ConfigError(`connection.failed.authentication.delay.ms=${delay} should always be less than connections.max.idle.ms=${idle} to prevent failed authentication responses from timing out`);
  }
  return delay;
}

type ListenerSettings = Pick<
  BrokerConfig,
  "listeners" | "advertised.listeners" | "listener.security.protocol.map" | "sasl.enabled.mechanisms" | "ssl.keystore.location" | "ssl.certificate.location" | "ssl.key.location"
>;

/** Listener list, protocol map, SASL mechanisms and TLS files, checked together. */
function listenerSettings(raw: Raw): ListenerSettings {
  const out: ListenerSettings = {
    listeners: nullableStr(raw, "listeners"),
    "advertised.listeners": nullableStr(raw, "advertised.listeners"),
    "listener.security.protocol.map": str(raw, "listener.security.protocol.map"),
    "sasl.enabled.mechanisms": str(raw, "sasl.enabled.mechanisms"),
    "ssl.keystore.location": nullableStr(raw, "ssl.keystore.location"),
    "ssl.certificate.location": nullableStr(raw, "ssl.certificate.location"),
    "ssl.key.location": nullableStr(raw, "ssl.key.location"),
  };
  try {
    const map = parseProtocolMap(out["listener.security.protocol.map"]);
    const listeners = out.listeners === null ? [] : parseListeners("listeners", out.listeners, map);
    if (out["advertised.listeners"] !== null) {
      for (const a of parseListeners("advertised.listeners", out["advertised.listeners"], map)) {
        if (out.listeners !== null && !listeners.some((l) => l.name === a.name)) {
          throw new ConfigError(`advertised.listeners names ${a.name}, which is not in listeners`);
        }
        if (a.host === "0.0.0.0" || a.host === "::") throw new ConfigError(`advertised.listeners: ${a.name} must advertise a reachable host, not ${a.host}`);
      }
    }
    if (listeners.some((l) => usesTls(l.securityProtocol))) {
      const keystore = out["ssl.keystore.location"] !== null;
      const cert = out["ssl.certificate.location"] !== null;
      const key = out["ssl.key.location"] !== null;
      if (keystore ? cert || key : !(cert && key)) {
        throw new ConfigError("SSL and SASL_SSL listeners need either ssl.keystore.location (PEM key + certificate chain) or both ssl.certificate.location and ssl.key.location");
      }
    }
  } catch (err) {
    if (err instanceof ListenerConfigError) throw new ConfigError(err.message, { cause: err });
    throw err;
  }
  const mechanisms = enabledSaslMechanisms(out);
  const unknown = mechanisms.filter((m) => !(SUPPORTED_SASL_MECHANISMS as readonly string[]).includes(m));
  if (mechanisms.length === 0 || unknown.length > 0) {
    throw new ConfigError(`sasl.enabled.mechanisms must list some of ${SUPPORTED_SASL_MECHANISMS.join(", ")}, got "${out["sasl.enabled.mechanisms"]}"`);
  }
  return out;
}

/** Mechanisms of sasl.enabled.mechanisms, in order. */
export function enabledSaslMechanisms(config: Pick<BrokerConfig, "sasl.enabled.mechanisms">): string[] {
  return config["sasl.enabled.mechanisms"].split(",").map((m) => m.trim()).filter((m) => m !== "");
}

/** Programmatic options: any subset of settings, validated like the CLI's. */
export function resolveConfig(options: Partial<BrokerConfig>): BrokerConfig {
  const merged: Raw = { ...DEFAULT_CONFIG };
  for (const [k, v] of Object.entries(options)) {
    if (v !== undefined) merged[k] = v;
  }
  return validateConfig(merged);
}
