// Grant tasks reconcile the account's bindings on the task's topic (plus its
// group prefix and the cluster), reading the catalog as it is when they run.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServiceAccount, decryptSecret, requestSubscription, approveSubscription, type Db } from "@kappa/catalog";
import { ensureCredentials } from "../src/reconcile/entities.ts";
import { approvedProduct, approvedSubscription, kafkaClient, openTestDatabase, SECRETS_KEY, seedPeople, startTestBroker, startWorker, waitFor, type TestBroker } from "./helpers.ts";

const ADMIN = { name: "kappa-admin", password: "admin-secret-for-grant-tests" };
let broker: TestBroker;
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;
let people: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  broker = await startTestBroker({ listeners: "SASL_PLAINTEXT://127.0.0.1:0", "authorizer.class.name": "standard", "super.users": `User:${ADMIN.name}`, saslUsers: [ADMIN] });
  database = await openTestDatabase();
  db = database.db;
  people = await seedPeople(db);
});

afterAll(async () => {
  await database?.dispose();
  await broker?.cleanup();
});

describe("scoped grants", () => {
  it("a grant for a subscription revoked before the task ran grants nothing on its topic and leaves the account's other grants alone", async () => {
    const worker = startWorker(db, broker.bootstrap, {}, { mechanism: "SCRAM-SHA-512", username: ADMIN.name, password: ADMIN.password });
    try {
      const a = await approvedProduct(db, people, { partitions: 1 });
      const b = await approvedProduct(db, people, { partitions: 1 });
      const account = await createServiceAccount(db, people.as.paymentsOwner, { domainId: people.payments.id, name: `${people.payments.slug}-grants-${Date.now().toString(36)}`, description: "reader" });
      const subscribe = async (productId: string) => {
        const sub = await requestSubscription(db, people.as.paymentsOwner, { productId, serviceAccountId: account.id, purpose: "Reconciliation of payments against orders." });
        return approveSubscription(db, people.as.ordersOwner, sub.id);
      };
      await subscribe(a.id);
      const toB = await subscribe(b.id);
      // Revoked behind the queued grant's back (as a revoke racing the grant would leave it).
      await db.subscription.update({ where: { id: toB.id }, data: { status: "REVOKED" } });
      await worker.worker.runner.drain();
      expect(await db.provisioningTask.count({ where: { status: { not: "DONE" } } })).toBe(0);

      const bindings = (await worker.cluster.describeAcls([`User:${account.name}`])).map((x) => `${x.operation} ${x.resourceType}:${x.patternType}:${x.resourceName}`).sort();
      expect(bindings).toEqual([`DESCRIBE TOPIC:LITERAL:${a.topicName}`, `READ GROUP:PREFIXED:${account.name}.`, `READ TOPIC:LITERAL:${a.topicName}`].sort());
    } finally {
      await worker.stop();
    }
  });

  it("one batch issues several accounts' credentials together: one SCRAM user and one audit event each, and each stored password signs in", async () => {
    const worker = startWorker(db, broker.bootstrap, { batchSize: 20 }, { mechanism: "SCRAM-SHA-512", username: ADMIN.name, password: ADMIN.password });
    try {
      const product = await approvedProduct(db, people, { partitions: 1 });
      const stamp = Date.now().toString(36);
      const subs = await Promise.all([1, 2, 3].map((i) => approvedSubscription(db, people, product.id, `batch${i}-${stamp}`)));
      await worker.worker.runner.drain();
      expect(await db.provisioningTask.count({ where: { status: { not: "DONE" } } })).toBe(0);
      const ids = subs.map((s) => s.account.id);
      const users = await worker.cluster.describeScramUsers(subs.map((s) => s.account.name));
      expect(subs.map((s) => users.get(s.account.name))).toEqual([["SCRAM-SHA-512"], ["SCRAM-SHA-512"], ["SCRAM-SHA-512"]]);
      const issued = await db.auditEvent.groupBy({ by: ["entityId"], where: { action: "serviceAccount.credentials.issued", entityId: { in: ids } }, _count: true });
      expect(issued.map((a) => [a.entityId, a._count]).sort()).toEqual(ids.map((id) => [id, 1]).sort());
      for (const { account } of subs) {
        const row = await db.serviceAccount.findUniqueOrThrow({ where: { id: account.id }, omit: { secretCiphertext: false } });
        const admin = kafkaClient(broker.bootstrap, { sasl: { mechanism: "scram-sha-512", username: account.name, password: decryptSecret(SECRETS_KEY, row.secretCiphertext ?? "", account.id) } }).admin();
        await admin.connect();
        await admin.disconnect();
      }
      // A second pass over the same accounts (a retried or duplicated step) issues nothing new.
      await db.provisioningTask.updateMany({ where: { entityId: { in: subs.map((s) => s.subscription.id) } }, data: { status: "PENDING", leasedBy: null, leaseUntil: null } });
      await worker.worker.runner.drain();
      expect(await db.auditEvent.count({ where: { action: { startsWith: "serviceAccount.credentials" }, entityId: { in: ids } } })).toBe(3);
    } finally {
      await worker.stop();
    }
  });

  it("in a batch, a grant whose account another transaction holds goes back to the queue instead of holding up the others, and completes once the account is free", async () => {
    const worker = startWorker(db, broker.bootstrap, { batchSize: 20 }, { mechanism: "SCRAM-SHA-512", username: ADMIN.name, password: ADMIN.password });
    try {
      const product = await approvedProduct(db, people, { partitions: 1 });
      await worker.worker.runner.drain();
      const stamp = Date.now().toString(36);
      const held = await approvedSubscription(db, people, product.id, `held-${stamp}`);
      const free = await approvedSubscription(db, people, product.id, `free-${stamp}`);
      // Credentials issued beforehand (so it is the grants that meet the lock), then one account's row held, as a revoke or another batch would.
      for (const { account } of [held, free]) await ensureCredentials(worker.worker.ctx, account.id);
      let release = () => {};
      const gate = new Promise<void>((r) => (release = r));
      let lockTaken = () => {};
      const locked = new Promise<void>((r) => (lockTaken = r));
      const holder = db.$transaction(
        async (tx) => {
          await tx.$queryRaw`SELECT id FROM "ServiceAccount" WHERE id = ${held.account.id} FOR UPDATE`;
          lockTaken();
          await gate;
        },
        { timeout: 120_000 },
      );
      await locked;
      const draining = worker.worker.runner.drain();
      // The free account's grant finishes while the other account is still held.
      await waitFor(async () => (await db.provisioningTask.findFirst({ where: { entityId: free.subscription.id, status: "DONE" } })) !== null, 15_000, "the free account's grant");
      const waiting = await db.provisioningTask.findFirstOrThrow({ where: { entityId: held.subscription.id } });
      expect(waiting.status).not.toBe("DONE");
      expect(waiting.status).not.toBe("FAILED");
      release();
      await holder;
      await draining;
      const done = await db.provisioningTask.findFirstOrThrow({ where: { entityId: held.subscription.id } });
      expect(done).toMatchObject({ status: "DONE", attempts: 1 });
      const bindings = (await worker.cluster.describeAcls([`User:${held.account.name}`])).map((x) => `${x.operation} ${x.resourceType}:${x.resourceName}`).sort();
      expect(bindings).toEqual([`DESCRIBE TOPIC:${product.topicName}`, `READ GROUP:${held.account.name}.`, `READ TOPIC:${product.topicName}`].sort());
      expect(await db.auditEvent.count({ where: { entityId: held.subscription.id, action: "subscription.activated" } })).toBe(1);
    } finally {
      await worker.stop();
    }
  });
});
