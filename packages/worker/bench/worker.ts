/*
 * `npm run bench -w packages/worker` (root: `npm run bench:worker`).
 * Real PostgreSQL (embedded) and the project's broker over TCP, both started here.
 *  1. From empty to converged: 1,000 approved products (20 domains) with 5
 *     approved subscriptions each (100 consumer accounts), drained by the task
 *     runner: topics, SCRAM users, ACLs.
 *  2. A no-op full reconcile over the same state.
 *  3. One observation cycle over 1,000 partitions and 500 consumer groups.
 * Prints the figures; exits non-zero only on errors, not on missed targets.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { ApiKey } from "@kappa/kafka-protocol";
import { createPrismaClient, topicConfigs } from "@kappa/catalog";
import { startTestPostgres } from "@kappa/catalog/testing";
import { startBroker } from "@kappa/broker";
import { KafkaJsCluster } from "../src/kafka/kafkajs-cluster.ts";
import { RawConnection } from "../src/kafka/raw-connection.ts";
import { silentLogger } from "../src/log.ts";
import { fullReconcile } from "../src/reconcile/full.ts";
import { Worker } from "../src/worker.ts";
import { leaseTasks } from "../src/tasks/runner.ts";

const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 1000);
const SUBS_PER_PRODUCT = 5;
const DOMAINS = 20;
const CONSUMERS_PER_DOMAIN = 5;
const GROUPS = Number(process.env.BENCH_GROUPS ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const SASL_ADMIN = { user: "kappa-admin", password: "bench-admin-secret" };

/** Collects per-kind task durations from the runner's "task done" log lines. */
const taskMs = new Map<string, number[]>();
const profiler = {
  ...silentLogger,
  info: (message: string, fields?: Record<string, unknown>) => {
    if (message === "task done" && typeof fields?.kind === "string" && typeof fields.ms === "number") {
      taskMs.set(fields.kind, [...(taskMs.get(fields.kind) ?? []), fields.ms]);
      if (typeof fields.handlerMs === "number") taskMs.set(`${fields.kind} (Kafka + reads)`, [...(taskMs.get(`${fields.kind} (Kafka + reads)`) ?? []), fields.handlerMs]);
    }
  },
};

const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const line = (label: string, value: string) => console.log(`${label.padEnd(58)} ${value}`);

async function main() {
  const pgServer = await startTestPostgres();
  const dataDir = await mkdtemp(path.join(tmpdir(), "kappa-worker-bench-"));
  // As `npm start` runs it: SASL/SCRAM, the ACL authorizer, the admin as super user.
  const broker = await startBroker({
    host: "127.0.0.1",
    "log.dirs": dataDir,
    listeners: "SASL_PLAINTEXT://127.0.0.1:0",
    "authorizer.class.name": "standard",
    "super.users": `User:${SASL_ADMIN.user}`,
    saslUsers: [{ name: SASL_ADMIN.user, password: SASL_ADMIN.password }],
    "group.initial.rebalance.delay.ms": 0,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  });
  const sasl = { mechanism: "SCRAM-SHA-512" as const, username: SASL_ADMIN.user, password: SASL_ADMIN.password };
  const admin = new pg.Client(pgServer.adminUrl);
  await admin.connect();
  await admin.query(`CREATE DATABASE bench TEMPLATE kappa_test_template`);
  await admin.end();
  const url = new URL(pgServer.adminUrl);
  url.pathname = "/bench";
  url.searchParams.set("connection_limit", String(CONCURRENCY + 6));
  const db = createPrismaClient(url.toString());
  const cluster = new KafkaJsCluster({ brokers: [broker.bootstrap], sasl, ssl: false, clientId: "kappa-worker-bench" }, silentLogger);

  try {
    // ---- seed the catalog as approvals would leave it
    const seedStart = Date.now();
    const reviewer = await db.user.create({ data: { email: "reviewer@bench", name: "r", globalRole: "GOVERNANCE" } });
    const domains = await Promise.all(Array.from({ length: DOMAINS }, (_, d) => db.domain.create({ data: { slug: `d${d}`, name: `Domain ${d}` } })));
    const producers = await Promise.all(domains.map((d) => db.serviceAccount.create({ data: { domainId: d.id, name: `${d.slug}-producer`, isProducer: true } })));
    const consumers = (await Promise.all(domains.flatMap((d) => Array.from({ length: CONSUMERS_PER_DOMAIN }, (_, i) => db.serviceAccount.create({ data: { domainId: d.id, name: `${d.slug}-app${i}` } })))));
    const products = Array.from({ length: PRODUCTS }, (_, i) => {
      const domain = domains[i % DOMAINS]!;
      return ({ id: `p${i}`, domainId: domain.id, name: `Product ${i}`, slug: `p${i}`, description: "bench", classification: "INTERNAL" as const, tags: [], freshnessSeconds: 60, availabilityPct: 99.9, partitions: 1, retentionMs: -1n, topicName: `${domain.slug}.p${i}.v1`, status: "APPROVED" as const, contactEmail: "x@bench", createdById: reviewer.id });
    });
    await db.dataProduct.createMany({ data: products });
    const tasks: { kind: string; payload: object; entityType: string; entityId: string; step: number }[] = [];
    const subscriptions: { id: string; productId: string; consumingDomainId: string; serviceAccountId: string; purpose: string; status: "APPROVED"; requestedById: string }[] = [];
    products.forEach((p, i) => {
      const producer = producers[i % DOMAINS]!;
      tasks.push({ kind: "CREATE_TOPIC", payload: { topic: p.topicName, partitions: 1, configs: topicConfigs({ ...p, cleanupPolicy: "delete", tieredStorage: false, localRetentionMs: -2n }) }, entityType: "DataProduct", entityId: p.id, step: 1 });
      tasks.push({ kind: "ENSURE_SERVICE_ACCOUNT", payload: { serviceAccountId: producer.id, username: producer.name, mechanism: "SCRAM-SHA-512" }, entityType: "DataProduct", entityId: p.id, step: 2 });
      tasks.push({ kind: "GRANT_PRODUCER_ACL", payload: { principal: `User:${producer.name}`, topic: p.topicName, operations: ["WRITE", "DESCRIBE"], cluster: ["IDEMPOTENT_WRITE"] }, entityType: "DataProduct", entityId: p.id, step: 3 });
      for (let s = 0; s < SUBS_PER_PRODUCT; s++) {
        // Consumers from other domains, spread evenly.
        const account = consumers[(i * SUBS_PER_PRODUCT + s + CONSUMERS_PER_DOMAIN) % consumers.length]!;
        const id = `s${i}-${s}`;
        subscriptions.push({ id, productId: p.id, consumingDomainId: account.domainId, serviceAccountId: account.id, purpose: "bench", status: "APPROVED", requestedById: reviewer.id });
        tasks.push({ kind: "GRANT_SUBSCRIPTION_ACL", payload: { subscriptionId: id, principal: `User:${account.name}`, topic: p.topicName, topicOperations: ["READ", "DESCRIBE"], groupPrefix: `${account.name}.`, groupOperations: ["READ"] }, entityType: "Subscription", entityId: id, step: 1 });
      }
    });
    await db.subscription.createMany({ data: subscriptions });
    for (let i = 0; i < tasks.length; i += 2000) await db.provisioningTask.createMany({ data: tasks.slice(i, i + 2000) });
    line(`seeded ${PRODUCTS} products, ${subscriptions.length} subscriptions, ${tasks.length} tasks`, fmt(Date.now() - seedStart));

    // ---- 1. empty → converged
    const worker = new Worker(db, cluster, {
      workerId: "bench",
      concurrency: CONCURRENCY,
      batchSize: BATCH,
      pollMs: 20,
      leaseMs: 60_000,
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
    const t1 = Date.now();
    await worker.runner.drain();
    const converge = Date.now() - t1;
    const byKind = await db.provisioningTask.groupBy({ by: ["kind", "status"], _count: true, orderBy: { kind: "asc" } });
    line(`1. empty → converged (task runner, ${CONCURRENCY} × batches of ${BATCH})`, fmt(converge) + "   (target ≤ 30 s)");
    for (const k of byKind) line(`     ${k.kind} ${k.status}`, String(k._count));
    for (const [kind, ms] of taskMs) line(`     ${kind} mean task time`, `${(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(1)} ms (n=${ms.length})`);
    const failed = await db.provisioningTask.findFirst({ where: { status: "FAILED" }, select: { kind: true, lastError: true } });
    if (failed) line("     first failure", `${failed.kind}: ${failed.lastError?.slice(0, 120)}`);
    const topics = (await cluster.listTopics()).length;
    line("     topics on the broker", String(topics));
    line("     ACL bindings on the broker", String((await cluster.describeAcls()).length));
    const users = await cluster.describeScramUsers([...producers, ...consumers].map((a) => a.name));
    line("     SCRAM-SHA-512 users on the broker (of 120 accounts)", String([...users.values()].filter((m) => m.includes("SCRAM-SHA-512")).length));
    line("     products ACTIVE / subscriptions ACTIVE", `${await db.dataProduct.count({ where: { status: "ACTIVE" } })} / ${await db.subscription.count({ where: { status: "ACTIVE" } })}`);

    // ---- 2. no-op full reconcile (open tasks mark entities busy: close them as the runner would have)
    await db.provisioningTask.updateMany({ where: { status: { not: "DONE" } }, data: { status: "DONE" } });
    await fullReconcile(worker.ctx, "bench-warmup");
    const t2 = Date.now();
    const noop = await fullReconcile(worker.ctx, "bench");
    line("2. no-op full reconcile", fmt(Date.now() - t2) + `   (target ≤ 1 s; changes ${noop.changes.length}, section errors ${noop.errors.map((e) => e.resource).join(",") || "none"})`);

    // ---- 3. observation: 1,000 partitions, 500 groups with commits
    // Simple (member-less) commits, as `kafka-consumer-groups --reset-offsets` makes: one OffsetCommit per group.
    const [host, port] = broker.bootstrap.split(":");
    const raw = await RawConnection.open({ host: host!, port: Number(port), clientId: "bench", sasl, tls: null, connectTimeoutMs: 3000, requestTimeoutMs: 15000 });
    const groupStart = Date.now();
    const commitVersion = raw.pickVersion(ApiKey.OffsetCommit, 2, 8);
    await Promise.all(
      Array.from({ length: GROUPS }, async (_, g) => {
        const sub = subscriptions[g * Math.floor(subscriptions.length / GROUPS)]!;
        const account = consumers.find((c) => c.id === sub.serviceAccountId)!;
        const topic = products.find((p) => p.id === sub.productId)!.topicName;
        const res = await raw.request(ApiKey.OffsetCommit, { groupId: `${account.name}.g${g}`, generationIdOrMemberEpoch: -1, memberId: "", topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: 0n }] }] }, commitVersion);
        const code = res.topics[0]?.partitions[0]?.errorCode ?? -1;
        if (code !== 0) throw new Error(`OffsetCommit for group ${g} failed with ${code}`);
      }),
    );
    raw.close();
    line(`     (set up ${GROUPS} groups with committed offsets)`, fmt(Date.now() - groupStart));
    await worker.observer.observeOnce();
    const t3 = Date.now();
    const summary = await worker.observer.observeOnce();
    line(`3. observation cycle: ${summary.partitions} partitions, ${summary.groups} groups`, fmt(Date.now() - t3) + "   (target ≤ 2 s)");
    line("     unknown figures", summary.unknown.join(", ") || "none");
    await worker.stop();
  } finally {
    await cluster.close();
    await db.$disconnect();
    await broker.stop();
    await rm(dataDir, { recursive: true, force: true });
    await pgServer.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
