// Benchmark: `npx tsx bench/tiered.ts` (TIERED_BENCH_MB=64 by default).
//
// Full replay throughput from the object store versus from local segments, in
// the same run and the same broker process: two topics get the same records
// (1 KiB values, batches of 100, segment.bytes 1 MiB); one has
// remote.storage.enable=true with local.retention.ms=0, so once the copier is
// done every closed segment lives only in the folder store. Each topic is then
// read from offset 0 to the end with raw Fetch v11 requests (1 MiB per
// partition, as kafkajs asks), twice: the first remote replay starts with a cold
// chunk cache, the second shows the cache's effect (it holds 64 MiB by default,
// so a larger replay mostly misses again). The folder store sits on the same
// disk, and the files were just written, so this measures the broker's remote
// read path (index lookups, chunked ranged reads, cache), not a network store.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiKey, encodeRecordBatch, iterateBatches } from "@kappa/kafka-protocol";
import { startBroker } from "../src/index.ts";
import { RawClient } from "../test/helpers.ts";

const MB = Number(process.env.TIERED_BENCH_MB ?? 64);
const RECORD_BYTES = 1024;
const PER_BATCH = 100;

const quiet = { debug: () => {}, info: () => {}, warn: (m: string) => process.stderr.write(`WARN ${m}\n`), error: (m: string) => process.stderr.write(`ERROR ${m}\n`) };

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "kappa-tiered-bench-"));
  const remoteDir = await mkdtemp(join(tmpdir(), "kappa-tiered-bench-remote-"));
  const broker = await startBroker({
    port: 0,
    "log.dirs": dataDir,
    "remote.log.storage.system.enable": true,
    "remote.log.storage.dir": remoteDir,
    "remote.log.manager.task.interval.ms": 100,
    "log.retention.check.interval.ms": 100,
    logger: quiet,
  });
  const c = await RawClient.connect(broker.port);
  try {
    const common = [{ name: "segment.bytes", value: String(1024 * 1024) }];
    const r = await c.request(ApiKey.CreateTopics, 4, {
      topics: [
        { name: "replay-remote", numPartitions: 1, replicationFactor: 1, configs: [...common, { name: "remote.storage.enable", value: "true" }, { name: "local.retention.ms", value: "0" }] },
        { name: "replay-local", numPartitions: 1, replicationFactor: 1, configs: common },
      ],
      timeoutMs: 5000,
    });
    for (const t of r.body.topics) if (t.errorCode !== 0) throw new Error(`create ${t.name}: error ${t.errorCode} ${t.errorMessage}`);

    const batches = Math.ceil((MB * 1024 * 1024) / (RECORD_BYTES * PER_BATCH));
    const value = randomBytes(RECORD_BYTES);
    for (let i = 0; i < batches; i++) {
      const batch = encodeRecordBatch({ baseTimestamp: BigInt(Date.now()), records: Array.from({ length: PER_BATCH }, (_, j) => ({ value, timestampDelta: j })) });
      for (const topic of ["replay-remote", "replay-local"]) {
        const res = await c.request(ApiKey.Produce, 8, { acks: 1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records: Buffer.from(batch) }] }] });
        const code = res.body.responses[0]!.partitionResponses[0]!.errorCode;
        if (code !== 0) throw new Error(`produce to ${topic}: error ${code}`);
      }
    }
    const records = BigInt(batches * PER_BATCH);

    // Wait until everything closed has been copied and dropped locally.
    const offsets = async (topic: string, ts: bigint): Promise<bigint> =>
      (await c.request(ApiKey.ListOffsets, 9, { replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp: ts }] }] })).body.topics[0]!.partitions[0]!.offset;
    const t0 = Date.now();
    for (;;) {
      const local = await offsets("replay-remote", -4n);
      const tiered = await offsets("replay-remote", -5n);
      if (tiered >= 0n && local === tiered + 1n) break;
      if (Date.now() - t0 > 120_000) throw new Error(`copier did not finish: earliest local ${local}, latest tiered ${tiered}`);
      await new Promise((res) => setTimeout(res, 100));
    }
    const copyMs = Date.now() - t0;
    const localStart = await offsets("replay-remote", -4n);

    const replay = async (topic: string): Promise<{ ms: number; bytes: number; records: bigint }> => {
      const start = process.hrtime.bigint();
      let offset = 0n;
      let bytes = 0;
      let n = 0n;
      while (offset < records) {
        const res = await c.request(ApiKey.Fetch, 11, {
          replicaId: -1,
          maxWaitMs: 0,
          minBytes: 0,
          maxBytes: 50 * 1024 * 1024,
          isolationLevel: 0,
          topics: [{ topic, partitions: [{ partition: 0, fetchOffset: offset, partitionMaxBytes: 1024 * 1024 }] }],
        });
        const p = res.body.responses[0]!.partitions[0]!;
        if (p.errorCode !== 0) throw new Error(`fetch ${topic} at ${offset}: error ${p.errorCode}`);
        const recs = p.records ?? Buffer.alloc(0);
        bytes += recs.length;
        let last = -1n;
        for (const { header } of iterateBatches(recs)) {
          last = header.baseOffset + BigInt(header.lastOffsetDelta);
          n += BigInt(header.recordCount);
        }
        if (last < offset) throw new Error(`no progress on ${topic} at ${offset}`);
        offset = last + 1n;
      }
      return { ms: Number(process.hrtime.bigint() - start) / 1e6, bytes, records: n };
    };
    const fmt = (label: string, r: { ms: number; bytes: number; records: bigint }): string =>
      `${label.padEnd(34)} ${(r.bytes / 1048576 / (r.ms / 1000)).toFixed(1).padStart(7)} MiB/s ${Math.round(Number(r.records) / (r.ms / 1000)).toString().padStart(9)} records/s  (${r.records} records, ${(r.bytes / 1048576).toFixed(1)} MiB in ${r.ms.toFixed(0)} ms)`;

    const local1 = await replay("replay-local");
    const remote1 = await replay("replay-remote");
    const local2 = await replay("replay-local");
    const remote2 = await replay("replay-remote");
    process.stdout.write(
      [
        `tiered replay bench: ${records} records of ${RECORD_BYTES} B (${MB} MiB), segment.bytes 1 MiB; copier finished ${copyMs} ms after the last produce; ` +
          `remote topic's earliest local offset ${localStart} (everything below is only in ${remoteDir})`,
        fmt("replay from local segments (1st)", local1),
        fmt("replay from object store (1st)", remote1),
        fmt("replay from local segments (2nd)", local2),
        fmt("replay from object store (2nd)", remote2),
        `remote/local throughput ratio: ${((remote1.bytes / remote1.ms) / (local1.bytes / local1.ms)).toFixed(2)} (1st), ${((remote2.bytes / remote2.ms) / (local2.bytes / local2.ms)).toFixed(2)} (2nd)`,
      ].join("\n") + "\n",
    );
  } finally {
    c.close();
    await broker.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(remoteDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
