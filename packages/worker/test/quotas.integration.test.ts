// Client quota classes (issue 33) on the embedded broker: the worker gives each
// service account's SCRAM user the quota of its class (the policy's default,
// `standard`) with AlterClientQuotas, reads it back, and the full reconcile
// repairs a quota changed behind the catalog's back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_QUOTA_CLASSES, type Db } from "@kappa/catalog";
import { fullReconcile } from "../src/reconcile/full.ts";
import { approvedProduct, approvedSubscription, startSaslStack, stopSaslStack, waitFor } from "./helpers.ts";

const ADMIN = { name: "kappa-admin", password: "admin-secret-for-quota-tests" };
const standard = DEFAULT_QUOTA_CLASSES.classes.standard!;

let stack: Partial<Awaited<ReturnType<typeof startSaslStack>>> = {};
let db: Db;
beforeAll(async () => {
  stack = await startSaslStack(ADMIN);
  db = stack.db!;
}, 120_000);
afterAll(async () => {
  await stopSaslStack(stack);
});

describe("quota classes applied by the worker", () => {
  it("a product's producer and a subscriber get the standard class on their Kafka user; drift is repaired by the full reconcile", async () => {
    const { people, running } = stack as Awaited<ReturnType<typeof startSaslStack>>;
    const product = await approvedProduct(db, people);
    const producer = await waitFor(() => db.serviceAccount.findFirst({ where: { domainId: people.orders.id, isProducer: true, secretHash: { not: null } } }), 10_000, "the producer account's credentials");
    const expected = { producer_byte_rate: standard.producer_byte_rate, consumer_byte_rate: standard.consumer_byte_rate, request_percentage: standard.request_percentage };
    await waitFor(async () => (await running.cluster.describeUserQuotas([producer.name])).get(producer.name)?.producer_byte_rate !== undefined, 10_000, "the producer's quota");
    expect((await running.cluster.describeUserQuotas([producer.name])).get(producer.name)).toEqual(expected);
    const audit = await db.auditEvent.findFirst({ where: { action: "serviceAccount.quota.set", entityId: producer.id } });
    expect(audit?.data).toMatchObject({ class: "standard", principal: `User:${producer.name}`, producer_byte_rate: standard.producer_byte_rate });

    const { account: reader } = await approvedSubscription(db, people, product.id, "quota-reader");
    await waitFor(async () => (await running.cluster.describeUserQuotas([reader.name])).has(reader.name), 10_000, "the subscriber's quota");
    expect((await running.cluster.describeUserQuotas([reader.name])).get(reader.name)).toEqual(expected);

    // Someone lifts the producer's quota on the cluster: the full reconcile puts the class back.
    await running.cluster.alterUserQuotas([{ user: producer.name, set: { producer_byte_rate: 999_999_999 }, remove: ["request_percentage"] }]);
    const result = await fullReconcile(running.worker.ctx, running.worker.options.workerId);
    const repaired = result.changes.filter((c) => c.kind === "quota.corrected");
    expect(repaired.map((c) => c.resource)).toEqual([`quota:User:${producer.name}`]);
    expect(repaired[0]?.detail).toMatchObject({ class: "standard", before: { producer_byte_rate: 999_999_999, consumer_byte_rate: standard.consumer_byte_rate } });
    expect((await running.cluster.describeUserQuotas([producer.name])).get(producer.name)).toEqual(expected);
    // Nothing left to repair.
    const again = await fullReconcile(running.worker.ctx, running.worker.options.workerId);
    expect(again.changes.filter((c) => c.kind.startsWith("quota."))).toEqual([]);
  }, 120_000);
});
