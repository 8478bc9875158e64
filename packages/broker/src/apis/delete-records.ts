// DeleteRecords (key 21), versions 0-1.
//
// Request:  topics [name STRING, partitions [partition_index INT32, offset INT64]], timeout_ms INT32
// Response: throttle_time_ms INT32, topics [name STRING, partitions [partition_index INT32, low_watermark INT64, error_code INT16]]
//
// Advances the log start offset; offset -1 means "up to the high watermark".
// An offset above the high watermark is OFFSET_OUT_OF_RANGE.
import { ApiKey, type DeepPartial, ErrorCode, type DeleteRecordsRequest, type DeleteRecordsResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { errorOf } from "./common.ts";

export const deleteRecordsApi = defineApi<DeleteRecordsRequest, DeleteRecordsResponse>({
  apiKey: ApiKey.DeleteRecords,
  name: "DeleteRecords",
  advertised: { min: 0, max: 1 },
  implemented: { min: 0, max: 1 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const topics: DeepPartial<DeleteRecordsResponse["topics"][number]>[] = [];
    for (const t of req.topics) {
      const allowed = b.authorizer.authorize(ctx.session, "DELETE", { type: "TOPIC", name: t.name });
      const partitions: DeepPartial<DeleteRecordsResponse["topics"][number]["partitions"][number]>[] = [];
      for (const p of t.partitions) {
        const out = (errorCode: number, lowWatermark = -1n): void => {
          partitions.push({ partitionIndex: p.partitionIndex, lowWatermark, errorCode });
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
        const target = p.offset === -1n ? view.highWatermark() : p.offset;
        if (target < 0n || target > view.highWatermark()) {
          out(ErrorCode.OFFSET_OUT_OF_RANGE);
          continue;
        }
        try {
          out(ErrorCode.NONE, await view.deleteRecordsBefore(target));
        } catch (err) {
          out(errorOf(ctx, err, `DeleteRecords ${t.name}-${p.partitionIndex}`).code);
        }
      }
      topics.push({ name: t.name, partitions });
    }
    return { throttleTimeMs: 0, topics };
  },
});
