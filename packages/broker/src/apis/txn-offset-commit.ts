// TxnOffsetCommit (key 28), versions 0-4 (flexible from 3).
//
// Request:  transactional_id STRING, group_id STRING, producer_id INT64, producer_epoch INT16,
//           generation_id INT32 (v3+, default -1), member_id STRING (v3+, default ""),
//           group_instance_id NULLABLE_STRING (v3+),
//           topics [name STRING, partitions [partition_index INT32, committed_offset INT64,
//                   committed_leader_epoch INT32 (v2+), committed_metadata NULLABLE_STRING]]
// Response: throttle_time_ms INT32, topics [name STRING, partitions [partition_index INT32, error_code INT16]]
//
// Sent to the group coordinator by a transactional producer (kafkajs
// sendOffsets, Kafka's sendOffsetsToTransaction). The offsets are held with the
// transaction and become the group's committed offsets only when it commits;
// an abort drops them (src/transactions/). Checks, in KafkaApis' order: WRITE on
// the TRANSACTIONAL_ID, READ on the GROUP (all partitions fail), then READ on
// each TOPIC and the partition must exist (those partitions fail, the rest are
// committed). With a member id / generation / group instance id (KIP-447, v3+) the
// group's live membership is checked as Kafka's ClassicGroup.validateOffsetCommit does
// for transactional commits (a group instance id held by another member id is
// FENCED_INSTANCE_ID, the zombie of a restarted static member); "" / −1 / null skip that.
// The group must have been added to the transaction (AddOffsetsToTxn), else
// INVALID_TXN_STATE (KIP-890 part 1); an old epoch is INVALID_PRODUCER_EPOCH.
import { ApiKey, type DeepPartial, ErrorCode, type TxnOffsetCommitRequest, type TxnOffsetCommitResponse } from "@kappa/kafka-protocol";
import { OFFSET_METADATA_MAX_BYTES } from "../groups/coordinator.ts";
import { defineApi } from "../registry.ts";
import type { PendingOffset } from "../transactions/transaction-metadata.ts";
import { errorOf } from "./common.ts";
import { mayWriteTransaction } from "./txn-common.ts";

export const txnOffsetCommitApi = defineApi<TxnOffsetCommitRequest, TxnOffsetCommitResponse>({
  apiKey: ApiKey.TxnOffsetCommit,
  name: "TxnOffsetCommit",
  advertised: { min: 0, max: 4 },
  implemented: { min: 0, max: 4 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const all = (errorCode: number): DeepPartial<TxnOffsetCommitResponse> => ({
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
    });
    if (!mayWriteTransaction(ctx, req.transactionalId)) return all(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    if (!b.authorizer.authorize(ctx.session, "READ", { type: "GROUP", name: req.groupId })) return all(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    if (req.groupId === "") return all(ErrorCode.INVALID_GROUP_ID);
    const groupError = b.groups.validateCommit(req.groupId, {
      memberId: req.memberId ?? "",
      groupInstanceId: req.groupInstanceId ?? null,
      generationId: req.generationId ?? -1,
      transactional: true,
      apiVersion: ctx.apiVersion,
    });
    if (groupError !== ErrorCode.NONE) return all(groupError);

    const pending: PendingOffset[] = [];
    const topics: DeepPartial<TxnOffsetCommitResponse["topics"][number]>[] = [];
    for (const t of req.topics) {
      const readable = b.authorizer.authorize(ctx.session, "READ", { type: "TOPIC", name: t.name });
      const meta = b.logs.topic(t.name);
      const partitions = t.partitions.map((p) => {
        let errorCode: number = ErrorCode.NONE;
        if (!readable) errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
        else if (!meta || p.partitionIndex < 0 || p.partitionIndex >= meta.partitionCount) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        else if (Buffer.byteLength(p.committedMetadata ?? "", "utf8") > OFFSET_METADATA_MAX_BYTES) errorCode = ErrorCode.OFFSET_METADATA_TOO_LARGE;
        else {
          pending.push({
            topic: t.name,
            partition: p.partitionIndex,
            offset: p.committedOffset.toString(),
            leaderEpoch: p.committedLeaderEpoch ?? -1,
            metadata: p.committedMetadata ?? "",
          });
        }
        return { partitionIndex: p.partitionIndex, errorCode };
      });
      topics.push({ name: t.name, partitions });
    }
    let code: number;
    try {
      code = await b.transactions.txnOffsetCommit(req.transactionalId, Number(req.producerId), req.producerEpoch, req.groupId, pending);
    } catch (err) {
      code = errorOf(ctx, err, `TxnOffsetCommit for group ${req.groupId}`).code;
    }
    if (code !== ErrorCode.NONE) for (const t of topics) for (const p of t.partitions ?? []) if (p.errorCode === ErrorCode.NONE) p.errorCode = code;
    return { throttleTimeMs: 0, topics };
  },
});
