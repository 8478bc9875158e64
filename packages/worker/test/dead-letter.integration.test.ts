import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveChangeRequest, setQualityRules, type Db } from "@kappa/catalog";
import { approvedProduct, approvedSubscription, startSaslStack, stopSaslStack, waitFor } from "./helpers.ts";

/*
 * Issue 29: a product with a DLQ rule gets `<topic>.dlq` from the worker —
 * created when the rule is approved, WRITE for the domain's producer account
 * and READ for the owning domain through it; subscribers get nothing on it.
 */

const ADMIN = { name: "kappa-admin", password: "dead-letter-admin-secret" };
let stack: Awaited<ReturnType<typeof startSaslStack>>;
let db: Db;

beforeAll(async () => {
  stack = await startSaslStack(ADMIN);
  db = stack.db;
});
afterAll(async () => stopSaslStack(stack ?? {}));

const grantsOn = async (principal: string, topic: string) =>
  (await stack.running.cluster.describeAcls([principal]))
    .filter((b) => b.resourceType === "TOPIC" && b.resourceName === topic)
    .map((b) => `${b.permission} ${b.operation}`)
    .sort();

describe("the dead-letter topic", () => {
  it("is provisioned with the product's DLQ rule: producer WRITE, owners READ, subscribers nothing", async () => {
    const { people } = stack;
    const product = await approvedProduct(db, people);
    await waitFor(async () => (await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).status === "ACTIVE", 30_000, "product ACTIVE");
    const { account: reader } = await approvedSubscription(db, people, product.id, "dlq-reader");
    const dlq = `${product.topicName}.dlq`;
    // No DLQ rule yet: no dead-letter topic.
    expect((await stack.running.cluster.describeTopics([dlq])).has(dlq)).toBe(false);

    const request = await setQualityRules(db, people.as.ordersOwner, product.id, {
      rules: [{ name: "has-id", description: "Every event names itself.", kind: "CEL", expression: "message.id != ''", mode: "WRITE", onFailure: "DLQ" }],
      reason: "Events without an id cannot be joined.",
    });
    await approveChangeRequest(db, people.as.reviewer, request.changeRequestId ?? "");

    const topic = await waitFor(async () => (await stack.running.cluster.describeTopics([dlq], ["retention.ms", "cleanup.policy"])).get(dlq), 30_000, "the DLQ topic");
    expect(topic.partitions).toBe(1);
    expect(topic.configs).toMatchObject({ "retention.ms": "604800000", "cleanup.policy": "delete" });

    const producer = await db.serviceAccount.findFirstOrThrow({ where: { domainId: people.orders.id, isProducer: true } });
    await waitFor(async () => (await grantsOn(`User:${producer.name}`, dlq)).length === 3, 30_000, "the producer's grants on the DLQ");
    expect(await grantsOn(`User:${producer.name}`, dlq)).toEqual(["ALLOW DESCRIBE", "ALLOW READ", "ALLOW WRITE"]);
    // The subscriber reads the product topic, never its dead letters.
    await waitFor(async () => (await grantsOn(`User:${reader.name}`, product.topicName)).length > 0, 30_000, "the subscriber's grant");
    expect(await grantsOn(`User:${reader.name}`, dlq)).toEqual([]);
  });
});
