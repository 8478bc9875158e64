// Shared by DescribeConfigs, AlterConfigs and IncrementalAlterConfigs.
import { ErrorCode } from "@kappa/kafka-protocol";
import type { BrokerConfig } from "../config.ts";
import { DEFAULT_CONFIG } from "../config.ts";
import type { ConfigEntryView } from "../logs.ts";
import type { RequestContext } from "../registry.ts";
import { errorOf } from "./common.ts";

/** ConfigResource.Type codes (BROKER-SPEC §3). */
export const ResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8 } as const;
/** DescribeConfigsResponse.ConfigSource codes. */
export const ConfigSourceCode = { TOPIC_CONFIG: 1, STATIC_BROKER_CONFIG: 4, DEFAULT_CONFIG: 5 } as const;
/** DescribeConfigs v3 config_type codes. */
const ConfigTypeCode = { BOOLEAN: 1, STRING: 2, INT: 3, LONG: 5 } as const;

/** Broker resources are named by node id; "" means the cluster-wide default. */
export function brokerResourceProblem(ctx: RequestContext, name: string): { code: number; message: string } | null {
  if (name === "" || name === String(ctx.broker.nodeId)) return null;
  return { code: ErrorCode.INVALID_REQUEST, message: `Unexpected broker id, expected ${ctx.broker.nodeId} or empty string, but received ${name}` };
}

/**
 * The broker settings Kafka 4.1 changes at run time (DynamicBrokerConfig.AllDynamicConfigs; listener-prefixed
 * forms aside). Kafka checks a BROKER resource's AlterConfigs / IncrementalAlterConfigs before it authorizes them
 * (ConfigAdminManager.preprocess): a setting outside this list is refused with INVALID_REQUEST "Cannot update
 * these configs dynamically: Set(…)", authorized or not. This broker changes no setting at run time: a change
 * Kafka would make is refused after authorization (INVALID_CONFIG).
 */
const KAFKA_DYNAMIC_BROKER_CONFIGS: ReadonlySet<string> = new Set([
  "background.threads", "compression.gzip.level", "compression.lz4.level", "compression.type",
  "compression.zstd.level", "listener.security.protocol.map", "listeners", "log.cleaner.backoff.ms",
  "log.cleaner.dedupe.buffer.size", "log.cleaner.delete.retention.ms", "log.cleaner.io.buffer.load.factor",
  "log.cleaner.io.buffer.size", "log.cleaner.io.max.bytes.per.second", "log.cleaner.max.compaction.lag.ms",
  "log.cleaner.min.cleanable.ratio", "log.cleaner.min.compaction.lag.ms", "log.cleaner.threads",
  "log.cleanup.policy", "log.flush.interval.messages", "log.flush.interval.ms", "log.index.interval.bytes",
  "log.index.size.max.bytes", "log.local.retention.bytes", "log.local.retention.ms",
  "log.message.timestamp.after.max.ms", "log.message.timestamp.before.max.ms", "log.message.timestamp.type",
  "log.preallocate", "log.retention.bytes", "log.retention.ms", "log.roll.jitter.ms", "log.roll.ms",
  "log.segment.bytes", "log.segment.delete.delay.ms", "max.connection.creation.rate", "max.connections",
  "max.connections.per.ip", "max.connections.per.ip.overrides", "message.max.bytes", "metric.reporters",
  "min.insync.replicas", "num.io.threads", "num.network.threads", "num.recovery.threads.per.data.dir",
  "num.replica.fetchers", "principal.builder.class", "producer.id.expiration.ms", "remote.fetch.max.wait.ms",
  "remote.list.offsets.request.timeout.ms", "remote.log.index.file.cache.total.size.bytes",
  "remote.log.manager.copier.thread.pool.size", "remote.log.manager.copy.max.bytes.per.second",
  "remote.log.manager.expiration.thread.pool.size", "remote.log.manager.fetch.max.bytes.per.second",
  "remote.log.reader.threads", "sasl.enabled.mechanisms", "sasl.jaas.config", "sasl.kerberos.kinit.cmd",
  "sasl.kerberos.min.time.before.relogin", "sasl.kerberos.principal.to.local.rules", "sasl.kerberos.service.name",
  "sasl.kerberos.ticket.renew.jitter", "sasl.kerberos.ticket.renew.window.factor",
  "sasl.login.refresh.buffer.seconds", "sasl.login.refresh.min.period.seconds", "sasl.login.refresh.window.factor",
  "sasl.login.refresh.window.jitter", "sasl.mechanism.inter.broker.protocol", "ssl.cipher.suites", "ssl.client.auth",
  "ssl.enabled.protocols", "ssl.endpoint.identification.algorithm", "ssl.engine.factory.class", "ssl.key.password",
  "ssl.keymanager.algorithm", "ssl.keystore.certificate.chain", "ssl.keystore.key", "ssl.keystore.location",
  "ssl.keystore.password", "ssl.keystore.type", "ssl.protocol", "ssl.provider", "ssl.secure.random.implementation",
  "ssl.trustmanager.algorithm", "ssl.truststore.certificates", "ssl.truststore.location", "ssl.truststore.password",
  "ssl.truststore.type", "transaction.partition.verification.enable", "unclean.leader.election.enable",
]);

/** Kafka's answer, before authorization, to setting `names` of a BROKER resource named `resourceName` (see above). */
export function brokerConfigChangeProblem(ctx: RequestContext, resourceName: string, names: readonly string[]): { code: number; message: string } | null {
  const idProblem = brokerResourceProblem(ctx, resourceName);
  if (idProblem) return idProblem;
  const fixed = names.filter((n) => !KAFKA_DYNAMIC_BROKER_CONFIGS.has(n) && !n.startsWith("listener.name."));
  return fixed.length > 0 ? { code: ErrorCode.INVALID_REQUEST, message: `Cannot update these configs dynamically: Set(${fixed.join(", ")})` } : null;
}

/** A setting's value as Kafka shows it (the broker's settings are strings, numbers and booleans). */
function configText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return typeof v === "string" ? v : JSON.stringify(v);
}

function configType(v: unknown): number {
  if (typeof v === "boolean") return ConfigTypeCode.BOOLEAN;
  if (typeof v === "number") return ConfigTypeCode.LONG;
  return ConfigTypeCode.STRING;
}

/** Broker settings as DescribeConfigs rows; static (read-only) as in Kafka for these settings. */
export function describeBrokerConfigs(config: BrokerConfig, keys: string[] | null): ConfigEntryView[] {
  const rows: ConfigEntryView[] = [];
  const defaults = new Map<string, unknown>(Object.entries(DEFAULT_CONFIG));
  const entries: Array<[string, unknown, unknown]> = Object.entries(config).map(([k, v]) => [k, v, defaults.get(k)]);
  entries.push(["broker.id", config["node.id"], DEFAULT_CONFIG["node.id"]]);
  for (const [name, value, def] of entries) {
    if (name === "host" || name === "port" || name === "advertised.host" || name === "advertised.port") continue;
    if (keys !== null && !keys.includes(name)) continue;
    const isDefault = value === def;
    rows.push({
      name,
      value: configText(value),
      readOnly: true,
      isDefault,
      source: isDefault ? ConfigSourceCode.DEFAULT_CONFIG : ConfigSourceCode.STATIC_BROKER_CONFIG,
      isSensitive: false,
      configType: configType(value),
      documentation: null,
      // Kafka lists the static setting, then its default.
      synonyms: [
        ...(isDefault ? [] : [{ name, value: configText(value), source: ConfigSourceCode.STATIC_BROKER_CONFIG }]),
        { name, value: configText(def), source: ConfigSourceCode.DEFAULT_CONFIG },
      ],
    });
  }
  // Named settings are answered in the order they were asked for.
  if (keys !== null && keys.length > 0) rows.sort((a, b) => keys.indexOf(a.name) - keys.indexOf(b.name));
  return rows;
}

/**
 * The step AlterConfigs and IncrementalAlterConfigs both end with: validate a
 * topic's complete new set of overrides and, unless validate_only, store it.
 * Returns the per-resource error code and message.
 */
export async function applyTopicOverrides(
  ctx: RequestContext,
  topic: string,
  overrides: Record<string, string>,
  validateOnly: boolean,
): Promise<{ code: number; message: string | null }> {
  const b = ctx.broker;
  const problems = b.logs.validateTopicConfigs(overrides);
  if (problems.length > 0) return { code: ErrorCode.INVALID_CONFIG, message: problems.map((p) => p.message).join("; ") };
  if (validateOnly) return { code: ErrorCode.NONE, message: null };
  try {
    await b.logs.setTopicConfigs(topic, overrides);
    b.logger.info(`topic ${topic} configs set to ${JSON.stringify(overrides)}`);
    return { code: ErrorCode.NONE, message: null };
  } catch (err) {
    return errorOf(ctx, err, `altering configs of ${topic}`);
  }
}
