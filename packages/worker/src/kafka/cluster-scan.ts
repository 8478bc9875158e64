/*
 * What the cluster scan (observe/cluster-scan.ts) asks Kafka beyond the
 * observer's figures: the topic-level config overrides of topics the catalog
 * does not manage, and every committed offset of every consumer group (who
 * reads what, for observed lineage and the topic browser).
 */
import { ApiKey } from "@kappa/kafka-protocol";
import { groupBy } from "../group-by.ts";
import type { GroupCommits } from "./cluster.ts";
import type { ClusterConnections } from "./connections.ts";
import { ConfigResource, describeConfigs, DYNAMIC_TOPIC_CONFIG } from "./describe-configs.ts";

/**
 * Configs set on each topic (not broker defaults), in pages of 500 topics per
 * DescribeConfigs. A topic the admin may not describe is absent.
 */
export async function topicOverrides(conns: ClusterConnections, names: string[]): Promise<Map<string, Record<string, string>>> {
  const out = new Map<string, Record<string, string>>();
  if (names.length === 0) return out;
  for (const r of await describeConfigs(conns, names.map((name) => ({ type: ConfigResource.TOPIC, name })))) {
    if (r.errorCode !== 0) continue;
    const set: Record<string, string> = {};
    for (const e of r.configs) {
      if (e.source === DYNAMIC_TOPIC_CONFIG) set[e.name] = e.isSensitive ? "(sensitive)" : (e.value ?? "");
    }
    out.set(r.name, set);
  }
  return out;
}


/**
 * Every committed offset of each group: one batched FindCoordinator, then one
 * OffsetFetch with `topics: null` (= all topics) per coordinator and 200 groups
 * (v8+, KIP-709), one per group on older clusters. A group whose read fails is
 * returned with its error code instead of failing the whole scan.
 */
export async function allCommittedOffsets(conns: ClusterConnections, groupIds: string[]): Promise<Map<string, GroupCommits>> {
  const out = new Map<string, GroupCommits>();
  if (groupIds.length === 0) return out;
  const coordinators = await conns.groupCoordinators(groupIds);
  const byCoordinator = groupBy(
    coordinators,
    ([, address]) => address,
    ([groupId]) => groupId,
  );
  const take = (groupId: string, errorCode: number, topics: { name: string; partitions: { partitionIndex: number; committedOffset: bigint; errorCode: number }[] }[]) => {
    const commits: GroupCommits = { topics: new Map(), errorCode };
    for (const t of topics) {
      for (const p of t.partitions) {
        if (p.errorCode !== 0 || p.committedOffset < 0n) continue;
        const m = commits.topics.get(t.name) ?? new Map<number, bigint>();
        m.set(p.partitionIndex, p.committedOffset);
        commits.topics.set(t.name, m);
      }
    }
    out.set(groupId, commits);
  };
  await Promise.all(
    [...byCoordinator].map(async ([address, ids]) => {
      const conn = await conns.raw(address);
      if (conn.supports(ApiKey.OffsetFetch, 8)) {
        const version = conn.pickVersion(ApiKey.OffsetFetch, 8, 9);
        for (let i = 0; i < ids.length; i += 200) {
          const batch = ids.slice(i, i + 200);
          const res = await conn.request(ApiKey.OffsetFetch, { groups: batch.map((groupId) => ({ groupId, memberId: null, memberEpoch: -1, topics: null })), requireStable: false }, version);
          for (const g of res.groups) take(g.groupId, g.errorCode, g.topics);
        }
        return;
      }
      const version = conn.pickVersion(ApiKey.OffsetFetch, 2, 7);
      for (const groupId of ids) {
        const res = await conn.request(ApiKey.OffsetFetch, { groupId, topics: null, requireStable: false }, version);
        take(groupId, res.errorCode, res.topics);
      }
    }),
  );
  return out;
}
