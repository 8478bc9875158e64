// ListOffsets (key 2), advertised and served 0-9.
//
// Request:  replica_id INT32, isolation_level INT8 (v2+),
//           topics [name STRING, partitions [partition_index INT32, current_leader_epoch INT32 (v4+), timestamp INT64]]
// Response: throttle_time_ms INT32 (v2+), topics [name STRING, partitions [partition_index INT32, error_code INT16,
//           timestamp INT64, offset INT64, leader_epoch INT32 (v4+)]]
//
// Special timestamps (BROKER-SPEC §3): -1 latest (HW, or LSO for READ_COMMITTED),
// -2 earliest (log start, including data only in remote storage), -3 max timestamp
// (v7+), -4 earliest local (v8+, KIP-405: the local log start offset; equals log
// start while nothing was tiered), -5 latest tiered (v9+, KIP-1005: highest offset
// copied to remote storage; offset -1 with leader epoch -1 when none or tiered
// storage is off for the topic). Any other negative value, or one below its minimum version,
// gets UNSUPPORTED_VERSION for that partition. No match for a timestamp search is
// offset -1, timestamp -1, error 0.
//
// v0 (old_style_offsets, max_num_offsets): Kafka answered with up to
// max_num_offsets segment base offsets at or before the timestamp; this broker
// answers with the one offset v1+ would give (none when there is no match, or
// when max_num_offsets is 0), which is what every v0 client asks for (-1/-2
// with max_num_offsets 1).
import { ApiKey, type DeepPartial, ErrorCode, type ListOffsetsRequest, type ListOffsetsResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { StorageLogs } from "../storage-adapter.ts";
import { errorOf } from "./common.ts";

type PartitionOut = DeepPartial<ListOffsetsResponse["topics"][number]["partitions"][number]>;

const MIN_VERSION_FOR: Record<string, number> = { "-1": 0, "-2": 0, "-3": 7, "-4": 8, "-5": 9 };

export const listOffsetsApi = defineApi<ListOffsetsRequest, ListOffsetsResponse>({
  apiKey: ApiKey.ListOffsets,
  name: "ListOffsets",
  advertised: { min: 0, max: 9 },
  implemented: { min: 0, max: 9 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const readCommitted = (req.isolationLevel ?? 0) === 1;
    const topics: DeepPartial<ListOffsetsResponse["topics"][number]>[] = [];
    for (const t of req.topics) {
      const partitions: PartitionOut[] = [];
      const allowed = b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "TOPIC", name: t.name });
      for (const p of t.partitions) {
        const out = (errorCode: number, offset = -1n, timestamp = -1n, leaderEpoch = -1): void => {
          const oldStyleOffsets = ctx.apiVersion === 0 && offset >= 0n && p.maxNumOffsets > 0 ? [offset] : [];
          partitions.push({ partitionIndex: p.partitionIndex, errorCode, timestamp, offset, leaderEpoch, oldStyleOffsets });
        };
        if (!allowed) {
          out(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
          continue;
        }
        const view = b.logs.partition(t.name, p.partitionIndex);
        if (!view) {
          out(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
          continue;
        }
        const ts = p.timestamp;
        if (ts < 0n) {
          const minVersion = MIN_VERSION_FOR[ts.toString()];
          if (minVersion === undefined || ctx.apiVersion < minVersion) {
            out(ErrorCode.UNSUPPORTED_VERSION);
            continue;
          }
        }
        try {
          if (ts === -1n) out(ErrorCode.NONE, readCommitted ? view.lastStableOffset() : view.highWatermark(), -1n, 0);
          else if (ts === -2n) out(ErrorCode.NONE, view.logStartOffset(), -1n, 0);
          else if (ts === -4n || ts === -5n) {
            // Tiered offsets live in the storage engine, below the handlers' PartitionView.
            const log = b.logs instanceof StorageLogs ? b.logs.manager.partition(t.name, p.partitionIndex) : undefined;
            if (ts === -4n) out(ErrorCode.NONE, log ? log.localLogStartOffset : view.logStartOffset(), -1n, 0);
            else {
              const tiered = log?.remoteStorageEnabled ? log.highestTieredOffset : -1n;
              out(ErrorCode.NONE, tiered, -1n, tiered >= 0n ? 0 : -1);
            }
          }
          else if (ts === -3n) {
            const max = await view.maxTimestamp();
            if (max) out(ErrorCode.NONE, max.offset, max.timestamp, 0);
            else out(ErrorCode.NONE, -1n, -1n, -1);
          } else {
            const found = await view.offsetForTimestamp(ts);
            if (found) out(ErrorCode.NONE, found.offset, found.timestamp, 0);
            else out(ErrorCode.NONE, -1n, -1n, -1);
          }
        } catch (err) {
          out(errorOf(ctx, err, `ListOffsets ${t.name}-${p.partitionIndex}`).code);
        }
      }
      topics.push({ name: t.name, partitions });
    }
    return { throttleTimeMs: 0, topics };
  },
});
