import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@kappa/catalog";
import { KAFKA_TARGETS, openTestDatabase, seedPeople, startKafkaTarget, startWorker, type KafkaTarget } from "./helpers.ts";
import { catalogState, clientAs, clusterState, consumeAsSubscribers, expectedCatalogState, expectedClusterState, produceTo, queueProducts, recordCounts, revealProducer, waitConverged } from "./provisioning-check.ts";

/*
 * Issue 28, scale-out of the platform itself: two worker instances against
 * one catalog and one cluster, as a deployment with two replicas runs them
 * (each its own WORKER_ID, its own Kafka connections and its own database
 * pool). They share the outbox through leases (SELECT … FOR UPDATE SKIP
 * LOCKED): every step runs once, by one of them, both do some of the work,
 * and the cluster ends exactly as the catalog says. The crash of one worker
 * mid-task is resilience.integration.test.ts's (on the embedded broker).
 */
describe.each(KAFKA_TARGETS)("two workers sharing the outbox on %s", (kind) => {
  let target: KafkaTarget;
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Db;

  beforeAll(async () => {
    // Every fourth product is tiered: the embedded broker with its tiered storage on, as the shared Apache Kafka cluster has it.
    target = await startKafkaTarget(kind, { "remote.log.storage.system.enable": true });
    database = await openTestDatabase();
    db = database.db;
  });

  afterAll(async () => {
    await database?.dispose();
    await target?.cleanup();
  });

  it("every step runs exactly once, each worker runs some, and the products, grants and credentials are all there", async () => {
    const people = await seedPeople(db);
    const suffix = randomBytes(3).toString("hex");
    // Small batches and few in flight, so neither worker can lease the whole queue at once; production's lease length, so a slow
    // renewal on a loaded machine cannot hand a task to the other worker (a second run is what this test must not see).
    const options = { batchSize: 3, concurrency: 2, leaseMs: 30_000 };
    const a = startWorker(db, target.bootstrap, { ...options, workerId: `worker-a-${suffix}` }, target.sasl);
    const b = startWorker(db, target.bootstrap, { ...options, workerId: `worker-b-${suffix}` }, target.sasl);
    await Promise.all([a.start(), b.start()]);
    try {
      const batch = await queueProducts(db, people, 20, "Scale out");
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

      const producer = await revealProducer(db, people);
      const admin = clientAs(target.brokers, { username: target.admin.name, password: target.admin.password });
      await expect.poll(async () => clusterState(admin, batch, producer.username), { timeout: 30_000, interval: 500 }).toEqual(expectedClusterState(batch, producer.username, kind === "apache" ? 3 : 1));
      await produceTo(target.brokers, producer, batch.products.map((p) => p.topicName), "shared", 2);
      expect(await recordCounts(admin, batch.products.map((p) => p.topicName))).toEqual(Object.fromEntries(batch.products.map((p) => [p.topicName, 2])));
      const read = await consumeAsSubscribers(db, people, target.brokers, batch.subscriptions, () => 2);
      expect(Object.fromEntries(batch.subscriptions.map((s) => [s.account.name, read.get(s.id)]))).toEqual(Object.fromEntries(batch.subscriptions.map((s) => [s.account.name, ["shared-0", "shared-1"]])));
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
