/*
 * Offsets over the raw protocol: ListOffsets per partition leader (v8/v9 for
 * EARLIEST_LOCAL −4 and LATEST_TIERED −5, KIP-405/KIP-1005) and committed
 * offsets of many groups in batched requests.
 */
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { partitionKey, type OffsetSpec, type PartitionRef } from "./cluster.ts";
import type { ClusterConnections } from "./connections.ts";
import { KafkaProtocolError } from "./raw-connection.ts";

export async function listOffsets(conns: ClusterConnections, partitions: PartitionRef[], spec: OffsetSpec): Promise<Map<string, bigint | null>> {
  const out = new Map<string, bigint | null>();
  if (partitions.length === 0) return out;
  const timestamp = { latest: -1n, earliest: -2n, earliestLocal: -4n, latestTiered: -5n }[spec];
  // −4 needs ListOffsets v8, −5 needs v9 (KIP-1005); −1/−2 work from v1.
  const minVersion = spec === "earliestLocal" ? 8 : spec === "latestTiered" ? 9 : 1;
  const meta = await conns.topicMetadata([...new Set(partitions.map((p) => p.topic))]);
  const leaderOf = new Map<string, number>();
  for (const t of meta) for (const p of t.partitions) leaderOf.set(partitionKey(t.name, p.partitionId), p.leader);
  const addresses = await conns.brokerAddresses();
  const byLeader = new Map<number, PartitionRef[]>();
  for (const p of partitions) {
    const leader = leaderOf.get(partitionKey(p.topic, p.partition));
    if (leader === undefined || leader < 0) {
      out.set(partitionKey(p.topic, p.partition), null);
      continue;
    }
    const list = byLeader.get(leader) ?? [];
    list.push(p);
    byLeader.set(leader, list);
  }
  await Promise.all(
    [...byLeader].map(async ([leader, refs]) => {
      const address = addresses.get(leader);
      if (!address) throw new Error(`broker ${leader} (leader of ${refs.length} partitions) is not in the cluster metadata`);
      const conn = await conns.raw(address);
      if (!conn.supports(ApiKey.ListOffsets, minVersion)) {
        for (const r of refs) out.set(partitionKey(r.topic, r.partition), null);
        return;
      }
      const version = conn.pickVersion(ApiKey.ListOffsets, minVersion, 9);
      const topics = new Map<string, number[]>();
      for (const r of refs) topics.set(r.topic, [...(topics.get(r.topic) ?? []), r.partition]);
      const res = await conn.request(
        ApiKey.ListOffsets,
        {
          replicaId: -1,
          isolationLevel: 0,
          topics: [...topics].map(([name, ps]) => ({ name, partitions: ps.map((partitionIndex) => ({ partitionIndex, timestamp, currentLeaderEpoch: -1 })) })),
        },
        version,
      );
      for (const t of res.topics) {
        for (const p of t.partitions) {
          const key = partitionKey(t.name, p.partitionIndex);
          if (p.errorCode === 0) out.set(key, p.offset);
          else if (p.errorCode === ErrorCode.UNSUPPORTED_VERSION) out.set(key, null);
          else throw new KafkaProtocolError(p.errorCode, `ListOffsets ${spec} for ${t.name}-${p.partitionIndex}`);
        }
      }
    }),
  );
  return out;
}

/**
 * Committed offsets of many groups: coordinators found with one batched
 * FindCoordinator (v4+, KIP-699) and offsets fetched with one batched
 * OffsetFetch per coordinator (v8+, KIP-709); older clusters get one request
 * per group. kafkajs' fetchOffsets would do both per group and add every
 * topic to its metadata refresh set.
 */
export async function committedOffsets(conns: ClusterConnections, requests: { groupId: string; topics: string[] }[]): Promise<Map<string, Map<string, bigint>>> {
  const out = new Map<string, Map<string, bigint>>();
  if (requests.length === 0) return out;
  const wanted = new Map(requests.map((r) => [r.groupId, new Set(r.topics)]));
  const coordinators = await conns.groupCoordinators([...wanted.keys()]);
  const record = (groupId: string, topic: string, partition: number, offset: bigint, errorCode: number) => {
    if (errorCode !== 0) throw new KafkaProtocolError(errorCode, `committed offset of ${groupId} on ${topic}-${partition}`);
    if (offset < 0n || !wanted.get(groupId)?.has(topic)) return;
    const m = out.get(groupId) ?? new Map<string, bigint>();
    m.set(partitionKey(topic, partition), offset);
    out.set(groupId, m);
  };
  const byCoordinator = new Map<string, string[]>();
  for (const [groupId, address] of coordinators) byCoordinator.set(address, [...(byCoordinator.get(address) ?? []), groupId]);
  await Promise.all(
    [...byCoordinator].map(async ([address, groupIds]) => {
      const conn = await conns.raw(address);
      if (conn.supports(ApiKey.OffsetFetch, 8)) {
        const version = conn.pickVersion(ApiKey.OffsetFetch, 8, 9);
        for (let i = 0; i < groupIds.length; i += 200) {
          const batch = groupIds.slice(i, i + 200);
          const res = await conn.request(ApiKey.OffsetFetch, { groups: batch.map((groupId) => ({ groupId, memberId: null, memberEpoch: -1, topics: null })), requireStable: false }, version);
          for (const g of res.groups) {
            if (g.errorCode !== 0) throw new KafkaProtocolError(g.errorCode, `committed offsets of group ${g.groupId}`);
            for (const t of g.topics) for (const p of t.partitions) record(g.groupId, t.name, p.partitionIndex, p.committedOffset, p.errorCode);
          }
        }
        return;
      }
      const version = conn.pickVersion(ApiKey.OffsetFetch, 2, 7);
      for (const groupId of groupIds) {
        const res = await conn.request(ApiKey.OffsetFetch, { groupId, topics: null, requireStable: false }, version);
        if (res.errorCode !== 0) throw new KafkaProtocolError(res.errorCode, `committed offsets of group ${groupId}`);
        for (const t of res.topics) for (const p of t.partitions) record(groupId, t.name, p.partitionIndex, p.committedOffset, p.errorCode);
      }
    }),
  );
  return out;
}
