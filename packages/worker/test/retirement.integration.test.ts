// Retirement at the sunset, through the catalog's deprecation and the worker's
// scheduler, on a SASL/SCRAM broker with ACLs enforced.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deprecateProduct, listNotifications, loadActor, type Db } from "@kappa/catalog";
import { SunsetScheduler } from "../src/lifecycle/sunset-scheduler.ts";
import { approvedProduct, approvedSubscription, type openTestDatabase, type seedPeople, type startWorker, testLogger, waitFor, type TestBroker, startSaslStack, stopSaslStack } from "./helpers.ts";

const ADMIN = { name: "kappa-admin", password: "admin-secret-for-tests" };

let broker: TestBroker;
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;
let people: Awaited<ReturnType<typeof seedPeople>>;
let running: ReturnType<typeof startWorker>;

beforeAll(async () => {
  ({ broker, database, db, people, running } = await startSaslStack(ADMIN, { retiredTopics: "keep" }));
});

afterAll(() => stopSaslStack({ running, database, broker }));

const tasksDone = (entityId: string) => async () => {
  const tasks = await db.provisioningTask.findMany({ where: { entityId } });
  return tasks.length > 0 && tasks.every((t) => t.status === "DONE");
};
const acls = async (principal: string) => (await running.cluster.describeAcls([principal])).map((b) => `${b.operation} ${b.resourceType}:${b.resourceName}`).sort();

describe("retirement at the sunset", () => {
  it("revokes the subscription, removes producer and subscriber ACLs, keeps the topic (WORKER_RETIRED_TOPICS=keep) and notifies", async () => {
    const product = await approvedProduct(db, people, { partitions: 1 });
    const { account, subscription } = await approvedSubscription(db, people, product.id, `payments-sunset-${Date.now().toString(36)}`);
    await waitFor(tasksDone(product.id), 15_000, "the product's provisioning");
    await waitFor(tasksDone(subscription.id), 15_000, "the grant");
    const producer = await db.serviceAccount.findFirstOrThrow({ where: { domainId: people.orders.id, isProducer: true } });
    expect(await acls(`User:${producer.name}`)).toContain(`WRITE TOPIC:${product.topicName}`);
    expect(await acls(`User:${account.name}`)).toContain(`READ TOPIC:${product.topicName}`);

    await deprecateProduct(db, people.as.ordersOwner, product.id, { reason: "Replaced by v2.", sunsetAt: new Date(Date.now() + 86_400_000).toISOString() });
    const scheduler = new SunsetScheduler(db, 3_600_000, testLogger);
    expect(await scheduler.runNow()).toEqual([]);
    // The sunset passes (set in the catalog rather than waiting a day).
    await db.dataProduct.update({ where: { id: product.id }, data: { sunsetAt: new Date(Date.now() - 1000) } });
    expect(await scheduler.runNow()).toEqual([product.id]);

    await waitFor(tasksDone(product.id), 15_000, "the retirement task");
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).status).toBe("RETIRED");
    expect((await db.subscription.findUniqueOrThrow({ where: { id: subscription.id } })).status).toBe("REVOKED");
    expect((await acls(`User:${producer.name}`)).filter((a) => a.includes(product.topicName))).toEqual([]);
    expect(await acls(`User:${account.name}`)).toEqual([]);
    expect(await running.cluster.listTopics()).toContain(product.topicName);

    const removal = await db.auditEvent.findFirstOrThrow({ where: { entityId: product.id, action: "provisioning.retire_product" } });
    expect(JSON.stringify(removal.data)).toContain("acl.deleted");
    const inbox = await listNotifications(db, await loadActor(db, people.as.paymentsOwner.userId));
    expect(inbox.notifications[0]).toMatchObject({ kind: "product.retired", entityId: product.id });
  });
});
