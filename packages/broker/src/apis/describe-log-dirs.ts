// DescribeLogDirs (key 35), versions 0-4 (v2+ flexible).
//
// Request:  topics [topic STRING, partitions [INT32]] (nullable: null = every topic)
// Response: throttle_time_ms INT32, error_code INT16 (v3+),
//           results [error_code INT16, log_dir STRING,
//                    topics [name STRING, partitions [partition_index INT32, partition_size INT64,
//                            offset_lag INT64, is_future_key BOOL]],
//                    total_bytes INT64 (v4+), usable_bytes INT64 (v4+)]
//
// Semantics (BROKER-SPEC §3, Kafka's ReplicaManager.describeLogDirs):
//  - One log dir (log.dirs). partition_size is the LOCAL size of the partition's
//    segments: with tiered storage, data that only lives in the object store is
//    not counted (remote usage is reported by DescribeConfigs, see README).
//  - offset_lag 0 and is_future_key false: a single node has no future replicas.
//  - Topics or partitions this broker does not host are left out, as in Kafka.
//  - Requires DESCRIBE on CLUSTER; otherwise CLUSTER_AUTHORIZATION_FAILED (31)
//    with no results (v3+ carry it in the top-level error_code).
import { statfs } from "node:fs/promises";
import { resolve } from "node:path";
import { ApiKey, type DeepPartial, ErrorCode, type DescribeLogDirsRequest, type DescribeLogDirsResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";
import { StorageLogs } from "../storage-adapter.ts";

type TopicOut = DeepPartial<DescribeLogDirsResponse["results"][number]["topics"][number]>;

export const describeLogDirsApi = defineApi<DescribeLogDirsRequest, DescribeLogDirsResponse>({
  apiKey: ApiKey.DescribeLogDirs,
  name: "DescribeLogDirs",
  advertised: { min: 0, max: 4 },
  implemented: { min: 0, max: 4 },
  async handle(ctx, req) {
    const b = ctx.broker;
    if (!b.authorizer.authorize(ctx.session, "DESCRIBE", CLUSTER_RESOURCE)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, results: [] };
    }
    const logDir = resolve(b.config["log.dirs"]);
    const engine = b.logs instanceof StorageLogs ? b.logs.manager : null;
    const wanted: Array<{ topic: string; partitions: number[] | null }> =
      req.topics === null ? b.logs.topics().map((t) => ({ topic: t.name, partitions: null })) : req.topics.map((t) => ({ topic: t.topic, partitions: t.partitions }));
    const topics: TopicOut[] = [];
    for (const w of wanted) {
      const meta = b.logs.topic(w.topic);
      if (!meta) continue;
      const indexes = w.partitions ?? Array.from({ length: meta.partitionCount }, (_, i) => i);
      const partitions = [];
      for (const p of indexes) {
        const log = engine?.partition(w.topic, p);
        if (!log) continue;
        partitions.push({ partitionIndex: p, partitionSize: BigInt(log.size), offsetLag: 0n, isFutureKey: false });
      }
      if (partitions.length > 0) topics.push({ name: w.topic, partitions });
    }
    let totalBytes = -1n;
    let usableBytes = -1n;
    try {
      const fs = await statfs(logDir, { bigint: true });
      totalBytes = fs.blocks * fs.bsize;
      usableBytes = fs.bavail * fs.bsize;
    } catch (err) {
      // Volume sizes are informational (v4); report "unknown" (-1) rather than fail the request.
      b.logger.warn(`DescribeLogDirs: statfs ${logDir} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      results: [{ errorCode: ErrorCode.NONE, logDir, topics, totalBytes, usableBytes }],
    };
  },
});
