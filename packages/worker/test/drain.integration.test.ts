// runner.drain() is what tests and the bench call to "let the worker finish":
// it must not return while a task whose attempt failed is waiting for its retry.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Db } from "@kappa/catalog";
import { approvedProduct, kafkaClient, openTestDatabase, seedPeople, startTestBroker, startWorker, type TestBroker } from "./helpers.ts";

const ADMIN = { name: "kappa-admin", password: "admin-secret-for-drain-tests" };
const brokerOn = (port: number) => ({ listeners: `SASL_PLAINTEXT://127.0.0.1:${port}`, "authorizer.class.name": "standard", "super.users": `User:${ADMIN.name}`, saslUsers: [ADMIN] });
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

it("drain waits for a task in backoff after a failed attempt and returns with it DONE and the topic on the broker", async () => {
  const first = await startTestBroker(brokerOn(0));
  const { port, dataDir } = first;
  await first.stop();
  let broker: TestBroker | null = null;
  // The worker's own loop is not started: only drain runs tasks. Backoff of 2–4 s.
  const worker = startWorker(db, `127.0.0.1:${port}`, { backoffBaseMs: 4_000, backoffMaxMs: 4_000 }, { mechanism: "SCRAM-SHA-512", username: ADMIN.name, password: ADMIN.password });
  try {
    const product = await approvedProduct(db, people, { partitions: 2 });
    expect(await worker.worker.runner.pollOnce()).toBeGreaterThan(0);
    const failed = await waitForTask(() => db.provisioningTask.findFirst({ where: { entityId: product.id, status: "PENDING", attempts: 1, lastError: { not: null } } }));
    expect(failed.runAfter.getTime()).toBeGreaterThan(Date.now());

    broker = await startTestBroker(brokerOn(port), dataDir);
    await worker.worker.runner.drain();

    expect(await db.provisioningTask.findMany({ where: { status: { not: "DONE" } }, select: { kind: true, status: true, lastError: true } })).toEqual([]);
    const admin = kafkaClient(broker.bootstrap, { sasl: { mechanism: "scram-sha-512", username: ADMIN.name, password: ADMIN.password } }).admin();
    await admin.connect();
    try {
      const metadata = await admin.fetchTopicMetadata({ topics: [product.topicName] });
      expect(metadata.topics[0]?.partitions).toHaveLength(2);
    } finally {
      await admin.disconnect();
    }
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).status).toBe("ACTIVE");
  } finally {
    await worker.stop();
    await broker?.cleanup();
  }
});

async function waitForTask<T>(find: () => Promise<T | null>): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const found = await find();
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the first attempt did not fail and go back to PENDING within 30 s");
}

it("on a cluster without an authorizer the ACL task fails for good at once, saying what to configure, and drain returns", async () => {
  const broker = await startTestBroker();
  const worker = startWorker(db, broker.bootstrap, { backoffBaseMs: 4_000, backoffMaxMs: 4_000 });
  try {
    const product = await approvedProduct(db, people, { partitions: 1 });
    await worker.worker.runner.drain();
    const acl = await db.provisioningTask.findFirstOrThrow({ where: { entityId: product.id, kind: "GRANT_PRODUCER_ACL" } });
    expect(acl).toMatchObject({ status: "FAILED", attempts: 1 });
    expect(acl.lastError).toMatch(/no authorizer .*authorizer\.class\.name/);
    expect(await db.auditEvent.count({ where: { entityId: product.id, action: "provisioning.failed" } })).toBe(1);
  } finally {
    await worker.stop();
    await broker.cleanup();
  }
});
