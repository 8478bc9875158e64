/*
 * Reading records and moving group offsets over the raw protocol, without
 * joining any consumer group:
 * - Fetch by partition (the latest-state view, time-lag reads): one request
 *   per partition leader, versions 4–12 (v13+ address topics by id);
 * - ListOffsets with a timestamp (replay "to a timestamp": the first offset
 *   whose timestamp is at or after it, KIP-79);
 * - OffsetCommit outside group management (generation −1, empty member id),
 *   which is how Kafka's AdminClient alterConsumerGroupOffsets moves an
 *   inactive group: the coordinator refuses it while the group has members.
 */
import { ApiKey, ErrorCode, type AbortedTransaction } from "@kappa/kafka-protocol";
import { KafkaProtocolError } from "@kappa/kafka-protocol/client";
import { partitionKey, type PartitionRef } from "./cluster.ts";
import type { ClusterConnections } from "./connections.ts";

export interface FetchRequestPart extends PartitionRef {
  offset: bigint;
}

export interface FetchedPartition {
  errorCode: number;
  highWatermark: bigint;
  logStartOffset: bigint;
  abortedTransactions: AbortedTransaction[];
  records: Buffer | null;
}

export interface FetchOptions {
  /** Per partition (default 1 MiB). */
  partitionMaxBytes?: number;
  /** Whole response (default 8 MiB). */
  maxBytes?: number;
  /** Long poll; 0 answers at once. */
  maxWaitMs?: number;
  /** 1 = READ_COMMITTED (default): aborted transactional records are listed so readers can skip them. */
  isolationLevel?: 0 | 1;
}

async function leaders(conns: ClusterConnections, refs: PartitionRef[]): Promise<Map<string, { address: string | null }>> {
  const meta = await conns.topicMetadata([...new Set(refs.map((r) => r.topic))]);
  const addresses = await conns.brokerAddresses();
  const out = new Map<string, { address: string | null }>();
  for (const t of meta) for (const p of t.partitions) out.set(partitionKey(t.name, p.partitionId), { address: addresses.get(p.leader) ?? null });
  return out;
}

/** Fetches each partition from its offset; partitions whose leader is unknown answer LEADER_NOT_AVAILABLE. */
export async function fetchRecords(conns: ClusterConnections, parts: FetchRequestPart[], options: FetchOptions = {}): Promise<Map<string, FetchedPartition>> {
  const out = new Map<string, FetchedPartition>();
  if (parts.length === 0) return out;
  const leaderOf = await leaders(conns, parts);
  const byLeader = new Map<string, FetchRequestPart[]>();
  for (const p of parts) {
    const address = leaderOf.get(partitionKey(p.topic, p.partition))?.address ?? null;
    if (!address) {
      out.set(partitionKey(p.topic, p.partition), { errorCode: ErrorCode.LEADER_NOT_AVAILABLE, highWatermark: -1n, logStartOffset: -1n, abortedTransactions: [], records: null });
      continue;
    }
    byLeader.set(address, [...(byLeader.get(address) ?? []), p]);
  }
  await Promise.all(
    [...byLeader].map(async ([address, list]) => {
      const conn = await conns.raw(address);
      const version = conn.pickVersion(ApiKey.Fetch, 4, 12);
      const topics = new Map<string, FetchRequestPart[]>();
      for (const p of list) topics.set(p.topic, [...(topics.get(p.topic) ?? []), p]);
      const res = await conn.request(
        ApiKey.Fetch,
        {
          replicaId: -1,
          maxWaitMs: options.maxWaitMs ?? 0,
          minBytes: options.maxWaitMs ? 1 : 0,
          maxBytes: options.maxBytes ?? 8 * 1024 * 1024,
          isolationLevel: options.isolationLevel ?? 1,
          sessionId: 0,
          sessionEpoch: -1,
          topics: [...topics].map(([topic, ps]) => ({
            topic,
            partitions: ps.map((p) => ({ partition: p.partition, currentLeaderEpoch: -1, fetchOffset: p.offset, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: options.partitionMaxBytes ?? 1024 * 1024 })),
          })),
          forgottenTopicsData: [],
          rackId: "",
        },
        version,
      );
      if (res.errorCode !== 0) throw new KafkaProtocolError(res.errorCode, "Fetch");
      for (const t of res.responses) {
        for (const p of t.partitions) {
          out.set(partitionKey(t.topic, p.partitionIndex), {
            errorCode: p.errorCode,
            highWatermark: p.highWatermark,
            logStartOffset: p.logStartOffset,
            abortedTransactions: (p.abortedTransactions ?? []).map((a) => ({ producerId: a.producerId, firstOffset: a.firstOffset })),
            records: p.records ?? null,
          });
        }
      }
    }),
  );
  return out;
}

/** The first offset at or after `timestampMs` per partition, with that record's timestamp; null: no such record (the end). */
export function offsetsForTimestamp(conns: ClusterConnections, refs: PartitionRef[], timestampMs: bigint): Promise<Map<string, { offset: bigint; timestamp: bigint } | null>> {
  return listOffsetsWithTimestamps(conns, refs, timestampMs, 1);
}

/**
 * The record with the largest timestamp per partition (ListOffsets −3,
 * MAX_TIMESTAMP, KIP-734, v7+): how fresh a topic is without reading it.
 * null: the partition is empty.
 */
export function maxTimestamps(conns: ClusterConnections, refs: PartitionRef[]): Promise<Map<string, { offset: bigint; timestamp: bigint } | null>> {
  return listOffsetsWithTimestamps(conns, refs, -3n, 7);
}

async function listOffsetsWithTimestamps(conns: ClusterConnections, refs: PartitionRef[], timestamp: bigint, minVersion: number): Promise<Map<string, { offset: bigint; timestamp: bigint } | null>> {
  const out = new Map<string, { offset: bigint; timestamp: bigint } | null>();
  if (refs.length === 0) return out;
  const leaderOf = await leaders(conns, refs);
  const byLeader = new Map<string, PartitionRef[]>();
  for (const r of refs) {
    const address = leaderOf.get(partitionKey(r.topic, r.partition))?.address;
    if (!address) throw new KafkaProtocolError(ErrorCode.LEADER_NOT_AVAILABLE, `no leader for ${r.topic}-${r.partition}`);
    byLeader.set(address, [...(byLeader.get(address) ?? []), r]);
  }
  await Promise.all(
    [...byLeader].map(async ([address, list]) => {
      const conn = await conns.raw(address);
      const version = conn.pickVersion(ApiKey.ListOffsets, minVersion, 7);
      const topics = new Map<string, number[]>();
      for (const r of list) topics.set(r.topic, [...(topics.get(r.topic) ?? []), r.partition]);
      const res = await conn.request(
        ApiKey.ListOffsets,
        { replicaId: -1, isolationLevel: 1, topics: [...topics].map(([name, ps]) => ({ name, partitions: ps.map((partitionIndex) => ({ partitionIndex, timestamp, currentLeaderEpoch: -1 })) })) },
        version,
      );
      for (const t of res.topics) {
        for (const p of t.partitions) {
          if (p.errorCode !== 0) throw new KafkaProtocolError(p.errorCode, `ListOffsets ${timestamp} for ${t.name}-${p.partitionIndex}`);
          out.set(partitionKey(t.name, p.partitionIndex), p.offset < 0n || p.timestamp < 0n ? null : { offset: p.offset, timestamp: p.timestamp });
        }
      }
    }),
  );
  return out;
}

/**
 * Commits offsets for a group outside group management. Answers the error
 * code per partition (0 = applied); the coordinator answers UNKNOWN_MEMBER_ID
 * (or ILLEGAL_GENERATION) for a group that has live members.
 */
export async function commitGroupOffsets(conns: ClusterConnections, groupId: string, offsets: { topic: string; partition: number; offset: bigint }[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (offsets.length === 0) return out;
  const coordinator = (await conns.groupCoordinators([groupId])).get(groupId);
  if (!coordinator) throw new Error(`no coordinator for group ${groupId}`);
  const conn = await conns.raw(coordinator);
  const version = conn.pickVersion(ApiKey.OffsetCommit, 2, 8);
  const topics = new Map<string, { partition: number; offset: bigint }[]>();
  for (const o of offsets) topics.set(o.topic, [...(topics.get(o.topic) ?? []), o]);
  const res = await conn.request(
    ApiKey.OffsetCommit,
    {
      groupId,
      generationIdOrMemberEpoch: -1,
      memberId: "",
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [...topics].map(([name, ps]) => ({ name, partitions: ps.map((p) => ({ partitionIndex: p.partition, committedOffset: p.offset, committedLeaderEpoch: -1, committedMetadata: "kappa-replay" })) })),
    },
    version,
  );
  for (const t of res.topics) for (const p of t.partitions) out.set(partitionKey(t.name, p.partitionIndex), p.errorCode);
  return out;
}
