/**
 * Append micro-benchmark of the storage engine with 1 KiB records.
 *   npx tsx src/storage/bench.ts [seconds-per-case] [data-dir-parent]
 * Prints MB/s of record-batch bytes for: an in-memory baseline (validate the
 * CRC and keep the buffer, i.e. what a mock broker must do at least), durable
 * appends with many requests in flight (group commit), durable appends one at
 * a time (one fsync each), and non-durable appends.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { batchCrcValid } from "./batch.ts";
import { LogManager } from "./log-manager.ts";
import { buildBatch } from "./test-helpers.ts";

const seconds = Number(process.argv[2] ?? 3);
const parent = process.argv[3] ?? tmpdir();
const RECORD = 1024;
const PER_BATCH = 16;
const template = buildBatch({
  records: Array.from({ length: PER_BATCH }, (_, i) => ({ key: `key-${i}`, value: Buffer.alloc(RECORD, i) })),
});

interface Result {
  name: string;
  mbps: number;
  appendsPerSec: number;
  recordsPerSec: number;
}

async function timed(name: string, inFlight: number, op: () => Promise<void>): Promise<Result> {
  let appends = 0;
  const deadline = performance.now() + seconds * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < deadline) {
        await op();
        appends++;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  return {
    name,
    mbps: (appends * template.length) / elapsed / 1e6,
    appendsPerSec: appends / elapsed,
    recordsPerSec: (appends * PER_BATCH) / elapsed,
  };
}

async function main(): Promise<void> {
  const results: Result[] = [];
  const memory: Buffer[] = [];
  results.push(
    await timed("in-memory baseline (copy + CRC check)", 1, async () => {
      const b = Buffer.from(template);
      if (!batchCrcValid(b, 0, b.length)) throw new Error("bad crc");
      memory.push(b);
      if (memory.length > 4096) memory.length = 0;
      await Promise.resolve();
    }),
  );
  for (const [name, inFlight, durable] of [
    ["durable, 64 in flight (group commit)", 64, true],
    ["durable, 8 in flight (group commit)", 8, true],
    ["durable, 1 in flight", 1, true],
    ["not durable, 64 in flight", 64, false],
  ] as const) {
    const dir = await mkdtemp(join(parent, "kappa-bench-"));
    const mgr = await LogManager.open(dir);
    try {
      await mgr.createTopic("bench", { partitions: 1, configs: { "segment.bytes": String(256 * 1024 * 1024) } });
      const log = mgr.getPartition("bench", 0);
      results.push(
        await timed(name, inFlight, async () => {
          await log.append(Buffer.from(template), { requireDurable: durable });
        }),
      );
    } finally {
      await mgr.close();
      await rm(dir, { recursive: true, force: true });
    }
  }
  const base = results[0]!.mbps;
  console.log(`batch: ${PER_BATCH} x ${RECORD} B records = ${template.length} B; ${seconds}s per case; dir ${parent}`);
  for (const r of results) {
    console.log(
      `${r.name.padEnd(40)} ${r.mbps.toFixed(1).padStart(8)} MB/s ${Math.round(r.recordsPerSec).toString().padStart(9)} rec/s ` +
        `${Math.round(r.appendsPerSec).toString().padStart(7)} appends/s  ${((r.mbps / base) * 100).toFixed(0)}% of baseline`,
    );
  }
}

await main();
