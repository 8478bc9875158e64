import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { retryTask, revealCredentialOnce, type Db } from "@kappa/catalog";
import { ApiKey } from "@kappa/kafka-protocol";
import { KafkaConnection } from "@kappa/kafka-protocol/client";
import { approvedSubscription, approvedProduct, kafkaClient, openTestDatabase, SECRETS_KEY, seedPeople, sleep, spawnWorker, startTestBroker, startWorker, waitFor, type TestBroker } from "./helpers.ts";

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;
let people: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  people = await seedPeople(db);
});

afterAll(async () => {
  await database?.dispose();
});

async function topicPartitions(bootstrap: string, topic: string): Promise<number | null> {
  const admin = kafkaClient(bootstrap).admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(topic)) return null;
    return (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]?.partitions.length ?? null;
  } finally {
    await admin.disconnect();
  }
}

describe("crash and outage", () => {
  it("a worker killed (SIGKILL) in the middle of a task loses nothing: another worker takes the lease over and the task completes once", async () => {
    const broker = await startTestBroker();
    const dir = mkdtempSync(path.join(tmpdir(), "kappa-worker-crash-"));
    const readyFile = path.join(dir, "ready");
    // The broker creates the topic but holds the answer: the first worker is
    // killed while its CreateTopics request is in flight.
    const release = broker.control.delayResponses(ApiKey.CreateTopics, 60_000);
    const child = spawnWorker({
      DATABASE_URL: database.url,
      KAFKA_BROKERS: broker.bootstrap,
      KAFKA_SASL_MECHANISM: "none",
      KAPPA_SECRETS_KEY: SECRETS_KEY.toString("base64"),
      WORKER_ID: "doomed-worker",
      WORKER_LEASE_MS: "1500",
      WORKER_POLL_MS: "100",
      WORKER_READY_FILE: readyFile,
      WORKER_OBSERVE_INTERVAL_MS: "3600000",
      WORKER_RECONCILE_INTERVAL_MS: "3600000",
    });
    let survivor: ReturnType<typeof startWorker> | null = null;
    try {
      await waitFor(() => existsSync(readyFile), 20_000, "the child worker to be ready");
      const product = await approvedProduct(db, people, { partitions: 4 });
      await waitFor(async () => (await db.provisioningTask.findFirst({ where: { entityId: product.id, kind: "CREATE_TOPIC", status: "RUNNING", leasedBy: "doomed-worker" } })) !== null, 10_000, "the child to lease CREATE_TOPIC");
      await sleep(300); // its CreateTopics is now at the broker, the answer held back
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      release();

      survivor = startWorker(db, broker.bootstrap, { workerId: "survivor", leaseMs: 1500 });
      await survivor.start();
      const task = await waitFor(async () => db.provisioningTask.findFirst({ where: { entityId: product.id, kind: "CREATE_TOPIC", status: "DONE" } }), 10_000, "the survivor to finish CREATE_TOPIC");
      expect(task.leasedBy).toBe("survivor");
      expect(task.attempts).toBe(2);
      expect(task.completedAt).not.toBeNull();
      expect(await topicPartitions(broker.bootstrap, product.topicName)).toBe(4);
      expect(await db.provisioningTask.count({ where: { entityId: product.id, kind: "CREATE_TOPIC" } })).toBe(1);
      // The step moved the product to PROVISIONING exactly once across both workers.
      expect(await db.auditEvent.count({ where: { entityId: product.id, action: "product.provisioning" } })).toBe(1);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      await survivor?.stop();
      await broker.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a worker killed while granting a subscription (row lock held, CreateAcls in flight) leaves neither a duplicate nor a missing grant", async () => {
    const admin = { name: "kappa-admin", password: "crash-test-admin" };
    const broker = await startTestBroker({ listeners: "SASL_PLAINTEXT://127.0.0.1:0", "authorizer.class.name": "standard", "super.users": `User:${admin.name}`, saslUsers: [admin] });
    const sasl = { mechanism: "SCRAM-SHA-512" as const, username: admin.name, password: admin.password };
    const dir = mkdtempSync(path.join(tmpdir(), "kappa-worker-crash-"));
    const readyFile = path.join(dir, "ready");
    let child: ChildProcess | null = null;
    let survivor: ReturnType<typeof startWorker> | null = null;
    try {
      const first = startWorker(db, broker.bootstrap, { workerId: "provisioner" }, sasl);
      await first.start();
      const product = await approvedProduct(db, people, { partitions: 1 });
      await waitFor(async () => (await db.dataProduct.findUnique({ where: { id: product.id } }))?.status === "ACTIVE", 10_000, "the product to be ACTIVE");
      await first.stop();

      const release = broker.control.delayResponses(ApiKey.CreateAcls, 60_000);
      child = spawnWorker({
        DATABASE_URL: database.url,
        KAFKA_BROKERS: broker.bootstrap,
        KAFKA_SASL_MECHANISM: "scram-sha-512",
        KAFKA_ADMIN_USER: admin.name,
        KAFKA_ADMIN_PASSWORD: admin.password,
        KAPPA_SECRETS_KEY: SECRETS_KEY.toString("base64"),
        WORKER_ID: "doomed-granter",
        WORKER_LEASE_MS: "1500",
        WORKER_POLL_MS: "100",
        WORKER_READY_FILE: readyFile,
        WORKER_OBSERVE_INTERVAL_MS: "3600000",
        WORKER_RECONCILE_INTERVAL_MS: "3600000",
      });
      await waitFor(() => existsSync(readyFile), 20_000, "the child worker to be ready");
      const { account, subscription } = await approvedSubscription(db, people, product.id, `crash-reader-${Date.now().toString(36)}`);
      await waitFor(async () => (await db.provisioningTask.findFirst({ where: { entityId: subscription.id, status: "RUNNING", leasedBy: "doomed-granter" } })) !== null, 10_000, "the child to lease the grant");
      await sleep(500); // credentials issued, CreateAcls at the broker with its answer held back
      child.kill("SIGKILL");
      await new Promise((r) => child?.once("exit", r));
      release();

      survivor = startWorker(db, broker.bootstrap, { workerId: "survivor-granter", leaseMs: 1500 }, sasl);
      await survivor.start();
      const task = await waitFor(async () => db.provisioningTask.findFirst({ where: { entityId: subscription.id, status: "DONE" } }), 15_000, "the survivor to finish the grant");
      expect(task.attempts).toBe(2);
      const bindings = (await survivor.cluster.describeAcls([`User:${account.name}`])).map((b) => `${b.operation} ${b.resourceType}:${b.patternType}:${b.resourceName}`).sort();
      expect(bindings).toEqual([`DESCRIBE TOPIC:LITERAL:${product.topicName}`, `READ GROUP:PREFIXED:${account.name}.`, `READ TOPIC:LITERAL:${product.topicName}`]);
      expect((await db.subscription.findUniqueOrThrow({ where: { id: subscription.id } })).status).toBe("ACTIVE");
      expect(await db.auditEvent.count({ where: { entityId: subscription.id, action: "subscription.activated" } })).toBe(1);
      // The password the catalog holds for pickup is the one the cluster accepts.
      const creds = await revealCredentialOnce(db, SECRETS_KEY, people.as.paymentsOwner, account.id);
      const [host, brokerPort] = broker.bootstrap.split(":");
      const conn = await KafkaConnection.open({ host: host!, port: Number(brokerPort), clientId: "crash-test", sasl: { mechanism: "SCRAM-SHA-512", username: creds.username, password: creds.password }, tls: null, connectTimeoutMs: 3000, requestTimeoutMs: 5000 });
      conn.close();
    } finally {
      if (child && child.exitCode === null) child.kill("SIGKILL");
      await survivor?.stop();
      await broker.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("graceful shutdown gives back the lease of a task that cannot finish in time, without counting the attempt", async () => {
    const broker = await startTestBroker();
    const release = broker.control.delayResponses(ApiKey.CreateTopics, 30_000);
    const worker = startWorker(db, broker.bootstrap, { workerId: "polite", leaseMs: 30_000, shutdownGraceMs: 300 });
    await worker.start();
    try {
      const product = await approvedProduct(db, people, { partitions: 1 });
      await waitFor(async () => db.provisioningTask.findFirst({ where: { entityId: product.id, kind: "CREATE_TOPIC", status: "RUNNING", leasedBy: "polite" } }), 10_000, "the task to be leased");
      const stopped = Date.now();
      await worker.worker.stop();
      expect(Date.now() - stopped).toBeLessThan(5_000);
      const task = await db.provisioningTask.findFirstOrThrow({ where: { entityId: product.id, kind: "CREATE_TOPIC" } });
      expect(task.status).toBe("PENDING");
      expect(task.leasedBy).toBeNull();
      expect(task.attempts).toBe(0);
      expect(task.runAfter.getTime()).toBeLessThanOrEqual(Date.now());
      expect((await db.workerInstance.findUniqueOrThrow({ where: { workerId: "polite" } })).status).toBe("stopped");
    } finally {
      release();
      await worker.cluster.close();
      await broker.cleanup();
    }
  });

  it("while the broker is down tasks back off with their error recorded, and complete after it returns with no manual step", async () => {
    const broker = await startTestBroker();
    const { port, dataDir } = { port: broker.port, dataDir: broker.dataDir };
    const worker = startWorker(db, broker.bootstrap, { workerId: "patient", backoffBaseMs: 200, backoffMaxMs: 1_000, maxAttempts: 50 });
    await worker.start();
    let restarted: TestBroker | null = null;
    try {
      await broker.stop();
      const product = await approvedProduct(db, people, { partitions: 2 });
      const failing = await waitFor(
        async () => db.provisioningTask.findFirst({ where: { entityId: product.id, kind: "CREATE_TOPIC", attempts: { gte: 3 }, status: "PENDING" } }),
        15_000,
        "CREATE_TOPIC to fail a few times",
      );
      expect(failing.lastError).toBeTruthy();
      expect(failing.runAfter.getTime()).toBeGreaterThan(failing.updatedAt.getTime() - 1);

      restarted = await startTestBroker({ port }, dataDir);
      const done = await waitFor(async () => db.provisioningTask.findFirst({ where: { entityId: product.id, kind: "CREATE_TOPIC", status: "DONE" } }), 15_000, "CREATE_TOPIC after the broker returned");
      expect(done.lastError).toBeNull();
      expect(await topicPartitions(restarted.bootstrap, product.topicName)).toBe(2);
    } finally {
      await worker.stop();
      if (restarted) await restarted.cleanup();
      else await broker.cleanup();
    }
  });

  it("a task that exhausts its attempts is FAILED with its error and audited; retryTask (owners, not outsiders) queues it again and it completes", async () => {
    const broker = await startTestBroker();
    const { port, dataDir } = { port: broker.port, dataDir: broker.dataDir };
    const worker = startWorker(db, broker.bootstrap, { workerId: "short-fuse", maxAttempts: 2, backoffBaseMs: 100, backoffMaxMs: 200 });
    await worker.start();
    let restarted: TestBroker | null = null;
    try {
      await broker.stop();
      const product = await approvedProduct(db, people, { partitions: 1 });
      const failed = await waitFor(async () => db.provisioningTask.findFirst({ where: { entityId: product.id, kind: "CREATE_TOPIC", status: "FAILED" } }), 15_000, "CREATE_TOPIC to fail for good");
      expect(failed.attempts).toBe(2);
      expect(failed.lastError).toMatch(/connect|ECONNREFUSED|Connection/i);
      const audit = await db.auditEvent.findFirstOrThrow({ where: { entityId: product.id, action: "provisioning.failed" } });
      expect(audit.actorEmail).toBe("worker");

      restarted = await startTestBroker({ port }, dataDir);
      await expect(retryTask(db, people.as.outsider, failed.id)).rejects.toMatchObject({ status: 403 });
      await retryTask(db, people.as.ordersOwner, failed.id);
      await expect(retryTask(db, people.as.ordersOwner, failed.id)).rejects.toMatchObject({ status: 409 });
      await waitFor(async () => db.provisioningTask.findFirst({ where: { id: failed.id, status: "DONE" } }), 15_000, "the retried task to complete");
      expect(await topicPartitions(restarted.bootstrap, product.topicName)).toBe(1);
      expect(await db.auditEvent.count({ where: { entityId: product.id, action: "provisioning.retried", actorEmail: { not: "worker" } } })).toBe(1);
    } finally {
      await worker.stop();
      if (restarted) await restarted.cleanup();
      else await broker.cleanup();
    }
  });
});
