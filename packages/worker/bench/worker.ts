/*
 * `npm run bench -w packages/worker` (root: `npm run bench:worker`).
 * Real PostgreSQL (embedded) and the project's broker over TCP in a child
 * process (so this process's memory is the worker's), as `npm start` runs it:
 * SASL/SCRAM, the ACL authorizer, the admin as super user.
 *  1. From empty to converged: 10,000 approved products (6 partitions each,
 *     50 domains) with 5 approved subscriptions each, drained by the task
 *     runner: topics, SCRAM users, ACLs.
 *  2. A no-op full reconcile over the same state.
 *  3. Observation over 60,000 partitions and 5,000 consumer groups: the first
 *     cycle (nothing known yet), a steady cycle (nothing moved), a cycle after
 *     records reached 100 topics, and the slowest of the cycles of one whole
 *     refresh round (every figure of every partition re-read once).
 *  4. The worker's memory: peak RSS of this process over the run.
 * BENCH_PRODUCTS, BENCH_PARTITIONS, BENCH_SUBSCRIPTIONS, BENCH_GROUPS change the shape;
 * BENCH_BROKER_PROFILE=<dir> writes the broker's CPU profile there;
 * BENCH_HEAP_SNAPSHOTS=<dir> writes heap snapshots of this process after the
 * convergence and after the observation (run with --expose-gc to have the
 * retained heap printed too).
 * The bench runs with the worker process's own settings (src/runtime.ts: the
 * V8 heap cap, WORKER_MAX_HEAP_MB if set, and MALLOC_ARENA_MAX), as `npm start`
 * starts the worker: it re-executes itself with them (glibc reads
 * MALLOC_ARENA_MAX only at process start). The harness shares that heap, so
 * the cap is tighter here than in the worker's own process.
 * Prints the figures; exits non-zero only on errors, not on missed targets.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { getHeapStatistics, writeHeapSnapshot } from "node:v8";
import kafkajs from "kafkajs";
import pg from "pg";
import { createPrismaClient } from "@kappa/catalog";
import { startTestPostgres } from "@kappa/catalog/testing";
import { ApiKey } from "@kappa/kafka-protocol";
import { KafkaConnection } from "@kappa/kafka-protocol/client";
import { KafkaJsCluster } from "../src/kafka/kafkajs-cluster.ts";
import { silentLogger } from "../src/log.ts";
import { fullReconcile } from "../src/reconcile/full.ts";
import { leaseTasks } from "../src/tasks/runner.ts";
import { Worker } from "../src/worker.ts";
import { BENCH_SASL, SASL_ADMIN, startChildBroker } from "./child-broker.ts";
import { GcWatch } from "./gc-watch.ts";
import { seedWorkerBench } from "./seed.ts";
import { runUnderWorkerRuntime } from "./worker-runtime.ts";

const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 10_000);
const PARTITIONS = Number(process.env.BENCH_PARTITIONS ?? 6);
const SUBS_PER_PRODUCT = Number(process.env.BENCH_SUBSCRIPTIONS ?? 5);
const DOMAINS = 50;
const CONSUMERS_PER_DOMAIN = 5;
const GROUPS = Number(process.env.BENCH_GROUPS ?? 5_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const OBSERVE_INTERVAL_MS = 5_000;
/** BENCH_ONLY=observe skips the convergence and reconcile figures (topics are created directly); BENCH_ONLY=converge stops after them. */
const ONLY = process.env.BENCH_ONLY ?? "";

/** Collects per-kind task durations from the runner's "task done" log lines. */
const taskMs = new Map<string, number[]>();
const profiler = {
  ...silentLogger,
  info: (message: string, fields?: Record<string, unknown>) => {
    if (message === "batch done" && typeof fields?.ms === "number") {
      taskMs.set("batch (all kinds)", [...(taskMs.get("batch (all kinds)") ?? []), fields.ms]);
      const phases = fields.phaseMs;
      if (typeof phases === "object" && phases !== null) {
        for (const [name, ms] of Object.entries(phases)) if (typeof ms === "number") taskMs.set(`  batch phase ${name}`, [...(taskMs.get(`  batch phase ${name}`) ?? []), ms]);
      }
    }
    if (message === "task done" && typeof fields?.kind === "string" && typeof fields.ms === "number") {
      taskMs.set(fields.kind, [...(taskMs.get(fields.kind) ?? []), fields.ms]);
    }
  },
};

const loadAverage = () => os.loadavg().map((x) => x.toFixed(1)).join(" ");
const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mb = (bytes: number) => `${Math.round(bytes / 1048576)} MB`;
const line = (label: string, value: string) => console.log(`${label.padEnd(64)} ${value}`);

/**
 * Peak RSS and heap of this process, sampled every 100 ms. The process also
 * holds the harness (tsx, the seeding, the bench's own queries), so the
 * worker's share is reported too: the peak over the baseline taken (after a
 * GC, when exposed) just before the worker starts working.
 */
const memory = { rss: 0, heap: 0 };
const baseline = { rss: 0, heap: 0 };
function takeBaseline() {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  Object.assign(baseline, { rss: m.rss, heap: m.heapUsed });
  Object.assign(memory, { rss: m.rss, heap: m.heapUsed });
  gcWatch.resetLive(m.heapUsed);
  gcWatch.pausesSince();
  Object.assign(offHeap, { external: m.external, arrayBuffers: m.arrayBuffers });
  memoryBreakdown("baseline");
}
const offHeap = { external: 0, arrayBuffers: 0 };
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  memory.rss = Math.max(memory.rss, m.rss);
  memory.heap = Math.max(memory.heap, m.heapUsed);
  offHeap.external = Math.max(offHeap.external, m.external);
  offHeap.arrayBuffers = Math.max(offHeap.arrayBuffers, m.arrayBuffers);
}, 100);
sampler.unref();

/** The live set and GC pauses (bench/gc-watch.ts). */
const gcWatch = new GcWatch();

/** Anonymous (heap, malloc, buffers) and file-backed (code, libraries) resident memory, from /proc. */
function residentSplit(): { anonymous: number; file: number } | null {
  try {
    const rollup = readFileSync("/proc/self/smaps_rollup", "utf8");
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(rollup)?.[1] ?? 0) * 1024;
    return { anonymous: kb("Anonymous"), file: kb("Rss") - kb("Anonymous") };
  } catch {
    return null;
  }
}

/** Where the resident memory is: V8's heap (committed / used), buffers and other off-heap memory. */
function memoryBreakdown(label: string) {
  const m = process.memoryUsage();
  const split = residentSplit();
  line(
    `     ${label}: RSS = anonymous + file-backed; heap committed / used; external / of it array buffers`,
    `${mb(m.rss)}${split ? ` = ${mb(split.anonymous)} + ${mb(split.file)}` : ""}; ${mb(m.heapTotal)} / ${mb(m.heapUsed)}; ${mb(m.external)} / ${mb(m.arrayBuffers)}`,
  );
}

/**
 * The heap still held after a full GC (what the worker keeps, as opposed to
 * the garbage of its last work that the peak includes), and a heap snapshot
 * when BENCH_HEAP_SNAPSHOTS names a directory.
 */
function retained(label: string) {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return;
  gc();
  const m = process.memoryUsage();
  line(`     retained after a GC (${label}): RSS / heap over the baseline`, `${mb(m.rss - baseline.rss)} / ${mb(m.heapUsed - baseline.heap)}`);
  memoryBreakdown(`after that GC (${label})`);
  line(`     live heap peak (heap in use after a full GC; ${gcWatch.fullGcs} full GCs so far) / peak external / array buffers`, `${mb(gcWatch.livePeak)} / ${mb(offHeap.external)} / ${mb(offHeap.arrayBuffers)}`);
  const dir = process.env.BENCH_HEAP_SNAPSHOTS;
  if (dir) line("     heap snapshot", writeHeapSnapshot(path.join(dir, `worker-${label.replace(/\W+/g, "-")}.heapsnapshot`)));
}

/** RSS of another process (the broker), from /proc. */
function rssOf(pid: number | undefined): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

async function main() {
  const pgServer = await startTestPostgres();
  const dataDir = await mkdtemp(path.join(tmpdir(), "kappa-worker-bench-"));
  const broker = await startChildBroker(dataDir);
  const sasl = BENCH_SASL;
  const admin = new pg.Client(pgServer.adminUrl);
  await admin.connect();
  await admin.query(`CREATE DATABASE bench TEMPLATE kappa_test_template`);
  await admin.end();
  const url = new URL(pgServer.adminUrl);
  url.pathname = "/bench";
  const seedStart = Date.now();
  const seeded = await seedWorkerBench(url.toString(), { products: PRODUCTS, partitions: PARTITIONS, subscriptionsPerProduct: SUBS_PER_PRODUCT, domains: DOMAINS, consumersPerDomain: CONSUMERS_PER_DOMAIN });
  url.searchParams.set("connection_limit", String(CONCURRENCY + 6));
  const db = createPrismaClient(url.toString());
  const cluster = new KafkaJsCluster({ brokers: [broker.bootstrap], sasl, ssl: false, clientId: "kappa-worker-bench", requestTimeoutMs: 60_000 }, silentLogger);
  line(`seeded ${PRODUCTS} products × ${PARTITIONS} partitions, ${seeded.subscriptions} subscriptions, ${seeded.tasks} tasks`, fmt(Date.now() - seedStart));

  try {
    // ---- 1. empty → converged
    const worker = new Worker(db, cluster, {
      workerId: "bench",
      concurrency: CONCURRENCY,
      batchSize: BATCH,
      pollMs: 20,
      leaseMs: 120_000,
      maxAttempts: 1,
      backoffBaseMs: 1000,
      backoffMaxMs: 1000,
      reconcileIntervalMs: 3_600_000,
      observeIntervalMs: 3_600_000,
      historyHours: 48,
      retiredTopics: "keep",
      secretsKey: randomBytes(32),
      healthPort: 0,
    }, profiler);
    {
      const t = Date.now();
      const leased = await leaseTasks(db, "probe", 16, 60_000);
      line("     one lease query on the seeded queue", `${Date.now() - t} ms (${leased.length} tasks)`);
      await db.provisioningTask.updateMany({ where: { leasedBy: "probe" }, data: { status: "PENDING", leasedBy: null, leaseUntil: null, attempts: 0 } });
    }
    takeBaseline();
    line("     harness baseline before the worker starts (RSS / heap)", `${mb(baseline.rss)} / ${mb(baseline.heap)}   (load ${loadAverage()})`);
    if (ONLY === "observe") {
      // Iterating on the observer: topics created directly, the catalog marked converged.
      const t = Date.now();
      const products = await db.dataProduct.findMany({ select: { topicName: true } });
      for (let i = 0; i < products.length; i += 500) await cluster.createTopics(products.slice(i, i + 500).map((p) => ({ name: p.topicName, partitions: PARTITIONS, configs: {} })));
      await db.provisioningTask.updateMany({ data: { status: "DONE" } });
      await db.dataProduct.updateMany({ data: { status: "ACTIVE" } });
      await db.subscription.updateMany({ data: { status: "ACTIVE" } });
      line("   (BENCH_ONLY=observe: topics created directly, no convergence)", fmt(Date.now() - t));
    } else {
      const t1 = Date.now();
      await worker.runner.drain();
      const converge = Date.now() - t1;
      const byKind = await db.provisioningTask.groupBy({ by: ["kind", "status"], _count: true, orderBy: { kind: "asc" } });
      line(`1. empty → converged (task runner, ${CONCURRENCY} × batches of ${BATCH})`, fmt(converge) + `   (target ≤ 5 min; ${gcWatch.pausesSince()})`);
      for (const k of byKind) line(`     ${k.kind} ${k.status}`, String(k._count));
      for (const [kind, ms] of taskMs) {
        const sum = ms.reduce((a, b) => a + b, 0);
        line(`     ${kind} time per batch`, `mean ${(sum / ms.length).toFixed(1)} ms, max ${Math.max(...ms)} ms, sum ${fmt(sum)} (n=${ms.length})`);
      }
      const failed = await db.provisioningTask.findFirst({ where: { status: "FAILED" }, select: { kind: true, lastError: true } });
      if (failed) line("     first failure", `${failed.kind}: ${failed.lastError?.slice(0, 120)}`);
      line("     topics on the broker", String((await cluster.listTopics()).length));
      line("     ACL bindings on the broker", String((await cluster.describeAcls()).length));
      const accounts = await db.serviceAccount.findMany({ select: { name: true } });
      const users = await cluster.describeScramUsers(accounts.map((a) => a.name));
      line(`     SCRAM-SHA-512 users on the broker (of ${accounts.length} accounts)`, String([...users.values()].filter((m) => m.includes("SCRAM-SHA-512")).length));
      line("     products ACTIVE / subscriptions ACTIVE", `${await db.dataProduct.count({ where: { status: "ACTIVE" } })} / ${await db.subscription.count({ where: { status: "ACTIVE" } })}`);
      line("     worker peak RSS / heap so far", `${mb(memory.rss)} / ${mb(memory.heap)}   (over the baseline ${mb(memory.rss - baseline.rss)} / ${mb(memory.heap - baseline.heap)})`);
      retained("converged");

      // ---- 2. no-op full reconcile (open tasks mark entities busy: close them as the runner would have)
      await db.provisioningTask.updateMany({ where: { status: { not: "DONE" } }, data: { status: "DONE" } });
      await fullReconcile(worker.ctx, "bench-warmup");
      gcWatch.pausesSince();
      const t2 = Date.now();
      const noop = await fullReconcile(worker.ctx, "bench");
      line("2. no-op full reconcile", fmt(Date.now() - t2) + `   (target ≤ 5 s; load ${loadAverage()}; changes ${noop.changes.length}, section errors ${noop.errors.map((e) => e.resource).join(",") || "none"}; ${gcWatch.pausesSince()})`);
      line("     waited on, by part", Object.entries(noop.timing).map(([part, ms]) => `${part} ${fmt(ms)}`).join(", "));
    }

    if (ONLY === "converge") {
      line("worker peak RSS (BENCH_ONLY=converge): process / over the harness baseline", `${mb(memory.rss)} / ${mb(memory.rss - baseline.rss)}`);
      await worker.stop();
      return;
    }

    // ---- 3. observation
    // Simple (member-less) commits, as `kafka-consumer-groups --reset-offsets` makes: one OffsetCommit per group, every partition of its topic.
    const [host, port] = broker.bootstrap.split(":");
    const raw = await KafkaConnection.open({ host: host!, port: Number(port), clientId: "bench", sasl, tls: null, connectTimeoutMs: 3000, requestTimeoutMs: 30000 });
    const groupStart = Date.now();
    const commitVersion = raw.pickVersion(ApiKey.OffsetCommit, 2, 8);
    // The harness's own rows: dropped once the groups exist, so they are not counted as the worker's memory.
    let subs: { serviceAccount: { name: string }; product: { topicName: string } }[] = await db.subscription.findMany({ select: { serviceAccount: { select: { name: true } }, product: { select: { topicName: true } } }, orderBy: { id: "asc" } });
    for (let g0 = 0; g0 < GROUPS; g0 += 200) {
      await Promise.all(
        Array.from({ length: Math.min(200, GROUPS - g0) }, async (_, j) => {
          const g = g0 + j;
          const sub = subs[(g * Math.floor(subs.length / GROUPS)) % subs.length]!;
          const partitions = Array.from({ length: PARTITIONS }, (_, partitionIndex) => ({ partitionIndex, committedOffset: 0n }));
          const res = await raw.request(ApiKey.OffsetCommit, { groupId: `${sub.serviceAccount.name}.g${g}`, generationIdOrMemberEpoch: -1, memberId: "", topics: [{ name: sub.product.topicName, partitions }] }, commitVersion);
          const code = res.topics[0]?.partitions[0]?.errorCode ?? -1;
          if (code !== 0) throw new Error(`OffsetCommit for group ${g} failed with ${code}`);
        }),
      );
    }
    raw.close();
    subs = [];
    line(`     (set up ${GROUPS} groups with committed offsets)`, fmt(Date.now() - groupStart));

    gcWatch.pausesSince();
    let now = Date.now();
    let slowestRamp = 0;
    const cycle = async (label: string) => {
      now += OBSERVE_INTERVAL_MS;
      const t = Date.now();
      const s = await worker.observer.observeOnce(now);
      const ms = Date.now() - t;
      line(`${label}: ${s.partitions} partitions, ${s.groups} groups`, `${fmt(ms)}   (target ≤ 5 s; load ${loadAverage()})`);
      return { ms, s };
    };
    const first = await cycle("3. observation, first cycle (nothing known yet)");
    line("     rows written / left for the next cycles (per-cycle caps)", `${first.s.written.topics} topics, ${first.s.written.groups} groups / ${first.s.waiting.topics} topics, ${first.s.waiting.groups} groups`);
    let ramp = 1;
    let rampMs = first.ms;
    for (let s = first.s; s.waiting.topics + s.waiting.groups > 0 && ramp < 50; ramp++) {
      now += OBSERVE_INTERVAL_MS;
      const t = Date.now();
      s = await worker.observer.observeOnce(now);
      rampMs += Date.now() - t;
      if (Date.now() - t > slowestRamp) slowestRamp = Date.now() - t;
    }
    line(`   cycles until every topic and group was written once`, `${ramp} cycles, ${fmt(rampMs)} in all, slowest ${fmt(slowestRamp)}`);
    await cycle("   observation, steady cycle (nothing moved)");

    // Records reach 100 topics, then the next cycle.
    const kafka = new kafkajs.Kafka({ clientId: "bench-producer", brokers: [broker.bootstrap], sasl: { mechanism: "scram-sha-512", username: SASL_ADMIN.user, password: SASL_ADMIN.password }, logLevel: kafkajs.logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    const products = await db.dataProduct.findMany({ select: { topicName: true }, orderBy: { id: "asc" }, take: 100 });
    await producer.sendBatch({ topicMessages: products.map((p) => ({ topic: p.topicName, messages: Array.from({ length: 10 }, (_, i) => ({ key: String(i), value: "x" })) })) });
    await producer.disconnect();
    await cycle("   observation after records reached 100 topics");

    // One whole refresh round: every figure of every partition re-read once.
    const round = Math.ceil(worker.observer.refreshRoundMs / OBSERVE_INTERVAL_MS) + 1;
    let slowest = 0;
    let total = 0;
    for (let i = 0; i < round; i++) {
      now += OBSERVE_INTERVAL_MS;
      const t = Date.now();
      await worker.observer.observeOnce(now);
      const ms = Date.now() - t;
      slowest = Math.max(slowest, ms);
      total += ms;
    }
    line(`   slowest of ${round} cycles (one refresh round of ${fmt(worker.observer.refreshRoundMs)})`, `${fmt(slowest)}   (mean ${fmt(total / round)}; target ≤ 5 s)`);
    line("     the observation cycles' GC", gcWatch.pausesSince());
    const rows = await db.topicObservation.count();
    const groupRows = await db.consumerGroupObservation.count();
    line("     TopicObservation / ConsumerGroupObservation rows", `${rows} / ${groupRows}`);
    retained("observing");

    // ---- 4. memory
    line("4. bench process peak RSS (worker + harness; broker in a child)", `${mb(memory.rss)}   (peak heap ${mb(memory.heap)}; load ${loadAverage()})`);
    line("   worker's share: peak over the harness baseline (RSS / heap)", `${mb(memory.rss - baseline.rss)} / ${mb(memory.heap - baseline.heap)}   (target for the worker process ≤ 300 MB)`);
    const brokerRss = rssOf(broker.pid);
    if (brokerRss !== null) line("     broker RSS at the end (child process)", mb(brokerRss));
    await worker.stop();
  } finally {
    await cluster.close();
    await db.$disconnect();
    const stopping = Date.now();
    await broker.stop();
    line("     broker shutdown (child process, SIGTERM → exit)", fmt(Date.now() - stopping));
    // Synchronously: the promise version walks the 60,000 partition folders side by side, holding a
    // closure and a path per entry — it filled this process's capped heap (the bench's, not the worker's).
    rmSync(dataDir, { recursive: true, force: true });
    await pgServer.stop();
  }
}

runUnderWorkerRuntime(import.meta.url);
line("worker runtime (src/runtime.ts, as npm start runs the worker): V8 heap limit / MALLOC_ARENA_MAX", `${mb(getHeapStatistics().heap_size_limit)} / ${process.env.MALLOC_ARENA_MAX ?? "unset"}`);
main().then(
  // Everything is closed above; exiting here also ends what the libraries leave
  // pending (the bench printed its figures and then did not exit, session 3).
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
