// OffsetForLeaderEpoch (key 23), versions 0-4 (KIP-101, KIP-320; flexible from v4).
//
// Request:  replica_id INT32 (v3+), topics [topic STRING, partitions [partition INT32,
//           current_leader_epoch INT32 (v2+), leader_epoch INT32]]
// Response: throttle_time_ms INT32 (v2+), topics [topic STRING, partitions [error_code INT16,
//           partition INT32, leader_epoch INT32 (v1+), end_offset INT64]]
//
// Consumers (Java ≥ 2.3, librdkafka ≥ 1.8) send it to validate their position after a
// leader change (KIP-320). This single node has had one leader epoch, 0, for every
// partition since it was created (every batch is stamped with epoch 0), so as Kafka's
// LeaderEpochFileCache.endOffsetFor answers:
//  - leader_epoch 0 → epoch 0, end offset = the log end offset (= high watermark on one node);
//  - a leader_epoch above 0 (no such epoch yet) → epoch −1, end offset −1;
//  - current_leader_epoch (v2+) above 0 → UNKNOWN_LEADER_EPOCH (the client knows a
//    newer leader than this one); −1 means "not checked". Epochs below 0 cannot occur.
// DESCRIBE on the TOPIC is needed (TOPIC_AUTHORIZATION_FAILED), as Kafka requires for
// consumers (replica_id −1); follower requests (replica_id ≥ 0) need CLUSTER_ACTION.
import { ApiKey, type DeepPartial, ErrorCode, type OffsetForLeaderEpochRequest, type OffsetForLeaderEpochResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";

const CURRENT_EPOCH = 0;

export const offsetForLeaderEpochApi = defineApi<OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse>({
  apiKey: ApiKey.OffsetForLeaderEpoch,
  name: "OffsetForLeaderEpoch",
  advertised: { min: 0, max: 4 },
  implemented: { min: 0, max: 4 },
  handle(ctx, req) {
    const b = ctx.broker;
    const follower = ctx.apiVersion >= 3 && req.replicaId >= 0;
    const clusterAction = follower && b.authorizer.authorize(ctx.session, "CLUSTER_ACTION", CLUSTER_RESOURCE);
    const topics: DeepPartial<OffsetForLeaderEpochResponse["topics"][number]>[] = req.topics.map((t) => {
      const allowed = follower ? clusterAction : b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "TOPIC", name: t.topic });
      return {
        topic: t.topic,
        partitions: t.partitions.map((p) => {
          const out = (errorCode: number, leaderEpoch = -1, endOffset = -1n) => ({ errorCode, partition: p.partition, leaderEpoch, endOffset });
          if (!allowed) return out(follower ? ErrorCode.CLUSTER_AUTHORIZATION_FAILED : ErrorCode.TOPIC_AUTHORIZATION_FAILED);
          const view = b.logs.partition(t.topic, p.partition);
          if (!view) return out(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
          if (ctx.apiVersion >= 2 && p.currentLeaderEpoch > CURRENT_EPOCH) return out(ErrorCode.UNKNOWN_LEADER_EPOCH);
          if (p.leaderEpoch > CURRENT_EPOCH) return out(ErrorCode.NONE);
          return out(ErrorCode.NONE, CURRENT_EPOCH, view.highWatermark());
        }),
      };
    });
    return { throttleTimeMs: 0, topics };
  },
});
