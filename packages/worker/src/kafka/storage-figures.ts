/*
 * Bytes on the brokers' disks (DescribeLogDirs) and in the remote tier. A
 * cluster that cannot say answers null ("unknown"), never 0.
 */
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { KafkaProtocolError, UnsupportedApiError } from "@kappa/kafka-protocol/client";
import type { PerPartition, TopicPartitions } from "./cluster.ts";
import type { ClusterConnections } from "./connections.ts";
import { ConfigResource, describeConfigs } from "./describe-configs.ts";
import type { RemoteLogSizes } from "./remote-log-metadata.ts";

/** Read-only topic config through which the project's broker reports tiered bytes per partition (packages/broker/README.md). */
export const REMOTE_LOG_SIZE_CONFIG = "kappa.remote.log.size.bytes";

/** Kafka errors that mean "the cluster has no such feature", which the observer reports as unknown. */
function isUnsupported(error: unknown): boolean {
  return error instanceof UnsupportedApiError || (error instanceof KafkaProtocolError && (error.code === ErrorCode.UNSUPPORTED_VERSION || error.code === ErrorCode.SECURITY_DISABLED));
}

/** Per topic, 0 for every partition until a broker reports it (a partition with no replica on any disk holds 0 bytes). */
function zeros(topics: TopicPartitions[]): PerPartition<bigint> {
  return new Map(topics.map((t) => [t.topic, new Array<bigint>(t.partitions).fill(0n)]));
}

export async function localBytes(conns: ClusterConnections, wanted: TopicPartitions[]): Promise<PerPartition<bigint> | null> {
  if (wanted.length === 0) return new Map();
  const addresses = await conns.brokerAddresses();
  const out = zeros(wanted);
  try {
    // Every broker reports only its own replicas; the leader's size is what
    // a consumer reads from, so with replication we keep the largest replica.
    await Promise.all(
      [...addresses.values()].map(async (address) => {
        const conn = await conns.raw(address);
        const version = conn.pickVersion(ApiKey.DescribeLogDirs, 1, 4);
        const res = await conn.request(ApiKey.DescribeLogDirs, { topics: wanted.map((t) => ({ topic: t.topic, partitions: Array.from({ length: t.partitions }, (_, p) => p) })) }, version);
        if (res.errorCode !== 0) throw new KafkaProtocolError(res.errorCode, "DescribeLogDirs failed");
        for (const dir of res.results) {
          if (dir.errorCode !== 0) continue; // an offline log dir holds nothing readable
          for (const t of dir.topics) {
            for (const p of t.partitions) {
              if (p.isFutureKey) continue;
              const values = out.get(t.name);
              if (!values || p.partitionIndex >= values.length) continue;
              if (p.partitionSize > (values[p.partitionIndex] ?? 0n)) values[p.partitionIndex] = p.partitionSize;
            }
          }
        }
      }),
    );
  } catch (error) {
    if (isUnsupported(error)) return null;
    throw error;
  }
  return out;
}

/**
 * Bytes in the remote tier per partition. The project's broker reports them as
 * a read-only topic config, `kappa.remote.log.size.bytes` (one value per
 * partition, comma-separated). Apache Kafka has no such config and exposes the
 * size only as a JMX metric (RemoteLogSizeBytes); there the sizes come from the
 * segments its topic-based remote log metadata manager recorded
 * (remote-log-metadata.ts). Neither: unknown (null), never a guess.
 */
export async function remoteBytes(conns: ClusterConnections, wanted: TopicPartitions[], tierLog?: RemoteLogSizes): Promise<PerPartition<bigint> | null> {
  if (wanted.length === 0) return new Map();
  const fromConfig = await remoteBytesFromConfig(conns, wanted);
  if (fromConfig !== "absent") return fromConfig;
  if (!tierLog || !(await tierLog.refresh(conns))) return null;
  const meta = await conns.metadata(wanted.map((t) => t.topic));
  return tierLog.sizes(wanted, new Map([...meta.topics].map(([name, t]) => [name, t.topicId])));
}

async function remoteBytesFromConfig(conns: ClusterConnections, wanted: TopicPartitions[]): Promise<PerPartition<bigint> | null | "absent"> {
  const topics = wanted.map((t) => t.topic);
  const out = zeros(wanted);
  // One config key per topic (500 topics per DescribeConfigs request).
  for (const r of await describeConfigs(conns, topics.map((name) => ({ type: ConfigResource.TOPIC, name, configNames: [REMOTE_LOG_SIZE_CONFIG] })))) {
    if (r.errorCode !== 0) return null;
    const entry = r.configs.find((e) => e.name === REMOTE_LOG_SIZE_CONFIG);
    if (!entry || entry.value === null) return "absent";
    const values = out.get(r.name);
    entry.value.split(",").forEach((v, partition) => {
      if (values && partition < values.length && /^\d+$/.test(v.trim())) values[partition] = BigInt(v.trim());
    });
  }
  return out;
}
