/*
 * `npm run bench -w packages/worker` (second part): the latest-state view.
 * Real PostgreSQL (embedded) and the project's broker over TCP, both started
 * here; the broker in its own process (bench/child-broker.ts), and this
 * process re-executed with the worker's runtime settings (src/runtime.ts: the
 * V8 heap cap WORKER_MAX_HEAP_MB, default 512, the heap growing factor and
 * MALLOC_ARENA_MAX), as `npm start` runs the worker — so the memory figures
 * are the materialiser's (plus this harness: the producer and the checks).
 *  1. Produce BENCH_STATE_RECORDS (1,000,000) records over BENCH_STATE_KEYS
 *     (100,000) keys, ~120 bytes each, to a compacted topic of 4 partitions.
 *  2. Materialise them from offset 0: time to converge and records/s, peak RSS
 *     and heap of this process (state lives in PostgreSQL, not in RAM).
 *  3. 100,000 more updates (10 % tombstones): time to converge again.
 *  4. Key lookups: p50/p95 of the catalog's lookupStateKey (access check,
 *     decode, mask, audit event), of the previous sequential version of it
 *     (same loop, same load) and of each part on its own.
 * Checks the view against what was produced. Prints the figures.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { getHeapStatistics } from "node:v8";
import pg from "pg";
import { createPrismaClient, decodeValue, loadActor, lookupStateKey, recordViewer } from "@kappa/catalog";
import { startTestPostgres } from "@kappa/catalog/testing";
import { ApiKey, encodeRecordBatch } from "@kappa/kafka-protocol";
import { KafkaConnection } from "@kappa/kafka-protocol/client";
import { KafkaJsCluster } from "../src/kafka/kafkajs-cluster.ts";
import { silentLogger } from "../src/log.ts";
import { DEFAULT_WORKER_MAX_HEAP_MB } from "../src/runtime.ts";
import { StateMaterializer } from "../src/state/materializer.ts";
import { BENCH_SASL, startChildBroker } from "./child-broker.ts";
import { GcWatch } from "./gc-watch.ts";
import { runUnderWorkerRuntime } from "./worker-runtime.ts";

const RECORDS = Number(process.env.BENCH_STATE_RECORDS ?? 1_000_000);
const KEYS = Number(process.env.BENCH_STATE_KEYS ?? 100_000);
const PARTITIONS = 4;
const LOOKUPS = Number(process.env.BENCH_STATE_LOOKUPS ?? 2_000);
const TOPIC = "bench.customers.v1";

const line = (label: string, value: string) => console.log(`${label.padEnd(58)} ${value}`);
const mib = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? 0;

/** Deterministic key order: a permutation walk so updates of one key are spread over the run. */
const keyOf = (i: number) => `customer-${(i * 7919) % KEYS}`;
const partitionOf = (key: string) => {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) | 0;
  return Math.abs(h) % PARTITIONS;
};
const valueOf = (i: number, key: string) => JSON.stringify({ id: key, name: `Customer ${key}`, tier: i % 5, seq: i, note: "x".repeat(40) });

async function produce(conn: KafkaConnection, from: number, to: number, expected: Map<string, string>, tombstoneEvery = 0): Promise<void> {
  const version = conn.pickVersion(ApiKey.Produce, 3, 8);
  const perRequest = 20_000;
  for (let start = from; start < to; start += perRequest) {
    const byPartition = new Map<number, { key: string; value: string | null }[]>();
    for (let i = start; i < Math.min(to, start + perRequest); i++) {
      const key = keyOf(i);
      const value = tombstoneEvery > 0 && i % tombstoneEvery === 0 ? null : valueOf(i, key);
      if (value === null) expected.delete(key);
      else expected.set(key, value);
      const list = byPartition.get(partitionOf(key)) ?? [];
      list.push({ key, value });
      byPartition.set(partitionOf(key), list);
    }
    const now = BigInt(Date.now());
    const res = await conn.request(
      ApiKey.Produce,
      {
        transactionalId: null,
        acks: 1,
        timeoutMs: 30_000,
        topicData: [
          {
            name: TOPIC,
            partitionData: [...byPartition].map(([index, records]) => ({
              index,
              records: encodeRecordBatch({ baseTimestamp: now, records: records.map((r, j) => ({ key: r.key, value: r.value, offsetDelta: j })) }),
            })),
          },
        ],
      },
      version,
    );
    for (const t of res.responses) for (const p of t.partitionResponses) if (p.errorCode !== 0) throw new Error(`produce to ${TOPIC}-${p.index}: error ${p.errorCode}`);
  }
}

async function main() {
  line("load average (1 / 5 / 15 min) at the start", loadavg().map((l) => l.toFixed(2)).join(" / "));
  const pgServer = await startTestPostgres();
  const dataDir = await mkdtemp(path.join(tmpdir(), "kappa-state-bench-"));
  const broker = await startChildBroker(dataDir, { "message.max.bytes": String(16 * 1024 * 1024) });
  const admin = new pg.Client(pgServer.adminUrl);
  await admin.connect();
  await admin.query(`CREATE DATABASE bench_state TEMPLATE kappa_test_template`);
  await admin.end();
  const url = new URL(pgServer.adminUrl);
  url.pathname = "/bench_state";
  const db = createPrismaClient(url.toString());
  const cluster = new KafkaJsCluster({ brokers: [broker.bootstrap], sasl: BENCH_SASL, ssl: false, clientId: "kappa-state-bench" }, silentLogger);
  const [host, port] = [broker.bootstrap.split(":")[0] ?? "127.0.0.1", Number(broker.bootstrap.split(":")[1])];
  const conn = await KafkaConnection.open({ host, port, clientId: "state-bench-producer", sasl: BENCH_SASL, tls: null, connectTimeoutMs: 3_000, requestTimeoutMs: 60_000 });
  let peakRss = 0;
  let peakHeap = 0;
  // The live set: heap in use right after each full (mark-compact) collection — what the cap must hold.
  const gcWatch = new GcWatch();
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 100);
  try {
    const domain = await db.domain.create({ data: { slug: "bench", name: "Bench" } });
    const owner = await db.user.create({ data: { email: "owner@bench", name: "owner" } });
    await db.membership.create({ data: { userId: owner.id, domainId: domain.id, role: "OWNER" } });
    const product = await db.dataProduct.create({
      data: { domainId: domain.id, name: "Customers", slug: "customers", description: "bench", classification: "INTERNAL", tags: [], freshnessSeconds: 60, availabilityPct: 99.9, partitions: PARTITIONS, cleanupPolicy: "compact", topicName: TOPIC, status: "ACTIVE", contactEmail: "x@bench", createdById: owner.id },
    });
    await db.schemaVersion.create({ data: { productId: product.id, version: 1, format: "JSON_SCHEMA", status: "APPROVED", definition: JSON.stringify({ type: "object", properties: { id: { type: "string" }, name: { type: "string", "x-pii": true } } }) } });
    await cluster.createTopics([{ name: TOPIC, partitions: PARTITIONS, configs: { "cleanup.policy": "compact", "retention.ms": "-1" } }]);

    const expected = new Map<string, string>();
    const produceStart = Date.now();
    await produce(conn, 0, RECORDS, expected);
    line(`produced ${RECORDS.toLocaleString("en-US")} records over ${KEYS.toLocaleString("en-US")} keys (${PARTITIONS} partitions)`, `${((Date.now() - produceStart) / 1000).toFixed(1)} s`);

    // The harness's own live set (the produced records' expected values, clients), after a full GC when exposed.
    (globalThis as { gc?: () => void }).gc?.();
    const liveBefore = process.memoryUsage().heapUsed;
    const rssBefore = process.memoryUsage().rss;
    peakRss = 0;
    peakHeap = 0;
    gcWatch.resetLive(0);
    const m = new StateMaterializer(db, cluster, { workerId: "bench", pollMs: 3_600_000, sliceMs: 3_600_000, ...(process.env.WORKER_STATE_FETCH_BYTES ? { partitionFetchBytes: Number(process.env.WORKER_STATE_FETCH_BYTES) } : {}) }, silentLogger);
    const t0 = Date.now();
    await m.catchUp();
    const converge = (Date.now() - t0) / 1000;
    line("materialise from offset 0: time to converge", `${converge.toFixed(1)} s`);
    line("materialise from offset 0: throughput", `${Math.round(RECORDS / converge).toLocaleString("en-US")} records/s`);
    line("worker process memory while materialising (peak RSS / heap)", `${mib(peakRss)} / ${mib(peakHeap)} (RSS before: ${mib(rssBefore)})`);
    line("  live heap peak (after a full GC) / full GCs / heap cap", `${mib(gcWatch.livePeak)} (${mib(gcWatch.livePeak - liveBefore)} over the harness's ${mib(liveBefore)}) / ${gcWatch.fullGcs} / ${process.env.WORKER_MAX_HEAP_MB ?? DEFAULT_WORKER_MAX_HEAP_MB} MiB`);

    const updates = Math.round(RECORDS / 10);
    await produce(conn, RECORDS, RECORDS + updates, expected, 10);
    const t1 = Date.now();
    await m.catchUp();
    const again = (Date.now() - t1) / 1000;
    line(`${updates.toLocaleString("en-US")} more updates (10 % tombstones): time to converge`, `${again.toFixed(1)} s (${Math.round(updates / again).toLocaleString("en-US")} records/s)`);

    const count = await db.stateEntry.count({ where: { productId: product.id } });
    const sample = [...expected].filter((_, i) => i % 97 === 0);
    let mismatches = 0;
    for (const [key, value] of sample) {
      const row = await db.stateEntry.findUnique({ where: { productId_key: { productId: product.id, key: Buffer.from(key) } } });
      if (!row || Buffer.from(row.value).toString() !== value) mismatches++;
    }
    line("view = what was produced (keys, sampled values)", `${count === expected.size && mismatches === 0 ? "yes" : `NO (${count} keys vs ${expected.size}, ${mismatches} of ${sample.length} values differ)`}`);

    const actor = await loadActor(db, owner.id);
    const keys = [...expected.keys()];
    // The lookup's parts, each timed on its own in the same loop (where the time goes).
    const parts = { full: [] as number[], previous: [] as number[], bare: [] as number[], viewer: [] as number[], decode: [] as number[], audit: [] as number[] };
    const timed = async <T>(into: number[], f: () => Promise<T> | T): Promise<T> => {
      const s = performance.now();
      const out = await f();
      into.push(performance.now() - s);
      return out;
    };
    const before = await db.auditEvent.count({ where: { action: "state.key-read" } });
    for (let i = 0; i < LOOKUPS; i++) {
      const key = keys[(i * 104_729) % keys.length] ?? "";
      await timed(parts.full, () => lookupStateKey(db, actor, product.id, key));
      // The lookup as it was before (an owner's: product, then its schema versions, then the key, then the audit row), for comparison under the same load.
      await timed(parts.previous, async () => {
        const p = await db.dataProduct.findUnique({ where: { id: product.id }, include: { schemaVersions: { where: { status: { not: "REJECTED" } }, orderBy: { version: "desc" } } } });
        const e = await db.stateEntry.findUnique({ where: { productId_key: { productId: product.id, key: Buffer.from(key) } } });
        await db.auditEvent.create({ data: { actorId: actor.id, actorEmail: actor.email, action: "bench.previous-lookup", entityType: "DataProduct", entityId: product.id, data: { key: Buffer.from(key).toString("hex"), found: e !== null, piiVisible: p !== null } } });
      });
      const row = await timed(parts.bare, () => db.stateEntry.findUnique({ where: { productId_key: { productId: product.id, key: Buffer.from(key) } } }));
      const viewer = await timed(parts.viewer, () => recordViewer(db, actor, product.id));
      await timed(parts.decode, () => decodeValue(row ? Buffer.from(row.value) : null, viewer.values));
      await timed(parts.audit, () => db.auditEvent.create({ data: { actorId: actor.id, actorEmail: actor.email, action: "bench.audit-insert", entityType: "DataProduct", entityId: product.id, data: { key: Buffer.from(key).toString("hex") } } }));
    }
    const audited = (await db.auditEvent.count({ where: { action: "state.key-read" } })) - before;
    const fig = (xs: number[]) => `${pct(xs, 50).toFixed(2)} ms / ${pct(xs, 95).toFixed(2)} ms`;
    line(`key lookup, catalog lookupStateKey (${LOOKUPS} lookups): p50 / p95`, `${fig(parts.full)} (target p95 ≤ 10 ms)`);
    line("the previous lookup's 4 sequential round trips, same loop: p50 / p95", fig(parts.previous));
    line("  of which: access check + schema (recordViewer): p50 / p95", fig(parts.viewer));
    line("  of which: primary-key read: p50 / p95", fig(parts.bare));
    line("  of which: decode + mask: p50 / p95", fig(parts.decode));
    line("  of which: one audit row insert (autocommit): p50 / p95", fig(parts.audit));
    line("lookups audited (state.key-read rows written for them)", `${audited.toLocaleString("en-US")} of ${LOOKUPS.toLocaleString("en-US")}`);
    line("load average (1 / 5 / 15 min) after the lookups", loadavg().map((l) => l.toFixed(2)).join(" / "));
    await m.stop();
  } finally {
    clearInterval(sampler);
    gcWatch.stop();
    conn.close();
    await cluster.close();
    await db.$disconnect();
    await broker.stop();
    await pgServer.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

runUnderWorkerRuntime(import.meta.url);
line("worker runtime (src/runtime.ts): V8 heap limit / MALLOC_ARENA_MAX", `${mib(getHeapStatistics().heap_size_limit)} / ${process.env.MALLOC_ARENA_MAX ?? "unset"}`);
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
