// Broker settings from text: `name=value` pairs (CLI `--override`, `--name=value`,
// a Java-properties file) parsed by each setting's kind, Kafka's derived names
// (log.retention.hours, log.roll.hours, listeners → host/port) and the CLI flags.
// Everything ends in validateConfig (config.ts), so text and programmatic
// settings are checked by the same rules.
import { readFileSync } from "node:fs";
import { ConfigError, DEFAULT_CONFIG, validateConfig, type BrokerConfig, type RawSettings } from "./config.ts";

type Kind = "int" | "bool" | "string" | "nullableInt" | "nullableString";

const KINDS: { [K in keyof BrokerConfig]: Kind } = {
  "node.id": "int",
  host: "string",
  port: "int",
  "advertised.host": "nullableString",
  "advertised.port": "nullableInt",
  "metrics.port": "nullableInt",
  "log.dirs": "string",
  "auto.create.topics.enable": "bool",
  "num.partitions": "int",
  "default.replication.factor": "int",
  "delete.topic.enable": "bool",
  "group.initial.rebalance.delay.ms": "int",
  "group.min.session.timeout.ms": "int",
  "group.max.session.timeout.ms": "int",
  "group.consumer.session.timeout.ms": "int",
  "group.consumer.heartbeat.interval.ms": "int",
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
  "sasl.server.max.receive.size": "int",
  "connections.max.idle.ms": "int",
  "connection.failed.authentication.delay.ms": "int",
  "sasl.failed.authentication.backoff.threshold": "int",
  "sasl.failed.authentication.backoff.ms": "int",
  "sasl.failed.authentication.backoff.max.ms": "int",
  "socket.request.receive.timeout.ms": "int",
  "message.decompressed.max.bytes": "int",
  "max.request.partition.size.limit": "int",
  "fetch.max.bytes": "int",
  "quota.window.num": "int",
  "quota.window.size.seconds": "int",
  "max.incremental.fetch.session.cache.slots": "int",
  "queued.max.requests.per.connection": "int",
  "delete.retention.ms": "int",
  "remote.log.storage.system.enable": "bool",
  "remote.log.storage.dir": "nullableString",
  "remote.log.manager.task.interval.ms": "int",
  "remote.log.reader.cache.bytes": "int",
  "log.page.cache.window.bytes": "int",
  "log.direct.io": "bool",
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
  const out: RawSettings = { ...base };
  for (const [rawName, value] of Object.entries(settings)) {
    const name = ALIASES[rawName] ?? rawName;
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
