/*
 * Offsets over the raw protocol: ListOffsets per partition leader (v8/v9 for
 * EARLIEST_LOCAL −4 and LATEST_TIERED −5, KIP-405/KIP-1005) and committed
 * offsets of many groups in batched requests.
 */
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { KafkaProtocolError } from "@kappa/kafka-protocol/client";
import { partitionKey, type OffsetSpec, type PerPartition, type TopicFilter, type TopicPartitions } from "./cluster.ts";
import type { ClusterConnections } from "./connections.ts";

/** Errors that mean "ask the partition's current leader": the cached leader moved, or the topic changed. */
const STALE_LEADER = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.UNKNOWN_LEADER_EPOCH,
  ErrorCode.REPLICA_NOT_AVAILABLE,
]);

/** Partitions per ListOffsets request: a 60,000-partition round becomes a few requests of bounded size, pipelined on one connection. */
const PARTITIONS_PER_REQUEST = 10_000;

/**
 * Offsets of whole topics, one request per leader (and per 10,000
 * partitions), leaders from the connections' cache. Partitions whose cached
 * leader moved are asked again once with fresh metadata; a partition without
 * a leader, or of a topic that is gone, is null.
 */
export async function listOffsets(conns: ClusterConnections, topics: TopicPartitions[], spec: OffsetSpec): Promise<PerPartition<bigint | null>> {
  const out: PerPartition<bigint | null> = new Map();
  for (const t of topics) out.set(t.topic, new Array<bigint | null>(t.partitions).fill(null));
  if (topics.length === 0) return out;
  const all = new Map(topics.map((t) => [t.topic, Array.from({ length: t.partitions }, (_, p) => p)]));
  const retry = await listOffsetsOnce(conns, all, spec, out, false);
  if (retry.size > 0) {
    conns.invalidateLeaders(retry.keys());
    await listOffsetsOnce(conns, retry, spec, out, true);
  }
  return out;
}

/** Sends one round; returns the partitions (per topic) to ask again because their leader moved. */
async function listOffsetsOnce(conns: ClusterConnections, wanted: Map<string, number[]>, spec: OffsetSpec, out: PerPartition<bigint | null>, last: boolean): Promise<Map<string, number[]>> {
  const timestamp = { latest: -1n, earliest: -2n, earliestLocal: -4n, latestTiered: -5n }[spec];
  // −4 needs ListOffsets v8, −5 needs v9 (KIP-1005); −1/−2 work from v1.
  const minVersion = spec === "earliestLocal" ? 8 : spec === "latestTiered" ? 9 : 1;
  const { leaders, brokers: addresses } = await conns.partitionLeaders([...wanted.keys()]);
  // leader → topic → partitions
  const byLeader = new Map<number, Map<string, number[]>>();
  let count = 0;
  for (const [topic, partitions] of wanted) {
    const leaderOf = leaders.get(topic);
    if (!leaderOf) continue; // gone: stays null
    for (const p of partitions) {
      const leader = leaderOf[p];
      if (leader === undefined || leader < 0) continue;
      let topicsOf = byLeader.get(leader);
      if (!topicsOf) byLeader.set(leader, (topicsOf = new Map<string, number[]>()));
      const ps = topicsOf.get(topic);
      if (ps) ps.push(p);
      else topicsOf.set(topic, [p]);
      count++;
    }
  }
  const retry = new Map<string, number[]>();
  if (count === 0) return retry;
  await Promise.all(
    [...byLeader].map(async ([leader, topicsOf]) => {
      const address = addresses.get(leader);
      if (!address) throw new Error(`broker ${leader} (a partition leader) is not in the cluster metadata`);
      const conn = await conns.raw(address);
      if (!conn.supports(ApiKey.ListOffsets, minVersion)) return; // stays null: the cluster cannot say
      const version = conn.pickVersion(ApiKey.ListOffsets, minVersion, 9);
      // Requests of at most PARTITIONS_PER_REQUEST partitions, pipelined on the one connection.
      const requests: [string, number[]][][] = [[]];
      let size = 0;
      for (const entry of topicsOf) {
        if (size + entry[1].length > PARTITIONS_PER_REQUEST && size > 0) {
          requests.push([]);
          size = 0;
        }
        requests[requests.length - 1]!.push(entry);
        size += entry[1].length;
      }
      await Promise.all(
        requests.map(async (batch) => {
          const res = await conn.request(
            ApiKey.ListOffsets,
            { replicaId: -1, isolationLevel: 0, topics: batch.map(([name, ps]) => ({ name, partitions: ps.map((partitionIndex) => ({ partitionIndex, timestamp, currentLeaderEpoch: -1 })) })) },
            version,
          );
          for (const t of res.topics) {
            const values = out.get(t.name);
            if (!values) continue;
            for (const p of t.partitions) {
              if (p.errorCode === 0) values[p.partitionIndex] = p.offset;
              else if (p.errorCode === ErrorCode.UNSUPPORTED_VERSION) values[p.partitionIndex] = null;
              else if (STALE_LEADER.has(p.errorCode) && !last) {
                const ps = retry.get(t.name);
                if (ps) ps.push(p.partitionIndex);
                else retry.set(t.name, [p.partitionIndex]);
              } else if (p.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) values[p.partitionIndex] = null; // deleted meanwhile
              else throw new KafkaProtocolError(p.errorCode, `ListOffsets ${spec} for ${t.name}-${p.partitionIndex}`);
            }
          }
        }),
      );
    }),
  );
  return retry;
}

/**
 * Committed offsets of many groups: coordinators found with one batched
 * FindCoordinator (v4+, KIP-699) and offsets fetched with one batched
 * OffsetFetch per coordinator (v8+, KIP-709); older clusters get one request
 * per group. kafkajs' fetchOffsets would do both per group and add every
 * topic to its metadata refresh set.
 */
export async function committedOffsets(conns: ClusterConnections, requests: { groupId: string; topics: TopicFilter }[]): Promise<Map<string, Map<string, bigint>>> {
  const out = new Map<string, Map<string, bigint>>();
  if (requests.length === 0) return out;
  const wanted = new Map(requests.map((r) => [r.groupId, r.topics]));
  const moved = await committedOffsetsOnce(conns, [...wanted.keys()], wanted, out, false);
  if (moved.length > 0) {
    conns.invalidateCoordinators(moved);
    await committedOffsetsOnce(conns, moved, wanted, out, true);
  }
  return out;
}

/** Coordinator errors: the group's coordinator moved or is loading; ask again after FindCoordinator. */
export const COORDINATOR_MOVED = new Set<number>([ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS]);

/** Group ids per coordinator address, in the order given. */
export function byCoordinator(coordinators: Map<string, string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [groupId, address] of coordinators) {
    const list = out.get(address);
    if (list) list.push(groupId);
    else out.set(address, [groupId]);
  }
  return out;
}

async function committedOffsetsOnce(conns: ClusterConnections, groupIds: string[], wanted: Map<string, TopicFilter>, out: Map<string, Map<string, bigint>>, last: boolean): Promise<string[]> {
  const moved: string[] = [];
  const record = (groupId: string, topic: string, partition: number, offset: bigint, errorCode: number) => {
    if (errorCode !== 0) throw new KafkaProtocolError(errorCode, `committed offset of ${groupId} on ${topic}-${partition}`);
    if (offset < 0n || !wanted.get(groupId)?.has(topic)) return;
    const m = out.get(groupId) ?? new Map<string, bigint>();
    m.set(partitionKey(topic, partition), offset);
    out.set(groupId, m);
  };
  const groupError = (groupId: string, errorCode: number) => {
    if (COORDINATOR_MOVED.has(errorCode) && !last) moved.push(groupId);
    else throw new KafkaProtocolError(errorCode, `committed offsets of group ${groupId}`);
  };
  await Promise.all(
    [...byCoordinator(await conns.groupCoordinators(groupIds))].map(async ([address, ids]) => {
      const conn = await conns.raw(address);
      if (conn.supports(ApiKey.OffsetFetch, 8)) {
        const version = conn.pickVersion(ApiKey.OffsetFetch, 8, 9);
        const batches: Promise<void>[] = [];
        for (let i = 0; i < ids.length; i += 200) {
          const batch = ids.slice(i, i + 200);
          // Pipelined on the one connection: the coordinator answers in order.
          batches.push(
            conn.request(ApiKey.OffsetFetch, { groups: batch.map((groupId) => ({ groupId, memberId: null, memberEpoch: -1, topics: null })), requireStable: false }, version).then((res) => {
              for (const g of res.groups) {
                if (g.errorCode !== 0) {
                  groupError(g.groupId, g.errorCode);
                  continue;
                }
                for (const t of g.topics) for (const p of t.partitions) record(g.groupId, t.name, p.partitionIndex, p.committedOffset, p.errorCode);
              }
            }),
          );
        }
        await Promise.all(batches);
        return;
      }
      // Older clusters: one request per group, 50 in flight at a time.
      const version = conn.pickVersion(ApiKey.OffsetFetch, 2, 7);
      for (let i = 0; i < ids.length; i += 50) {
        await Promise.all(
          ids.slice(i, i + 50).map(async (groupId) => {
            const res = await conn.request(ApiKey.OffsetFetch, { groupId, topics: null, requireStable: false }, version);
            if (res.errorCode !== 0) return groupError(groupId, res.errorCode);
            for (const t of res.topics) for (const p of t.partitions) record(groupId, t.name, p.partitionIndex, p.committedOffset, p.errorCode);
          }),
        );
      }
    }),
  );
  return moved;
}
