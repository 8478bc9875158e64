// OffsetCommit (key 8), advertised and served 0-9 (flexible from 8; v9 is v8 for classic groups).
//
// Request:  group_id STRING, generation_id_or_member_epoch INT32, member_id STRING,
//           group_instance_id NULLABLE_STRING (v7+), retention_time_ms INT64 (v2-4),
//           topics [name STRING, partitions [partition_index INT32, committed_offset INT64,
//                   committed_leader_epoch INT32 (v6+), committed_metadata NULLABLE_STRING]]
// Response: throttle_time_ms INT32 (v3+), topics [name STRING, partitions [partition_index INT32, error_code INT16]]
//
// Validation follows ClassicGroup.validateOffsetCommit (BROKER-SPEC §4): generation
// -1 on an Empty or unknown group is a commit outside group management (kafkajs
// admin.setOffsets); otherwise member (and group_instance_id, v7+: another member id
// holding it is FENCED_INSTANCE_ID) and generation must match and the group must
// not be awaiting its assignment. An unknown group with a generation is
// ILLEGAL_GENERATION, GROUP_ID_NOT_FOUND from v9. Offsets are durable once acknowledged.
import { ApiKey, type DeepPartial, ErrorCode, type OffsetCommitRequest, type OffsetCommitResponse } from "@kappa/kafka-protocol";
import { OFFSET_METADATA_MAX_BYTES, type CommittedOffset } from "../groups/coordinator.ts";
import { defineApi } from "../registry.ts";
import { errorOf } from "./common.ts";

export const offsetCommitApi = defineApi<OffsetCommitRequest, OffsetCommitResponse>({
  apiKey: ApiKey.OffsetCommit,
  name: "OffsetCommit",
  advertised: { min: 0, max: 9 },
  implemented: { min: 0, max: 9 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const all = (errorCode: number): DeepPartial<OffsetCommitResponse> => ({
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
    });
    // KafkaApis authorizes before the coordinator validates the group id.
    if (!b.authorizer.authorize(ctx.session, "READ", { type: "GROUP", name: req.groupId })) return all(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    if (req.groupId === "") return all(ErrorCode.INVALID_GROUP_ID);
    const generation = req.generationIdOrMemberEpoch ?? -1;
    const groupError = b.groups.validateCommit(req.groupId, {
      memberId: req.memberId ?? "",
      groupInstanceId: req.groupInstanceId ?? null,
      generationId: generation,
      transactional: false,
      apiVersion: ctx.apiVersion,
    });
    if (groupError !== ErrorCode.NONE) return all(groupError);

    const toStore: CommittedOffset[] = [];
    const topics: DeepPartial<OffsetCommitResponse["topics"][number]>[] = [];
    for (const t of req.topics) {
      const topicReadable = b.authorizer.authorize(ctx.session, "READ", { type: "TOPIC", name: t.name });
      const meta = b.logs.topic(t.name);
      const partitions = t.partitions.map((p) => {
        let errorCode: number = ErrorCode.NONE;
        if (!topicReadable) errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
        else if (!meta || p.partitionIndex < 0 || p.partitionIndex >= meta.partitionCount) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        else if (Buffer.byteLength(p.committedMetadata ?? "", "utf8") > OFFSET_METADATA_MAX_BYTES) errorCode = ErrorCode.OFFSET_METADATA_TOO_LARGE;
        else {
          toStore.push({
            topic: t.name,
            partition: p.partitionIndex,
            offset: p.committedOffset,
            leaderEpoch: p.committedLeaderEpoch ?? -1,
            metadata: p.committedMetadata ?? "",
          });
        }
        return { partitionIndex: p.partitionIndex, errorCode };
      });
      topics.push({ name: t.name, partitions });
    }
    if (toStore.length > 0) {
      try {
        await b.groups.commitOffsets(req.groupId, toStore);
      } catch (err) {
        const code = errorOf(ctx, err, `committing offsets for group ${req.groupId}`).code;
        for (const t of topics) for (const p of t.partitions ?? []) if (p.errorCode === ErrorCode.NONE) p.errorCode = code;
      }
    }
    return { throttleTimeMs: 0, topics };
  },
});
