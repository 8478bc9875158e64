import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TASK_KINDS, type Db } from "@kappa/catalog";
import { KafkaConnection } from "@kappa/kafka-protocol/client";
import { approvedProduct, openTestDatabase, seedPeople, startTestBroker, startWorker, waitFor, type TestBroker } from "./helpers.ts";

/*
 * Issue 8, findings 1–2, at the worker (defence in depth): a service-account
 * row named after the worker's own admin user, or squatting another domain's
 * producer name, got past the catalog (here: written straight into the
 * database, as an old row would be). The worker must refuse to touch those
 * principals, say so in the task's error, and keep working.
 */
const ADMIN = { name: "kappa-admin", password: "ownership-admin-secret" };
const ROOT = { name: "ops-root", password: "ops-root-secret" };

let broker: TestBroker;
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;
let people: Awaited<ReturnType<typeof seedPeople>>;
let running: ReturnType<typeof startWorker>;

beforeAll(async () => {
  broker = await startTestBroker({
    listeners: "SASL_PLAINTEXT://127.0.0.1:0",
    "authorizer.class.name": "standard",
    "super.users": `User:${ADMIN.name};User:${ROOT.name}`,
    saslUsers: [ADMIN, ROOT],
  });
  database = await openTestDatabase();
  db = database.db;
  people = await seedPeople(db);
  running = startWorker(db, broker.bootstrap, { adminUser: ADMIN.name }, { mechanism: "SCRAM-SHA-512", username: ADMIN.name, password: ADMIN.password });
  await running.start();
});

afterAll(async () => {
  await running?.stop();
  await database?.dispose();
  await broker?.cleanup();
});

async function canAuthenticate(user: { name: string; password: string }): Promise<boolean> {
  const [host, port] = broker.bootstrap.split(":");
  try {
    const conn = await KafkaConnection.open({ host: host!, port: Number(port), clientId: "ownership-test", sasl: { mechanism: "SCRAM-SHA-512", username: user.name, password: user.password }, tls: null, connectTimeoutMs: 3000, requestTimeoutMs: 5000 });
    conn.close();
    return true;
  } catch {
    return false;
  }
}

const failedTask = (id: string) => async () => {
  const t = await db.provisioningTask.findUniqueOrThrow({ where: { id } });
  return t.status === "FAILED" ? t : null;
};

describe("the worker never alters a principal it does not own", () => {
  it("records its admin user and the cluster's super users as reserved", async () => {
    await running.worker.reconcileNow();
    // kappa-admin is in the platform's seed already; ops-root came from the cluster's super.users.
    const reserved = await db.reservedPrincipal.findMany({ where: { match: "EXACT", name: { in: ["kappa-admin", "ops-root"] } }, orderBy: { name: "asc" } });
    expect(reserved.map((r) => [r.name, r.source])).toEqual([["kappa-admin", "platform"], ["ops-root", "worker"]]);
  });

  it("refuses to rotate the credentials of an account named after its admin user (takeover)", async () => {
    const legacy = await db.serviceAccount.create({ data: { domainId: people.payments.id, name: ADMIN.name } });
    const task = await db.provisioningTask.create({
      data: { kind: TASK_KINDS.ROTATE_CREDENTIALS, payload: { serviceAccountId: legacy.id, requestedAt: new Date().toISOString() }, entityType: "ServiceAccount", entityId: legacy.id },
    });
    running.worker.runner.start();
    const failed = await waitFor(failedTask(task.id), 15_000, "the rotation to be refused");
    expect(failed.attempts).toBe(1);
    expect(failed.lastError).toMatch(/Refusing to alter SCRAM credentials or ACLs of User:kappa-admin: the worker does not own this principal/);
    expect(await canAuthenticate(ADMIN)).toBe(true);
    const account = await db.serviceAccount.findUniqueOrThrow({ where: { id: legacy.id }, omit: { secretCiphertext: false } });
    expect(account.secretCiphertext).toBeNull();
    // A super user in a domain's own namespace is protected the same way.
    const rootAccount = await db.serviceAccount.create({ data: { domainId: people.payments.id, name: ROOT.name } });
    const rootTask = await db.provisioningTask.create({
      data: { kind: TASK_KINDS.ROTATE_CREDENTIALS, payload: { serviceAccountId: rootAccount.id, requestedAt: new Date().toISOString() }, entityType: "ServiceAccount", entityId: rootAccount.id },
    });
    expect((await waitFor(failedTask(rootTask.id), 15_000, "the super-user rotation to be refused")).lastError).toMatch(/User:ops-root/);
    expect(await canAuthenticate(ROOT)).toBe(true);
    await db.provisioningTask.deleteMany({ where: { entityId: { in: [legacy.id, rootAccount.id] } } });
    await db.serviceAccount.deleteMany({ where: { id: { in: [legacy.id, rootAccount.id] } } });
  });

  it("refuses a product step that names another domain's account as producer (squatting), and keeps provisioning others", async () => {
    const squat = await db.serviceAccount.create({ data: { domainId: people.payments.id, name: `${people.orders.slug}-producer` } });
    const product = await approvedProduct(db, people).catch((e: unknown) => e);
    // The catalog refuses the approval outright...
    expect(product).toMatchObject({ code: "PRODUCER_NAME_TAKEN" });
    // ...and a step queued before the rules (written directly here) is refused by the worker.
    const draft = await db.dataProduct.findFirstOrThrow({ where: { domainId: people.orders.id, status: "IN_REVIEW" } });
    await db.dataProduct.update({ where: { id: draft.id }, data: { status: "APPROVED" } });
    const step = await db.provisioningTask.create({
      data: { kind: "ENSURE_SERVICE_ACCOUNT", payload: { serviceAccountId: squat.id, username: squat.name, mechanism: "SCRAM-SHA-512" }, entityType: "DataProduct", entityId: draft.id, step: 1 },
    });
    const failed = await waitFor(failedTask(step.id), 15_000, "the squatted producer step to be refused");
    expect(failed.lastError).toMatch(/is not the producer account of the product's domain/);
    expect((await running.cluster.describeScramUsers([squat.name])).has(squat.name)).toBe(false);

    // The worker keeps working for everyone else once the squat is gone.
    await db.provisioningTask.delete({ where: { id: step.id } });
    await db.dataProduct.update({ where: { id: draft.id }, data: { status: "RETIRED" } });
    await db.serviceAccount.delete({ where: { id: squat.id } });
    const ok = await approvedProduct(db, people);
    await waitFor(async () => (await db.dataProduct.findUniqueOrThrow({ where: { id: ok.id } })).status === "ACTIVE", 15_000, "the next product to become ACTIVE");
  });
});
