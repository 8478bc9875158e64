import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@kappa/catalog";
import { KAFKA_TARGETS, openTestDatabase, SECRETS_KEY, seedPeople, spawnWorker, startKafkaTarget, startWorker, waitFor, type KafkaTarget } from "./helpers.ts";
import { catalogState, clientAs, clusterState, consumeAsSubscribers, expectedCatalogState, expectedClusterState, produceTo, queueProducts, recordCounts, revealProducer, waitConverged, type QueuedBatch } from "./provisioning-check.ts";

/*
 * Issue 28, scale-out of the platform itself: two worker instances against
 * one catalog and one cluster, as a deployment with two replicas runs them
 * (each its own WORKER_ID, its own Kafka connections and its own database
 * pool). They share the outbox through leases (SELECT … FOR UPDATE SKIP
 * LOCKED): every step runs once, by one of them, both do some of the work,
 * and the cluster ends exactly as the catalog says. Then one of the two, a
 * process of its own, is killed with SIGKILL mid-batch: the survivor takes its
 * leases over once they lapse, and nothing is lost or done twice. (The crash
 * inside one chosen request is resilience.integration.test.ts's.)
 */
describe.each(KAFKA_TARGETS)("two workers sharing the outbox on %s", (kind) => {
  let target: KafkaTarget;
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Db;
  let people: Awaited<ReturnType<typeof seedPeople>>;
  // The orders producer's password is shown once; both tests produce with it.
  let producerLogin: Promise<{ username: string; password: string }> | undefined;
  const producerCreds = () => (producerLogin ??= revealProducer(db, people));
  // Everything queued on this cluster by this file: the producer account's bindings cover all of it.
  const queued: QueuedBatch = { products: [], subscriptions: [] };
  const remember = (batch: QueuedBatch) => {
    queued.products.push(...batch.products);
    queued.subscriptions.push(...batch.subscriptions);
  };
  /**
   * On the cluster, read with the admin's own client: exactly the catalog's topics and bindings (everything this file
   * queued: the producer account's bindings cover all of it); then the passwords the catalog holds for pickup are the
   * ones the cluster accepts — `count` records tagged `tag` written to each of the batch's topics with the producer's,
   * each topic holding them once, and each subscriber reading exactly them with its own.
   */
  const expectOnCluster = async (batch: QueuedBatch, tag: string, count: number) => {
    const producer = await producerCreds();
    const admin = clientAs(target.brokers, { username: target.admin.name, password: target.admin.password });
    await expect.poll(async () => clusterState(admin, queued, producer.username), { timeout: 30_000, interval: 500 }).toEqual(expectedClusterState(queued, producer.username, kind === "apache" ? 3 : 1));
    const topics = batch.products.map((p) => p.topicName);
    await produceTo(target.brokers, producer, topics, tag, count);
    expect(await recordCounts(admin, topics)).toEqual(Object.fromEntries(topics.map((t) => [t, count])));
    const read = await consumeAsSubscribers(db, people, target.brokers, batch.subscriptions, () => count);
    const written = Array.from({ length: count }, (_, i) => `${tag}-${i}`);
    expect(Object.fromEntries(batch.subscriptions.map((s) => [s.account.name, read.get(s.id)]))).toEqual(Object.fromEntries(batch.subscriptions.map((s) => [s.account.name, written])));
  };

  beforeAll(async () => {
    // Every fourth product is tiered: the embedded broker with its tiered storage on, as the shared Apache Kafka cluster has it.
    target = await startKafkaTarget(kind, { "remote.log.storage.system.enable": true });
    database = await openTestDatabase();
    db = database.db;
    people = await seedPeople(db);
  });

  afterAll(async () => {
    await database?.dispose();
    await target?.cleanup();
  });

  it("every step runs exactly once, each worker runs some, and the products, grants and credentials are all there", async () => {
    const suffix = randomBytes(3).toString("hex");
    // Small batches and few in flight, so neither worker can lease the whole queue at once; production's lease length, so a slow
    // renewal on a loaded machine cannot hand a task to the other worker (a second run is what this test must not see).
    const options = { batchSize: 3, concurrency: 2, leaseMs: 30_000 };
    const a = startWorker(db, target.bootstrap, { ...options, workerId: `worker-a-${suffix}` }, target.sasl);
    const b = startWorker(db, target.bootstrap, { ...options, workerId: `worker-b-${suffix}` }, target.sasl);
    await Promise.all([a.start(), b.start()]);
    try {
      const batch = await queueProducts(db, people, 20, "Scale out");
      remember(batch);
      await waitConverged(db, batch, 30_000);

      const ids = [...batch.products.map((p) => p.id), ...batch.subscriptions.map((s) => s.id)];
      const tasks = await db.provisioningTask.findMany({ where: { entityId: { in: ids } }, select: { kind: true, attempts: true, leasedBy: true } });
      // Once each: one attempt, by one of the two.
      expect(tasks.filter((t) => t.attempts !== 1).map((t) => `${t.kind}: ${t.attempts} attempts`)).toEqual([]);
      const by = (id: string) => tasks.filter((t) => t.leasedBy === id).length;
      expect(by(a.worker.options.workerId) + by(b.worker.options.workerId)).toBe(tasks.length);
      expect(by(a.worker.options.workerId)).toBeGreaterThan(0);
      expect(by(b.worker.options.workerId)).toBeGreaterThan(0);
      // What each worker counted as done adds up to the tasks: none ran on both.
      expect(a.worker.runner.completed + b.worker.runner.completed).toBe(tasks.length);
      expect({ a: a.worker.runner.failed, b: b.worker.runner.failed }).toEqual({ a: 0, b: 0 });
      console.log(`two workers on ${kind}: ${tasks.length} steps, worker a ran ${by(a.worker.options.workerId)}, worker b ${by(b.worker.options.workerId)}`);

      const { retried: _retried, ...shown } = await catalogState(db, batch);
      expect(shown).toEqual(expectedCatalogState(batch));
      // One password per account: neither worker issued a credential the other had issued.
      const producerAccount = await db.serviceAccount.findFirstOrThrow({ where: { domainId: people.orders.id, isProducer: true } });
      const accounts = [producerAccount.id, ...batch.subscriptions.map((s) => s.account.id)];
      const issued = await db.auditEvent.groupBy({ by: ["entityId"], where: { action: "serviceAccount.credentials.issued", entityId: { in: accounts } }, _count: true });
      expect(Object.fromEntries(issued.map((i) => [i.entityId, i._count]))).toEqual(Object.fromEntries(accounts.map((id) => [id, 1])));

      await expectOnCluster(batch, "shared", 2);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it("a worker process killed (SIGKILL) mid-batch: the survivor takes its leases over; every product, grant and credential is there, once", async () => {
    const suffix = randomBytes(3).toString("hex");
    const doomedId = `worker-doomed-${suffix}`;
    const dir = mkdtempSync(path.join(tmpdir(), "kappa-worker-kill-"));
    const readyFile = path.join(dir, "ready");
    // A short lease, so the survivor takes the dead worker's tasks over within seconds (production's is 30 s: the same path, later).
    const leaseMs = 3_000;
    const child: ChildProcess = spawnWorker({
      DATABASE_URL: database.url,
      KAFKA_BROKERS: target.bootstrap,
      KAFKA_SASL_MECHANISM: "scram-sha-512",
      KAFKA_ADMIN_USER: target.admin.name,
      KAFKA_ADMIN_PASSWORD: target.admin.password,
      KAPPA_SECRETS_KEY: SECRETS_KEY.toString("base64"),
      WORKER_ID: doomedId,
      WORKER_LEASE_MS: String(leaseMs),
      WORKER_POLL_MS: "100",
      WORKER_BATCH_SIZE: "3",
      WORKER_CONCURRENCY: "2",
      WORKER_READY_FILE: readyFile,
      WORKER_OBSERVE_INTERVAL_MS: "3600000",
      WORKER_RECONCILE_INTERVAL_MS: "3600000",
    });
    const survivor = startWorker(db, target.bootstrap, { batchSize: 3, concurrency: 2, leaseMs, workerId: `worker-survivor-${suffix}` }, target.sasl);
    try {
      await waitFor(() => existsSync(readyFile), 30_000, "the worker process to be ready");
      await survivor.start();
      const batch = await queueProducts(db, people, 12, "Kill worker");
      remember(batch);
      // Killed while it holds leases and has finished some steps: mid-batch, not before or after it.
      const ids = [...batch.products.map((p) => p.id), ...batch.subscriptions.map((s) => s.id)];
      await waitFor(
        async () => {
          const held = await db.provisioningTask.count({ where: { entityId: { in: ids }, leasedBy: doomedId, status: "RUNNING" } });
          const done = await db.provisioningTask.count({ where: { entityId: { in: ids }, leasedBy: doomedId, status: "DONE" } });
          return held > 0 && done > 0 ? held : 0;
        },
        30_000,
        "the worker process to have finished a step and to hold a lease",
      );
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      const heldAtKill = await db.provisioningTask.count({ where: { entityId: { in: ids }, leasedBy: doomedId, status: "RUNNING" } });

      await waitConverged(db, batch, 60_000);
      const { retried, ...shown } = await catalogState(db, batch);
      // Every step DONE once, every product and subscription ACTIVE and activated once.
      expect(shown).toEqual(expectedCatalogState(batch));
      // What the dead worker held was taken over (a second attempt), by the survivor; nothing else ran twice.
      expect(retried).toBeGreaterThanOrEqual(heldAtKill);
      expect(retried + heldAtKill).toBeGreaterThan(0);
      const taken = await db.provisioningTask.count({ where: { entityId: { in: ids }, leasedBy: survivor.worker.options.workerId, attempts: { gt: 1 } } });
      expect(taken).toBe(retried);
      console.log(`worker killed on ${kind}: held ${heldAtKill} leases at the kill, ${retried} steps taken over by the survivor`);

      await expectOnCluster(batch, "after-kill", 1);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await survivor.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
