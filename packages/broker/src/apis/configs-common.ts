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
