// OffsetFetch (key 9), advertised and served 0-5.
//
// Request:  group_id STRING, topics [name STRING, partition_indexes [INT32]] (nullable v2+: null = all topics)
// Response: throttle_time_ms INT32 (v3+), topics [name STRING, partitions [partition_index INT32,
//           committed_offset INT64, committed_leader_epoch INT32 (v5+), metadata NULLABLE_STRING, error_code INT16]],
//           error_code INT16 (v2+)
//
// A partition without a commit is offset -1, metadata "", error 0 (BROKER-SPEC §4).
import { ApiKey, type DeepPartial, ErrorCode, type OffsetFetchRequest, type OffsetFetchResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";

type TopicOut = DeepPartial<OffsetFetchResponse["topics"][number]>;

export const offsetFetchApi = defineApi<OffsetFetchRequest, OffsetFetchResponse>({
  apiKey: ApiKey.OffsetFetch,
  name: "OffsetFetch",
  advertised: { min: 0, max: 5 },
  implemented: { min: 0, max: 5 },
  handle(ctx, req) {
    const b = ctx.broker;
    const groupId = req.groupId ?? "";
    if (!b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "GROUP", name: groupId })) {
      // OffsetFetchRequest.getErrorResponse: v2+ carries the error at the top level;
      // v0-1 have no top-level error, so every requested partition carries it.
      const topics =
        ctx.apiVersion >= 2
          ? []
          : (req.topics ?? []).map((t) => ({
              name: t.name,
              partitions: t.partitionIndexes.map((partitionIndex) => ({
                partitionIndex,
                committedOffset: -1n,
                committedLeaderEpoch: -1,
                metadata: "",
                errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED,
              })),
            }));
      return { throttleTimeMs: 0, topics, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    }
    const committed = b.groups.fetchOffsets(groupId);
    const byKey = new Map(committed.map((c) => [`${c.topic}\u0000${c.partition}`, c]));
    const topics: TopicOut[] = [];
    const requested = req.topics ?? null;
    if (requested === null) {
      const grouped = new Map<string, TopicOut>();
      for (const c of committed) {
        if (!b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "TOPIC", name: c.topic })) continue;
        let t = grouped.get(c.topic);
        if (!t) {
          t = { name: c.topic, partitions: [] };
          grouped.set(c.topic, t);
          topics.push(t);
        }
        t.partitions?.push({ partitionIndex: c.partition, committedOffset: c.offset, committedLeaderEpoch: c.leaderEpoch, metadata: c.metadata, errorCode: ErrorCode.NONE });
      }
    } else {
      for (const t of requested) {
        const allowed = b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "TOPIC", name: t.name });
        topics.push({
          name: t.name,
          partitions: t.partitionIndexes.map((partitionIndex) => {
            const c = allowed ? byKey.get(`${t.name}\u0000${partitionIndex}`) : undefined;
            return {
              partitionIndex,
              committedOffset: c ? c.offset : -1n,
              committedLeaderEpoch: c ? c.leaderEpoch : -1,
              metadata: c ? c.metadata : "",
              errorCode: allowed ? ErrorCode.NONE : ErrorCode.TOPIC_AUTHORIZATION_FAILED,
            };
          }),
        });
      }
    }
    return { throttleTimeMs: 0, topics, errorCode: ErrorCode.NONE };
  },
});
