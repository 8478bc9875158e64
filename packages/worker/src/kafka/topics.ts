/*
 * Topics on the cluster: metadata, configs, creation (sent to the controller)
 * and deletion. Configs are changed with IncrementalAlterConfigs (raw), never
 * kafkajs' legacy AlterConfigs, which replaces every override of a topic and
 * would wipe settings an operator made outside the catalog.
 */
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { KafkaProtocolError } from "@kappa/kafka-protocol/client";
import type { TopicDescription, TopicSpec } from "./cluster.ts";
import type { ClusterConnections } from "./connections.ts";
import { ConfigResource, describeConfigs } from "./describe-configs.ts";

/** How often a CreateTopics answered NOT_CONTROLLER is sent again (after fresh metadata) before the task's own retry takes over. */
const NOT_CONTROLLER_ATTEMPTS = 5;

export async function listTopics(conns: ClusterConnections): Promise<string[]> {
  const meta = await conns.metadata(null);
  return [...meta.topics].filter(([name, t]) => !t.internal && !name.startsWith("__")).map(([name]) => name);
}

export async function partitionCounts(conns: ClusterConnections, topics: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const t of await conns.topicMetadata(topics)) out.set(t.name, t.partitions.length);
  return out;
}

/**
 * Partition counts and configs of the topics that exist. With `configNames`
 * only those keys are asked for (the reconcile needs the four the catalog
 * owns, not the ~40 Kafka reports per topic), in requests of 500 topics.
 */
export async function describeTopics(conns: ClusterConnections, names: string[], configNames?: string[]): Promise<Map<string, TopicDescription>> {
  const out = new Map<string, TopicDescription>();
  const meta = await conns.topicMetadata(names);
  if (meta.length === 0) return out;
  const described = await describeConfigs(conns, meta.map((t) => ({ type: ConfigResource.TOPIC, name: t.name, configNames: configNames ?? null })));
  const byName = new Map(described.map((r) => [r.name, r]));
  for (const t of meta) {
    const resource = byName.get(t.name);
    if (resource && resource.errorCode !== 0) throw new KafkaProtocolError(resource.errorCode, resource.errorMessage || `describing configs of ${t.name}`);
    const entries: Record<string, string> = {};
    for (const e of resource?.configs ?? []) if (e.value !== null) entries[e.name] = e.value;
    out.set(t.name, { name: t.name, partitions: t.partitions.length, configs: entries });
  }
  return out;
}

/**
 * CreateTopics sent to the controller (ZooKeeper-mode clusters refuse it
 * elsewhere with NOT_CONTROLLER; KRaft brokers forward it), replication
 * factor −1 = the cluster default (KIP-464, v4+). TOPIC_ALREADY_EXISTS is
 * success: another worker or a retry got there first. NOT_CONTROLLER (the
 * controller moved, or a KRaft broker could not forward during a quorum
 * election) is retried with fresh metadata, as Kafka's AdminClient does, for
 * just the topics that got it. Then waits until every partition has a leader,
 * as kafkajs' waitForLeaders does.
 */
export async function createTopics(conns: ClusterConnections, specs: TopicSpec[]): Promise<void> {
  if (specs.length === 0) return;
  let pending = specs;
  for (let attempt = 1; pending.length > 0; attempt++) {
    const meta = await conns.metadata([]);
    const controller = meta.brokers.get(meta.controller);
    const conn = controller ? await conns.raw(controller) : await conns.any();
    const version = conn.pickVersion(ApiKey.CreateTopics, 4, 7);
    const res = await conn.request(
      ApiKey.CreateTopics,
      {
        timeoutMs: 30_000,
        validateOnly: false,
        topics: pending.map((s) => ({ name: s.name, numPartitions: s.partitions, replicationFactor: -1, assignments: [], configs: Object.entries(s.configs).map(([name, value]) => ({ name, value })) })),
      },
      version,
    );
    const retry = new Set<string>();
    for (const t of res.topics) {
      if (t.errorCode === ErrorCode.NOT_CONTROLLER && attempt < NOT_CONTROLLER_ATTEMPTS) retry.add(t.name);
      else if (t.errorCode !== 0 && t.errorCode !== ErrorCode.TOPIC_ALREADY_EXISTS) throw new KafkaProtocolError(t.errorCode, t.errorMessage ?? `creating topic ${t.name}`);
    }
    pending = pending.filter((s) => retry.has(s.name));
    if (pending.length > 0) await new Promise((r) => setTimeout(r, 100 * attempt));
  }
  const names = specs.map((s) => s.name);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const now = await conns.metadata(names);
    const ready = names.every((n) => {
      const t = now.topics.get(n);
      return t !== undefined && t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0);
    });
    if (ready) return;
    if (Date.now() > deadline) throw new Error(`topics ${names.join(", ")} have no leaders 10 s after creation`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function createPartitions(conns: ClusterConnections, topic: string, count: number): Promise<void> {
  const admin = await conns.admin();
  await admin.createPartitions({ topicPartitions: [{ topic, count }] });
}

export async function setTopicConfigs(conns: ClusterConnections, topic: string, configs: Record<string, string>): Promise<void> {
  const entries = Object.entries(configs);
  if (entries.length === 0) return;
  const conn = await conns.any();
  const version = conn.pickVersion(ApiKey.IncrementalAlterConfigs, 0, 1);
  const res = await conn.request(
    ApiKey.IncrementalAlterConfigs,
    {
      validateOnly: false,
      // configOperation 0 = SET (AlterConfigOp.OpType); resource type 2 = TOPIC.
      resources: [{ resourceType: 2, resourceName: topic, configs: entries.map(([name, value]) => ({ name, configOperation: 0, value })) }],
    },
    version,
  );
  for (const r of res.responses) {
    if (r.errorCode !== 0) throw new KafkaProtocolError(r.errorCode, r.errorMessage ?? `altering configs of ${topic}`);
  }
}

export async function deleteTopics(conns: ClusterConnections, names: string[]): Promise<void> {
  if (names.length === 0) return;
  const admin = await conns.admin();
  await admin.deleteTopics({ topics: names });
}
