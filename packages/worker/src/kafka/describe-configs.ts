/*
 * DescribeConfigs over the raw protocol (v1+), for every reader of configs in
 * the worker: topic resources go to any broker, a broker resource to that
 * broker, as Kafka's AdminClient sends them. Not through kafkajs' admin: it
 * refreshes the metadata of its "target topics" before every describeConfigs,
 * and with none it asks for every topic (its encoder sends an empty list as
 * null) — at 10,000 topics × 6 partitions a ~2 MB Metadata answer per call,
 * which made the reconcile's topic section 4 of its 6.7 s.
 */
import { ApiKey } from "@kappa/kafka-protocol";
import { groupBy } from "../group-by.ts";
import type { ClusterConnections } from "./connections.ts";

/** DescribeConfigs resource types (Kafka's ConfigResource.Type). */
export const ConfigResource = { TOPIC: 2, BROKER: 4 } as const;
/** ConfigSource of an override set on the topic itself (KIP-226). */
export const DYNAMIC_TOPIC_CONFIG = 1;
/** ConfigSource of a value nobody set. */
const DEFAULT_CONFIG = 5;

/** Resources per DescribeConfigs request: bounded answers at 10,000 topics. */
const RESOURCES_PER_REQUEST = 500;

export interface ConfigQuery {
  type: (typeof ConfigResource)[keyof typeof ConfigResource];
  name: string;
  /** Only these keys; absent or null: all of them. */
  configNames?: string[] | null;
}

export interface DescribedConfig {
  name: string;
  value: string | null;
  /** Kafka's ConfigSource (1 = set on the topic, 5 = default, …). */
  source: number;
  isDefault: boolean;
  isSensitive: boolean;
}

export interface DescribedResource {
  type: number;
  name: string;
  errorCode: number;
  errorMessage: string | null;
  configs: DescribedConfig[];
}

/** The answers for `resources`, in pages of 500 per broker; a resource's error is in its entry, not thrown. */
export async function describeConfigs(conns: ClusterConnections, resources: readonly ConfigQuery[]): Promise<DescribedResource[]> {
  if (resources.length === 0) return [];
  const brokers = resources.some((r) => r.type === ConfigResource.BROKER) ? await conns.brokerAddresses() : new Map<number, string>();
  // A broker the metadata does not list: asked of any broker (null), which answers with the resource's error.
  const byAddress = groupBy(
    resources,
    (r) => (r.type === ConfigResource.BROKER ? (brokers.get(Number(r.name)) ?? null) : null),
    (r) => r,
  );
  const out: DescribedResource[] = [];
  for (const [address, list] of byAddress) {
    const conn = address === null ? await conns.any() : await conns.raw(address);
    const version = conn.pickVersion(ApiKey.DescribeConfigs, 1, 4);
    for (let i = 0; i < list.length; i += RESOURCES_PER_REQUEST) {
      const res = await conn.request(
        ApiKey.DescribeConfigs,
        {
          resources: list.slice(i, i + RESOURCES_PER_REQUEST).map((r) => ({ resourceType: r.type, resourceName: r.name, configurationKeys: r.configNames ?? null })),
          includeSynonyms: false,
          includeDocumentation: false,
        },
        version,
      );
      for (const r of res.results) {
        out.push({
          type: r.resourceType,
          name: r.resourceName,
          errorCode: r.errorCode,
          errorMessage: r.errorMessage,
          configs: r.configs.map((c) => ({ name: c.name, value: c.value, source: c.configSource, isDefault: c.configSource === DEFAULT_CONFIG, isSensitive: c.isSensitive })),
        });
      }
    }
  }
  return out;
}
