import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveChangeRequest, requestPartitionIncrease, type Db } from "@kappa/catalog";
import { approvedProduct, kafkaClient, openTestDatabase, seedPeople, startTestBroker, startWorker, waitFor, type TestBroker } from "./helpers.ts";

let broker: TestBroker;
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;
let people: Awaited<ReturnType<typeof seedPeople>>;
let running: ReturnType<typeof startWorker>;

const ADMIN = { name: "kappa-admin", password: "partitions-admin-secret" };
const asAdmin = { sasl: { mechanism: "scram-sha-512" as const, username: ADMIN.name, password: ADMIN.password } };

beforeAll(async () => {
  // SASL and ACLs as in production, so the whole plan (credentials, ACLs) completes and the product becomes ACTIVE.
  broker = await startTestBroker({ listeners: "SASL_PLAINTEXT://127.0.0.1:0", "authorizer.class.name": "standard", "super.users": `User:${ADMIN.name}`, saslUsers: [ADMIN] });
  database = await openTestDatabase();
  db = database.db;
  people = await seedPeople(db);
  running = startWorker(db, broker.bootstrap, {}, { mechanism: "SCRAM-SHA-512", username: ADMIN.name, password: ADMIN.password });
  await running.start();
});

afterAll(async () => {
  await running?.stop();
  await database?.dispose();
  await broker?.cleanup();
});

async function partitionOffsets(topic: string) {
  const admin = kafkaClient(broker.bootstrap, asAdmin).admin();
  await admin.connect();
  try {
    return await admin.fetchTopicOffsets(topic);
  } finally {
    await admin.disconnect();
  }
}

describe("adding partitions to an ACTIVE product", () => {
  it("reaches the broker after review: the topic grows in place and keeps its records", async () => {
    const product = await approvedProduct(db, people, { partitions: 3 });
    await waitFor(async () => (await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).status === "ACTIVE", 20_000, "product ACTIVE");
    const producer = kafkaClient(broker.bootstrap, asAdmin).producer();
    await producer.connect();
    await producer.send({ topic: product.topicName, messages: Array.from({ length: 30 }, (_, i) => ({ key: `order-${i}`, value: `v${i}` })) });

    const request = await requestPartitionIncrease(db, people.as.ordersOwner, product.id, { partitions: 5, reason: "More parallel consumers" });
    // Nothing changes on the cluster before the review.
    expect(await partitionOffsets(product.topicName)).toHaveLength(3);
    await approveChangeRequest(db, people.as.reviewer, request.id);

    const grown = await waitFor(async () => {
      const offsets = await partitionOffsets(product.topicName);
      return offsets.length === 5 ? offsets : null;
    }, 20_000, "5 partitions on the broker");
    const total = (ps: { partition: number; high: string }[]) => ps.reduce((n, p) => n + Number(p.high), 0);
    // The 30 records are still on the old partitions; the new ones start empty.
    expect(total(grown)).toBe(30);
    expect(grown.filter((p) => p.partition >= 3).every((p) => p.high === "0")).toBe(true);
    await producer.disconnect();
    // New records can land on the new partitions (a fresh client sees the new metadata).
    const again = kafkaClient(broker.bootstrap, asAdmin).producer();
    await again.connect();
    await again.send({ topic: product.topicName, messages: [{ key: "x", value: "1", partition: 4 }] });
    await again.disconnect();
    expect((await partitionOffsets(product.topicName)).find((p) => p.partition === 4)?.high).toBe("1");
    const step = await waitFor(() => db.provisioningTask.findFirst({ where: { entityId: product.id, step: 4, status: "DONE" } }), 10_000, "grow step done");
    expect(step.kind).toBe("CREATE_TOPIC");
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).status).toBe("ACTIVE");
  });
});
