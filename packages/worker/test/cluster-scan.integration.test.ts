import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lineageGraph, loadActor, type Db } from "@kappa/catalog";
import { decryptSecret } from "@kappa/catalog/secrets";
import { approvedProduct, approvedSubscription, kafkaClient, type openTestDatabase, SECRETS_KEY, type seedPeople, type startWorker, waitFor, type TestBroker, startSaslStack, stopSaslStack } from "./helpers.ts";

/*
 * The cluster scan against the real broker: every topic with managed/unmanaged,
 * an unmanaged topic's configs, offsets, ACLs and groups; and observed lineage —
 * a subscriber that really consumes shows as granted *and* used, a grant nobody
 * uses as unused, and a group reading a product topic outside any subscription
 * as an unsubscribed consumer.
 */
const ADMIN = { name: "kappa-admin", password: "scan-admin-secret" };
const asAdmin = { sasl: { mechanism: "scram-sha-512" as const, username: ADMIN.name, password: ADMIN.password } };

let broker: TestBroker;
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;
let people: Awaited<ReturnType<typeof seedPeople>>;
let running: ReturnType<typeof startWorker>;

beforeAll(async () => {
  ({ broker, database, db, people, running } = await startSaslStack(ADMIN, { clusterScanIntervalMs: 3_600_000 }));
});

afterAll(() => stopSaslStack({ running, database, broker }));

async function credentialsOf(accountId: string) {
  const account = await waitFor(() => db.serviceAccount.findFirst({ where: { id: accountId, secretCiphertext: { not: null } }, omit: { secretCiphertext: false } }), 20_000, "issued credentials");
  return { username: account.name, password: decryptSecret(SECRETS_KEY, account.secretCiphertext ?? "", account.id) };
}

describe("cluster scan", () => {
  it("lists every topic as managed or not, with an unmanaged topic's configs, offsets, ACLs and consumer groups", async () => {
    const product = await approvedProduct(db, people);
    await waitFor(async () => (await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).status === "ACTIVE", 20_000, "product ACTIVE");
    const admin = kafkaClient(broker.bootstrap, asAdmin).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: "legacy.clicks", numPartitions: 2, configEntries: [{ name: "retention.ms", value: "604800000" }] }] });
    await admin.createAcls({ acl: [{ resourceType: 2, resourceName: "legacy.", resourcePatternType: 4, principal: "User:legacy-app", host: "*", operation: 3, permissionType: 3 }] });
    await admin.disconnect();
    const producer = kafkaClient(broker.bootstrap, asAdmin).producer();
    await producer.connect();
    await producer.send({ topic: "legacy.clicks", messages: Array.from({ length: 7 }, (_, i) => ({ key: `k${i}`, value: JSON.stringify({ page: `/p${i}` }) })) });
    await producer.disconnect();
    const consumer = kafkaClient(broker.bootstrap, asAdmin).consumer({ groupId: "legacy-dashboard" });
    await consumer.connect();
    await consumer.subscribe({ topic: "legacy.clicks", fromBeginning: true });
    let seen = 0;
    await consumer.run({ autoCommitInterval: 100, eachMessage: async () => { seen++; } });
    await waitFor(() => seen >= 7, 20_000, "legacy records consumed");
    await consumer.disconnect(); // commits on leave

    const summary = await running.worker.scanner.scanOnce();
    expect(summary.unmanaged).toBeGreaterThanOrEqual(1);
    const rows = await db.clusterTopic.findMany({ orderBy: { name: "asc" } });
    expect(rows.find((r) => r.name === product.topicName)).toMatchObject({ productId: product.id });
    const legacy = rows.find((r) => r.name === "legacy.clicks");
    expect(legacy).toMatchObject({ productId: null, partitions: 2, endOffset: 7n, configs: { "retention.ms": "604800000" } });
    expect(legacy?.acls).toEqual([expect.objectContaining({ resourceName: "legacy.", patternType: "PREFIXED", principal: "User:legacy-app", operation: "READ" })]);
    expect(legacy?.groups).toEqual([expect.objectContaining({ groupId: "legacy-dashboard", committedPartitions: 2 })]);
  });

  it("observes who consumes: granted and used, granted and unused, used without a subscription", async () => {
    const product = await approvedProduct(db, people);
    const used = await approvedSubscription(db, people, product.id, `payments-ledger-${Date.now().toString(36)}`);
    const idle = await approvedSubscription(db, people, product.id, `payments-idle-${Date.now().toString(36)}`);
    await waitFor(async () => (await db.subscription.count({ where: { id: { in: [used.subscription.id, idle.subscription.id] }, status: "ACTIVE" } })) === 2, 30_000, "subscriptions ACTIVE");
    const creds = await credentialsOf(used.account.id);
    const producer = kafkaClient(broker.bootstrap, asAdmin).producer();
    await producer.connect();
    await producer.send({ topic: product.topicName, messages: [{ value: "a" }, { value: "b" }] });
    await producer.disconnect();
    const consumer = kafkaClient(broker.bootstrap, { sasl: { mechanism: "scram-sha-512", ...creds } }).consumer({ groupId: `${used.account.name}.reconcile` });
    await consumer.connect();
    await consumer.subscribe({ topic: product.topicName, fromBeginning: true });
    let seen = 0;
    await consumer.run({ autoCommitInterval: 100, eachMessage: async () => { seen++; } });
    await waitFor(() => seen >= 2, 20_000, "subscriber consumed");
    // A consumer outside the catalog (the admin, a super user) reads the product topic too.
    const rogue = kafkaClient(broker.bootstrap, asAdmin).consumer({ groupId: "shadow-analytics" });
    await rogue.connect();
    await rogue.subscribe({ topic: product.topicName, fromBeginning: true });
    let rogueSeen = 0;
    await rogue.run({ autoCommitInterval: 100, eachMessage: async () => { rogueSeen++; } });
    await waitFor(() => rogueSeen >= 2, 20_000, "rogue consumed");
    await waitFor(async () => {
      await running.worker.scanner.scanOnce();
      return (await db.groupTopicUsage.count({ where: { topic: product.topicName, members: { gt: 0 } } })) === 2;
    }, 20_000, "both groups observed with members");
    await consumer.disconnect();
    await rogue.disconnect();

    const reviewer = await loadActor(db, people.as.reviewer.userId);
    const graph = await lineageGraph(db, reviewer, { productId: product.id });
    const edgeTo = (accountId: string) => graph.edges.find((e) => e.kind === "subscription" && e.target === `account:${accountId}`);
    expect(edgeTo(used.account.id)).toMatchObject({ granted: true, observed: true, flags: [] });
    expect(edgeTo(idle.account.id)).toMatchObject({ granted: true, observed: false, flags: ["unused-grant"] });
    const shadow = graph.edges.find((e) => e.kind === "observed" && e.target === "group:shadow-analytics");
    expect(shadow).toMatchObject({ granted: false, observed: true, flags: ["no-subscription"] });
  });
});
