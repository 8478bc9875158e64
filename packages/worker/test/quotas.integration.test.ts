// Client quota classes (issue 33), on the embedded broker and on the suite's
// 3-node Apache Kafka cluster: the worker gives each service account's SCRAM
// user the quota of its class with AlterClientQuotas — the default
// (`standard`) or the class its product or subscription chose — reads it back,
// repairs drift in the full reconcile, and removes it (AlterClientQuotas with
// remove) when the account has no live use left.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveQuotaClass, approveSubscription, createServiceAccount, DEFAULT_QUOTA_CLASSES, requestSubscription, revokeSubscription, setProductQuotaClass, type Db } from "@kappa/catalog";
import { jsonLogger } from "../src/log.ts";
import { fullReconcile } from "../src/reconcile/full.ts";
import { approvedProduct, approvedSubscription, KAFKA_TARGETS, startKafkaTarget, startTargetStack, stopSaslStack, waitFor, type KafkaTarget, type openTestDatabase, type seedPeople, type startWorker } from "./helpers.ts";

const standard = DEFAULT_QUOTA_CLASSES.classes.standard!;
const bulk = DEFAULT_QUOTA_CLASSES.classes.bulk!;
/** Key order aside (Apache Kafka answers the keys in its own order). */
const canonical = (v: unknown) => JSON.stringify(v && typeof v === "object" ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v);
const values = (c: typeof standard) => ({ producer_byte_rate: c.producer_byte_rate, consumer_byte_rate: c.consumer_byte_rate, request_percentage: c.request_percentage });

describe.each(KAFKA_TARGETS)("quota classes applied by the worker on %s", (kind) => {
  let target: KafkaTarget;
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Db;
  let people: Awaited<ReturnType<typeof seedPeople>>;
  let running: ReturnType<typeof startWorker>;
  const logLines: string[] = [];

  beforeAll(async () => {
    target = await startKafkaTarget(kind);
    // The worker's JSON log lines, as an operator reads them (the request id test below).
    ({ database, db, people, running } = await startTargetStack(target, {}, jsonLogger({ level: "info", write: (line) => logLines.push(line) })));
  });
  afterAll(() => stopSaslStack({ running, database, broker: target }));

  /** What DescribeClientQuotas answers for the user (polled: a KRaft broker learns a change from the metadata log a moment later). */
  const quotaOf = (user: string) => running.cluster.describeUserQuotas([user]).then((m) => m.get(user));
  const quotaBecomes = async (user: string, want: unknown, what: string) => {
    let seen: unknown;
    try {
      await waitFor(async () => canonical((seen = await quotaOf(user))) === canonical(want), 10_000, what);
    } catch (error) {
      const failed = await db.provisioningTask.findMany({ where: { lastError: { not: null } }, select: { kind: true, lastError: true } });
      throw new Error(`${(error as Error).message}; DescribeClientQuotas shows ${JSON.stringify(seen)}, want ${JSON.stringify(want)}; task errors: ${JSON.stringify(failed)}`, { cause: error });
    }
  };
  const tasksDone = (entityId: string) => async () => {
    const tasks = await db.provisioningTask.findMany({ where: { entityId } });
    return tasks.length > 0 && tasks.every((t) => t.status === "DONE");
  };

  let productId: string;
  let producer: { id: string; name: string };

  it("a product's producer and a subscriber get the default class on their Kafka user; drift is repaired by the full reconcile", async () => {
    const product = await approvedProduct(db, people);
    productId = product.id;
    producer = await waitFor(() => db.serviceAccount.findFirst({ where: { domainId: people.orders.id, isProducer: true, secretHash: { not: null } } }), 10_000, "the producer account's credentials");
    await quotaBecomes(producer.name, values(standard), "the producer's quota");
    const audit = await db.auditEvent.findFirst({ where: { action: "serviceAccount.quota.set", entityId: producer.id } });
    expect(audit?.data).toMatchObject({ class: "standard", principal: `User:${producer.name}`, producer_byte_rate: standard.producer_byte_rate });

    const { account: reader } = await approvedSubscription(db, people, product.id, `quota-reader-${randomBytes(2).toString("hex")}`);
    await quotaBecomes(reader.name, values(standard), "the subscriber's quota");

    // Someone lifts the producer's quota on the cluster: the full reconcile puts the class back.
    await running.cluster.alterUserQuotas([{ user: producer.name, set: { producer_byte_rate: 999_999_999 }, remove: ["request_percentage"] }]);
    await quotaBecomes(producer.name, { producer_byte_rate: 999_999_999, consumer_byte_rate: standard.consumer_byte_rate }, "the drift to show");
    const result = await fullReconcile(running.worker.ctx, running.worker.options.workerId);
    const repaired = result.changes.filter((c) => c.kind === "quota.corrected");
    expect(repaired.map((c) => c.resource)).toEqual([`quota:User:${producer.name}`]);
    expect(repaired[0]?.detail).toMatchObject({ class: "standard", before: { producer_byte_rate: 999_999_999, consumer_byte_rate: standard.consumer_byte_rate } });
    await quotaBecomes(producer.name, values(standard), "the repaired quota");
    // Nothing left to repair.
    const again = await fullReconcile(running.worker.ctx, running.worker.options.workerId);
    expect(again.changes.filter((c) => c.kind.startsWith("quota."))).toEqual([]);
  });

  it("the class an owner chooses for the product, granted by governance, is what DescribeClientQuotas shows for the producer; the request's id follows into the audit event, the task and the worker's log line", async () => {
    await setProductQuotaClass(db, people.as.ordersOwner, productId, { quotaClass: "bulk", reason: "Nightly backfill of every order." });
    // Waiting for governance: the producer keeps the default.
    expect(await quotaOf(producer.name)).toEqual(values(standard));
    // The portal hands the catalog its request's context (apps/portal/src/server/actor.ts), x-request-id included.
    const requestId = `req-${kind}-${randomBytes(6).toString("hex")}`;
    await approveQuotaClass(db, { ...people.as.reviewer, request: { clientAddress: "127.0.0.1", userAgent: "test", requestId } }, { entityType: "DataProduct", id: productId });
    await waitFor(tasksDone(productId), 10_000, "the APPLY_QUOTA_CLASS step");
    await quotaBecomes(producer.name, values(bulk), "the producer's bulk quota");
    expect(await db.auditEvent.findFirst({ where: { action: "serviceAccount.quota.corrected", entityId: producer.id }, orderBy: { id: "desc" } })).toMatchObject({ data: expect.objectContaining({ class: "bulk" }) });

    const task = await db.provisioningTask.findFirstOrThrow({ where: { entityId: productId, kind: "APPLY_QUOTA_CLASS" } });
    expect(task.requestId).toBe(requestId);
    expect((await db.auditEvent.findFirstOrThrow({ where: { action: "product.quota-class.approved", entityId: productId } })).data).toMatchObject({ requestId });
    // Tasks queued outside a request (the earlier provisioning, queued here without one) carry none.
    expect((await db.provisioningTask.findFirstOrThrow({ where: { entityId: productId, kind: "CREATE_TOPIC" } })).requestId).toBeNull();
    const line = await waitFor(() => logLines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.task === task.id && l.msg === "task done"), 5_000, "the worker's log line of the task");
    expect(line).toMatchObject({ level: "info", kind: "APPLY_QUOTA_CLASS", requestId });
  });

  it("a subscription's class is applied to its account; revoking one of two subscriptions keeps the quota, revoking the last removes it", async () => {
    const second = await approvedProduct(db, people);
    const reader = await createServiceAccount(db, people.as.paymentsOwner, { domainId: people.payments.id, name: `${people.payments.slug}-bulk-${randomBytes(2).toString("hex")}`, description: "reads a lot" });
    const purpose = "Reconciliation of payments against orders.";
    const big = await requestSubscription(db, people.as.paymentsOwner, { productId, serviceAccountId: reader.id, purpose, quotaClass: "bulk", quotaClassReason: "Month-end replay of every order." });
    // The reviewer approves the access and, with it, the larger class.
    await approveSubscription(db, people.as.reviewer, big.id);
    await waitFor(tasksDone(big.id), 10_000, "the grant and the class");
    await quotaBecomes(reader.name, values(bulk), "the subscriber's bulk quota");
    const small = await requestSubscription(db, people.as.paymentsOwner, { productId: second.id, serviceAccountId: reader.id, purpose });
    await approveSubscription(db, people.as.ordersOwner, small.id);
    await waitFor(tasksDone(small.id), 10_000, "the second grant");

    // The bulk subscription ends: the account still reads the second product, under the default class.
    await revokeSubscription(db, people.as.ordersOwner, big.id, { reason: "Backfill finished." });
    await waitFor(tasksDone(big.id), 10_000, "the first revoke");
    await quotaBecomes(reader.name, values(standard), "the quota of the remaining subscription");

    // The last one ends: no live use, no quota on the cluster.
    await revokeSubscription(db, people.as.ordersOwner, small.id, { reason: "No longer needed." });
    await waitFor(tasksDone(small.id), 10_000, "the last revoke");
    await quotaBecomes(reader.name, undefined, "the quota's removal");
    expect(await db.auditEvent.findFirst({ where: { action: "serviceAccount.quota.removed", entityId: reader.id } })).toMatchObject({ data: expect.objectContaining({ reason: "no live use", before: values(standard) }) });
    // The full reconcile agrees: nothing to set again.
    const result = await fullReconcile(running.worker.ctx, running.worker.options.workerId);
    expect(result.changes.filter((c) => c.kind.startsWith("quota."))).toEqual([]);
    expect(await quotaOf(reader.name)).toBeUndefined();
  });
});
