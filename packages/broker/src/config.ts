// Broker settings, with Apache Kafka's property names and defaults wherever Kafka
// has the setting. Parsed once at start-up (from CLI flags, a Java-properties file
// or a programmatic object) and validated by hand so that every failure names the
// setting that is wrong.
import { readFileSync } from "node:fs";
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
  "log.dirs": string;
  "auto.create.topics.enable": boolean;
  "num.partitions": number;
  "default.replication.factor": number;
  "group.initial.rebalance.delay.ms": number;
  "group.min.session.timeout.ms": number;
  "group.max.session.timeout.ms": number;
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
  /** Upper bound on a Fetch response's record bytes regardless of what the client asks (Kafka's fetch.max.bytes). */
  "fetch.max.bytes": number;
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
  "log.dirs": "/tmp/kafka-logs",
  "auto.create.topics.enable": true,
  "num.partitions": 1,
  "default.replication.factor": 1,
  "group.initial.rebalance.delay.ms": 3000,
  "group.min.session.timeout.ms": 6000,
  "group.max.session.timeout.ms": 1800000,
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
  "fetch.max.bytes": 57671680,
  "queued.max.requests.per.connection": 32,
  "delete.retention.ms": 86400000,
  "remote.log.storage.system.enable": false,
  "remote.log.storage.dir": null,
  "remote.log.manager.task.interval.ms": 30000,
  "remote.log.reader.cache.bytes": 64 * 1024 * 1024,
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

type Kind = "int" | "bool" | "string" | "nullableInt" | "nullableString";

const KINDS: { [K in keyof BrokerConfig]: Kind } = {
  "node.id": "int",
  host: "string",
  port: "int",
  "advertised.host": "nullableString",
  "advertised.port": "nullableInt",
  "log.dirs": "string",
  "auto.create.topics.enable": "bool",
  "num.partitions": "int",
  "default.replication.factor": "int",
  "group.initial.rebalance.delay.ms": "int",
  "group.min.session.timeout.ms": "int",
  "group.max.session.timeout.ms": "int",
  "log.segment.bytes": "int",
  "log.roll.ms": "int",
  "log.retention.ms": "int",
  "log.retention.bytes": "int",
  "log.retention.check.interval.ms": "int",
  "log.cleanup.policy": "string",
  "log.flush.interval.messages": "int",
  "log.flush.interval.ms": "nullableInt",
  "log.flush.scheduler.interval.ms": "int",
  "log.flush.on.acks.all": "bool",
  "message.max.bytes": "int",
  "socket.request.max.bytes": "int",
  "fetch.max.bytes": "int",
  "queued.max.requests.per.connection": "int",
  "delete.retention.ms": "int",
  "remote.log.storage.system.enable": "bool",
  "remote.log.storage.dir": "nullableString",
  "remote.log.manager.task.interval.ms": "int",
  "remote.log.reader.cache.bytes": "int",
  "authorizer.class.name": "nullableString",
  "super.users": "nullableString",
  "allow.everyone.if.no.acl.found": "bool",
  listeners: "nullableString",
  "advertised.listeners": "nullableString",
  "listener.security.protocol.map": "string",
  "sasl.enabled.mechanisms": "string",
  "ssl.keystore.location": "nullableString",
  "ssl.certificate.location": "nullableString",
  "ssl.key.location": "nullableString",
  "transaction.max.timeout.ms": "int",
  "transaction.abort.timed.out.transaction.cleanup.interval.ms": "int",
  "transactional.id.expiration.ms": "int",
  "transaction.remove.expired.transaction.cleanup.interval.ms": "int",
  "transaction.partition.verification.enable": "bool",
};

/** Kafka names that map onto another setting here (Kafka derives them too). */
const ALIASES: Record<string, keyof BrokerConfig> = {
  "broker.id": "node.id",
  "log.dir": "log.dirs",
};

function isKey(name: string): name is keyof BrokerConfig {
  return Object.prototype.hasOwnProperty.call(KINDS, name);
}

function parseValue(name: string, kind: Kind, raw: string): BrokerConfig[keyof BrokerConfig] {
  const text = raw.trim();
  switch (kind) {
    case "string":
      if (text === "") throw new ConfigError(`${name} must not be empty`);
      return text;
    case "nullableString":
      return text === "" ? null : text;
    case "bool":
      if (text === "true") return true;
      if (text === "false") return false;
      throw new ConfigError(`${name} must be true or false, got "${raw}"`);
    case "int":
    case "nullableInt": {
      if (kind === "nullableInt" && text === "") return null;
      if (!/^-?\d+$/.test(text)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
      const n = Number(text);
      // Kafka uses Long.MAX_VALUE as "never"; clamp instead of losing precision.
      return Number.isSafeInteger(n) ? n : n > 0 ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
    }
  }
}

/** Parse `key=value` settings (already split) on top of `base`. Unknown names are refused. */
export function applySettings(base: BrokerConfig, settings: Record<string, string>): BrokerConfig {
  const out: Raw = { ...base };
  for (const [rawName, value] of Object.entries(settings)) {
    let name = ALIASES[rawName] ?? rawName;
    if (rawName === "listeners") {
      const m = /^(?:[A-Z_]+:\/\/)?\[?([^\]]*)\]?:(\d+)$/.exec(value.trim().split(",")[0] ?? "");
      if (!m) throw new ConfigError(`listeners must look like PLAINTEXT://host:port, got "${value}"`);
      out.host = m[1] === "" ? "0.0.0.0" : (m[1] ?? "0.0.0.0");
      out.port = Number(m[2]);
      // The full list (every listener and its protocol) is validated in listenerSettings.
      out.listeners = value.trim();
      continue;
    }
    if (rawName === "advertised.listeners") {
      const m = /^(?:[A-Z_]+:\/\/)?\[?([^\]]*)\]?:(\d+)$/.exec(value.trim().split(",")[0] ?? "");
      if (!m || !m[1]) throw new ConfigError(`advertised.listeners must look like PLAINTEXT://host:port, got "${value}"`);
      out["advertised.host"] = m[1];
      out["advertised.port"] = Number(m[2]);
      out["advertised.listeners"] = value.trim();
      continue;
    }
    if (rawName === "log.retention.hours" || rawName === "log.retention.minutes") {
      const v = parseValue(rawName, "int", value);
      if (typeof v !== "number") throw new ConfigError(`${rawName} must be an integer`);
      out["log.retention.ms"] = v < 0 ? -1 : v * (rawName === "log.retention.hours" ? 3600000 : 60000);
      continue;
    }
    if (rawName === "log.roll.hours") {
      const v = parseValue(rawName, "int", value);
      if (typeof v !== "number") throw new ConfigError(`${rawName} must be an integer`);
      out["log.roll.ms"] = v * 3600000;
      continue;
    }
    if (!isKey(name)) throw new ConfigError(`unknown broker setting "${rawName}"`);
    out[name] = parseValue(name, KINDS[name], value);
  }
  return validateConfig(out);
}

type Raw = Record<string, unknown>;

function int(raw: Raw, name: keyof BrokerConfig, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const v = raw[name];
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    throw new ConfigError(`${name} must be an integer in [${min}, ${max}], got ${String(v)}`);
  }
  return v;
}
function nullableInt(raw: Raw, name: keyof BrokerConfig, min: number, max = Number.MAX_SAFE_INTEGER): number | null {
  return raw[name] === null ? null : int(raw, name, min, max);
}
function bool(raw: Raw, name: keyof BrokerConfig): boolean {
  const v = raw[name];
  if (typeof v !== "boolean") throw new ConfigError(`${name} must be true or false, got ${String(v)}`);
  return v;
}
function str(raw: Raw, name: keyof BrokerConfig): string {
  const v = raw[name];
  if (typeof v !== "string" || v === "") throw new ConfigError(`${name} must be a non-empty string, got ${String(v)}`);
  return v;
}

function nullableStr(raw: Raw, name: keyof BrokerConfig): string | null {
  const v = raw[name];
  if (v === null) return null;
  if (typeof v !== "string" || v === "") throw new ConfigError(`${name} must be a non-empty string or unset, got ${String(v)}`);
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
    throw new ConfigError(`authorizer.class.name must be empty, "none" or one of ${STANDARD_AUTHORIZER_NAMES.join(", ")}, got ${String(v)}`);
  }
  return v;
}

function superUsers(raw: Raw): string | null {
  const v = raw["super.users"];
  if (v === null || v === "") return null;
  if (typeof v !== "string") throw new ConfigError(`super.users must be principals separated by ";", got ${String(v)}`);
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
  // Replication does not exist on a single node; Kafka itself refuses a factor above the broker count.
  const rf = int(raw, "default.replication.factor", -1, 32767);
  if (rf !== 1 && rf !== -1) throw new ConfigError(`default.replication.factor must be 1 on a single-node broker, got ${rf}`);
  const minSession = int(raw, "group.min.session.timeout.ms", 1);
  const advertisedHost = raw["advertised.host"];
  if (advertisedHost !== null && (typeof advertisedHost !== "string" || advertisedHost === "")) {
    throw new ConfigError(`advertised.host must be a host name or address, got ${String(advertisedHost)}`);
  }
  return {
    "node.id": int(raw, "node.id", 0, 2 ** 31 - 1),
    host: str(raw, "host"),
    port: int(raw, "port", 0, 65535),
    "advertised.host": advertisedHost,
    "advertised.port": nullableInt(raw, "advertised.port", 1, 65535),
    "log.dirs": str(raw, "log.dirs"),
    "auto.create.topics.enable": bool(raw, "auto.create.topics.enable"),
    "num.partitions": int(raw, "num.partitions", 1, 100000),
    "default.replication.factor": 1,
    "group.initial.rebalance.delay.ms": int(raw, "group.initial.rebalance.delay.ms", 0),
    "group.min.session.timeout.ms": minSession,
    "group.max.session.timeout.ms": int(raw, "group.max.session.timeout.ms", minSession),
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
    "fetch.max.bytes": int(raw, "fetch.max.bytes", 1024, 2 ** 31 - 1),
    "queued.max.requests.per.connection": int(raw, "queued.max.requests.per.connection", 1, 100000),
    "delete.retention.ms": int(raw, "delete.retention.ms", 0),
    "remote.log.storage.system.enable": bool(raw, "remote.log.storage.system.enable"),
    "remote.log.storage.dir": nullableStr(raw, "remote.log.storage.dir"),
    "remote.log.manager.task.interval.ms": int(raw, "remote.log.manager.task.interval.ms", 1, 2 ** 31 - 1),
    "remote.log.reader.cache.bytes": int(raw, "remote.log.reader.cache.bytes", 0),
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

/** Java-properties subset: `key=value` or `key: value`, `#`/`!` comments, `\` line continuations. */
export function parseProperties(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = (lines[i] ?? "").trim();
    if (line === "" || line.startsWith("#") || line.startsWith("!")) continue;
    while (line.endsWith("\\") && i + 1 < lines.length) {
      line = line.slice(0, -1) + (lines[++i] ?? "").trim();
    }
    const m = /^([^=:\s]+)\s*[=:\s]\s*(.*)$/.exec(line);
    if (!m || m[1] === undefined) throw new ConfigError(`config file line ${i + 1}: expected key=value, got "${line}"`);
    out[m[1]] = m[2] ?? "";
  }
  return out;
}

const FLAG_TO_SETTING: Record<string, string> = {
  "--port": "port",
  "--host": "host",
  "--data-dir": "log.dirs",
  "--node-id": "node.id",
  "--advertised-host": "advertised.host",
  "--advertised-port": "advertised.port",
};

export const CLI_USAGE = `usage: kappa-broker [--port <port>] [--host <host>] [--data-dir <dir>] [--node-id <id>]
                    [--advertised-host <host>] [--advertised-port <port>] [--remote-dir <dir>]
                    [--config <server.properties>] [--override <name>=<value>]...
                    [--sasl-admin <user>:<password>] [--sasl-user <user>:<password>]...
--sasl-admin turns on a SASL_PLAINTEXT listener (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) and the ACL
authorizer with that user as super user; --sasl-user adds ordinary users at start-up.
Any Kafka broker setting can be given as --override name=value or as --name=value (e.g. --num.partitions=3).`;

/**
 * CLI flags → config. Precedence: defaults < --config file < flags (in order given).
 * The standalone CLI keeps Kafka's default auto.create.topics.enable=true.
 */
export function configFromArgs(argv: readonly string[], base: BrokerConfig = DEFAULT_CONFIG): BrokerConfig {
  const settings: Array<[string, string]> = [];
  let fileSettings: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const next = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new ConfigError(`${arg} needs a value`);
      return v;
    };
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    if (flag === "--config") {
      const path = inline ?? next();
      try {
        fileSettings = parseProperties(readFileSync(path, "utf8"));
      } catch (err) {
        if (err instanceof ConfigError) throw err;
        throw new ConfigError(`cannot read config file ${path}: ${(err as Error).message}`);
      }
    } else if (flag === "--override") {
      const kv = inline ?? next();
      const k = kv.indexOf("=");
      if (k <= 0) throw new ConfigError(`--override expects name=value, got "${kv}"`);
      settings.push([kv.slice(0, k), kv.slice(k + 1)]);
    } else if (flag === "--remote-dir") {
      // Tiered storage with the folder store: both the folder and the broker switch.
      settings.push(["remote.log.storage.dir", inline ?? next()], ["remote.log.storage.system.enable", "true"]);
    } else if (FLAG_TO_SETTING[flag] !== undefined) {
      settings.push([FLAG_TO_SETTING[flag], inline ?? next()]);
    } else if (flag.startsWith("--") && flag.includes(".")) {
      settings.push([flag.slice(2), inline ?? next()]);
    } else {
      throw new ConfigError(`unknown argument "${arg}"\n${CLI_USAGE}`);
    }
  }
  const merged: Record<string, string> = { ...fileSettings };
  for (const [k, v] of settings) merged[k] = v;
  return applySettings(base, merged);
}

/** Programmatic options: any subset of settings, validated like the CLI's. */
export function resolveConfig(options: Partial<BrokerConfig>): BrokerConfig {
  const merged: Raw = { ...DEFAULT_CONFIG };
  for (const [k, v] of Object.entries(options)) {
    if (v !== undefined) merged[k] = v;
  }
  return validateConfig(merged);
}
