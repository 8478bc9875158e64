// OffsetFetch (key 9), advertised and served 0-9 (flexible from 6).
//
// Request:  v0-7 group_id STRING, topics [name STRING, partition_indexes [INT32]] (nullable v2+: null = all topics);
//           v8+ groups [group_id, member_id NULLABLE (v9+), member_epoch INT32 (v9+), topics (nullable)];
//           require_stable BOOL (v7+)
// Response: throttle_time_ms INT32 (v3+); v0-7 topics [name, partitions [partition_index, committed_offset,
//           committed_leader_epoch (v5+), metadata, error_code]], error_code (v2+); v8+ groups [group_id, topics
//           [name, partitions [...]], error_code]
//
// A partition without a commit is offset -1, metadata "", error 0 (BROKER-SPEC §4).
// require_stable (KIP-447): a partition for which a transaction that is not yet
// complete holds a TxnOffsetCommit offset of the group answers
// UNSTABLE_OFFSET_COMMIT (retriable) with offset -1, so that an exactly-once
// consumer (the Java consumer at read_committed asks for it) never resumes
// from the offset before a commit the transaction coordinator is still
// completing. Without it, the last committed offset is answered.
// v9 (KIP-848): a member id or epoch given for a consumer-protocol group must
// be its member's current epoch (UNKNOWN_MEMBER_ID / STALE_MEMBER_EPOCH as the
// group's error); none given (admin clients) is accepted.
import { ApiKey, type DeepPartial, ErrorCode, type OffsetFetchRequest, type OffsetFetchResponse } from "@kappa/kafka-protocol";
import { defineApi, type RequestContext } from "../registry.ts";

type TopicOut = DeepPartial<OffsetFetchResponse["topics"][number]>;

interface GroupQuery {
  groupId: string;
  memberId: string | null;
  memberEpoch: number;
  topics: Array<{ name: string; partitionIndexes: number[] }> | null;
}

interface GroupAnswer {
  topics: TopicOut[];
  errorCode: number;
}

export const offsetFetchApi = defineApi<OffsetFetchRequest, OffsetFetchResponse>({
  apiKey: ApiKey.OffsetFetch,
  name: "OffsetFetch",
  advertised: { min: 0, max: 9 },
  implemented: { min: 0, max: 9 },
  handle(ctx, req) {
    const requireStable = ctx.apiVersion >= 7 && req.requireStable === true;
    if (ctx.apiVersion >= 8) {
      const groups = (req.groups ?? []).map((g) => {
        const answer = fetchGroup(ctx, { groupId: g.groupId, memberId: ctx.apiVersion >= 9 ? (g.memberId ?? null) : null, memberEpoch: ctx.apiVersion >= 9 ? (g.memberEpoch ?? -1) : -1, topics: g.topics ?? null }, requireStable);
        return { groupId: g.groupId, topics: answer.topics, errorCode: answer.errorCode };
      });
      return { throttleTimeMs: 0, groups };
    }
    const answer = fetchGroup(ctx, { groupId: req.groupId ?? "", memberId: null, memberEpoch: -1, topics: req.topics ?? null }, requireStable);
    if (answer.errorCode === ErrorCode.GROUP_AUTHORIZATION_FAILED && ctx.apiVersion < 2) {
      // OffsetFetchRequest.getErrorResponse: v0-1 have no top-level error, so every requested partition carries it.
      const topics = (req.topics ?? []).map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: "", errorCode: answer.errorCode })),
      }));
      return { throttleTimeMs: 0, topics, errorCode: answer.errorCode };
    }
    return { throttleTimeMs: 0, topics: answer.topics, errorCode: answer.errorCode };
  },
});

function fetchGroup(ctx: RequestContext, q: GroupQuery, requireStable: boolean): GroupAnswer {
  const b = ctx.broker;
  const groupId = q.groupId;
  if (!b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "GROUP", name: groupId })) return { topics: [], errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
  const consumerGroup = b.groups.consumerGroup(groupId);
  if (consumerGroup && (q.memberId !== null || q.memberEpoch >= 0)) {
    const code = consumerGroup.validateMemberEpoch(q.memberId ?? "", q.memberEpoch);
    if (code !== ErrorCode.NONE) return { topics: [], errorCode: code };
  }
  const unstable = (topic: string, partition: number) => requireStable && b.transactions.hasPendingOffsets(groupId, topic, partition);
  const committed = b.groups.fetchOffsets(groupId);
  const byKey = new Map(committed.map((c) => [`${c.topic}\u0000${c.partition}`, c]));
  const topics: TopicOut[] = [];
  if (q.topics === null) {
    const grouped = new Map<string, TopicOut>();
    for (const c of committed) {
      if (!b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "TOPIC", name: c.topic })) continue;
      let t = grouped.get(c.topic);
      if (!t) {
        t = { name: c.topic, partitions: [] };
        grouped.set(c.topic, t);
        topics.push(t);
      }
      t.partitions?.push(
        unstable(c.topic, c.partition)
          ? { partitionIndex: c.partition, committedOffset: -1n, committedLeaderEpoch: -1, metadata: "", errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT }
          : { partitionIndex: c.partition, committedOffset: c.offset, committedLeaderEpoch: c.leaderEpoch, metadata: c.metadata, errorCode: ErrorCode.NONE },
      );
    }
    return { topics, errorCode: ErrorCode.NONE };
  }
  for (const t of q.topics) {
    const allowed = b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "TOPIC", name: t.name });
    topics.push({
      name: t.name,
      partitions: t.partitionIndexes.map((partitionIndex) => {
        if (!allowed) return { partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: "", errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED };
        if (unstable(t.name, partitionIndex)) return { partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: "", errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT };
        const c = byKey.get(`${t.name}\u0000${partitionIndex}`);
        return { partitionIndex, committedOffset: c ? c.offset : -1n, committedLeaderEpoch: c ? c.leaderEpoch : -1, metadata: c ? c.metadata : "", errorCode: ErrorCode.NONE };
      }),
    });
  }
  return { topics, errorCode: ErrorCode.NONE };
}
