import { ConfigResourceTypes } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@kappa/catalog";
import { approvedProduct, KAFKA_TARGETS, startKafkaTarget, startTargetStack, stopSaslStack, waitFor, type KafkaTarget, type openTestDatabase, type seedPeople, type startWorker } from "./helpers.ts";

/* Product topics, their configs and their drift, on the embedded broker and on the suite's 3-node Apache Kafka cluster. */
describe.each(KAFKA_TARGETS)("product topics on %s", (kind) => {
  let target: KafkaTarget;
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let db: Db;
  let people: Awaited<ReturnType<typeof seedPeople>>;
  let running: ReturnType<typeof startWorker>;

  beforeAll(async () => {
    target = await startKafkaTarget(kind, { "remote.log.storage.system.enable": true });
    ({ database, db, people, running } = await startTargetStack(target, { healthPort: -1 }));
  });

  afterAll(() => stopSaslStack({ running, database, broker: target }));

  async function topicConfigs(topic: string): Promise<Record<string, string>> {
    const admin = target.client().admin();
    await admin.connect();
    try {
      const res = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }], includeSynonyms: false });
      return Object.fromEntries((res.resources[0]?.configEntries ?? []).map((e) => [e.configName, e.configValue]));
    } finally {
      await admin.disconnect();
    }
  }

  async function partitionCount(topic: string): Promise<number> {
    const admin = target.client().admin();
    await admin.connect();
    try {
      const meta = await admin.fetchTopicMetadata({ topics: [topic] });
      return meta.topics[0]?.partitions.length ?? 0;
    } finally {
      await admin.disconnect();
    }
  }

  async function topicExists(topic: string): Promise<boolean> {
    const admin = target.client().admin();
    await admin.connect();
    try {
      return (await admin.listTopics()).includes(topic);
    } finally {
      await admin.disconnect();
    }
  }

  it("reports readiness on GET /healthz and records itself for the platform view", async () => {
    const res = await fetch(`http://127.0.0.1:${running.worker.healthPort}/healthz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; workerId: string };
    expect(["ready", "degraded"]).toContain(body.status);
    expect((await db.workerInstance.findUniqueOrThrow({ where: { workerId: body.workerId } })).status).toMatch(/ready|degraded/);
    expect((await fetch(`http://127.0.0.1:${running.worker.healthPort}/other`)).status).toBe(404);
  });

  it("approving a product creates its topic with exactly the catalog's partitions and configs within seconds", async () => {
    // "Within seconds" with room for a loaded CI machine; the speed itself is the bench's to measure.
    const product = await approvedProduct(db, people, { partitions: 6, retentionMs: 7 * 24 * 3600_000, cleanupPolicy: "delete" });
    await waitFor(() => topicExists(product.topicName), 20_000, `topic ${product.topicName}`);
    await waitFor(async () => (await db.provisioningTask.findFirst({ where: { entityId: product.id, kind: "CREATE_TOPIC", status: "DONE" } })) !== null, 20_000, "CREATE_TOPIC done");
    expect(await partitionCount(product.topicName)).toBe(6);
    const configs = await topicConfigs(product.topicName);
    expect(configs["retention.ms"]).toBe(String(7 * 24 * 3600_000));
    expect(configs["cleanup.policy"]).toBe("delete");
    const step = await db.provisioningTask.findFirstOrThrow({ where: { entityId: product.id, kind: "CREATE_TOPIC" } });
    expect(step.status).toBe("DONE");
    expect(step.attempts).toBe(1);
    const status = await db.dataProduct.findUniqueOrThrow({ where: { id: product.id }, select: { status: true } });
    expect(["PROVISIONING", "ACTIVE"]).toContain(status.status);
    const audit = await db.auditEvent.findMany({ where: { entityId: product.id, actorEmail: "worker" }, orderBy: { id: "asc" } });
    expect(audit.map((a) => a.action)).toContain("product.provisioning");
    expect(audit.map((a) => a.action)).toContain("provisioning.create_topic");
  });

  it("a compacted product with infinite retention gets cleanup.policy=compact and retention.ms=-1", async () => {
    const product = await approvedProduct(db, people, { partitions: 2, cleanupPolicy: "compact", keyFields: ["id"] });
    await waitFor(() => topicExists(product.topicName), 5_000, `topic ${product.topicName}`);
    const configs = await topicConfigs(product.topicName);
    expect(configs["cleanup.policy"]).toBe("compact");
    expect(configs["retention.ms"]).toBe("-1");
  });

  it("a tiered product gets remote.storage.enable, its local hot window, and segments that roll within it", async () => {
    const product = await approvedProduct(db, people, { partitions: 1, retentionMs: 30 * 24 * 3600_000, tieredStorage: true, localRetentionMs: 3600_000 });
    await waitFor(async () => (await db.provisioningTask.findFirst({ where: { entityId: product.id, kind: "CREATE_TOPIC", status: "DONE" } })) !== null, 5_000, "CREATE_TOPIC done");
    const configs = await topicConfigs(product.topicName);
    expect(configs["remote.storage.enable"]).toBe("true");
    expect(configs["local.retention.ms"]).toBe("3600000");
    expect(configs["segment.ms"]).toBe("3600000");
    expect(configs["retention.ms"]).toBe(String(30 * 24 * 3600_000));    // The capability the catalog's checks read (Cluster.tieredStorage), as the worker learns it from the brokers.
    expect(await running.cluster.tieredStorageEnabled()).toBe(true);
  });

  it("the full reconcile restores a deleted topic and a config changed by hand, records the drift, and a second pass finds nothing", async () => {
    const product = await approvedProduct(db, people, { partitions: 2, retentionMs: 3600_000 });
    await waitFor(() => topicExists(product.topicName), 5_000, `topic ${product.topicName}`);
    const other = await approvedProduct(db, people, { partitions: 1, retentionMs: 7200_000 });
    const createDone = (id: string) => async () => (await db.provisioningTask.findFirst({ where: { entityId: id, kind: "CREATE_TOPIC", status: "DONE" } })) !== null;
    await waitFor(createDone(product.id), 5_000, "CREATE_TOPIC of the first product");
    await waitFor(createDone(other.id), 5_000, "CREATE_TOPIC of the second product");
    // The reconcile leaves entities with open tasks to their tasks: the whole plans first.
    const planDone = (id: string) => async () => (await db.provisioningTask.findMany({ where: { entityId: id } })).every((t) => t.status === "DONE");
    await waitFor(planDone(product.id), 10_000, "the first product's plan");
    await waitFor(planDone(other.id), 10_000, "the second product's plan");

    const admin = target.client().admin();
    await admin.connect();
    try {
      await admin.deleteTopics({ topics: [product.topicName] });
      await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: other.topicName, configEntries: [{ name: "retention.ms", value: "999999999" }] }] });
    } finally {
      await admin.disconnect();
    }
    expect(await topicExists(product.topicName)).toBe(false);
    expect((await topicConfigs(other.topicName))["retention.ms"]).toBe("999999999");

    const { fullReconcile } = await import("../src/reconcile/full.ts");
    const result = await fullReconcile(running.worker.ctx, running.worker.options.workerId);
    const kinds = result.changes.map((c) => `${c.kind} ${c.resource}`);
    expect(result.errors).toEqual([]);
    expect(kinds).toContain(`topic.created topic:${product.topicName}`);
    expect(kinds).toContain(`topic.configs.set topic:${other.topicName}`);
    expect(await topicExists(product.topicName)).toBe(true);
    expect(await partitionCount(product.topicName)).toBe(2);
    expect((await topicConfigs(other.topicName))["retention.ms"]).toBe("7200000");

    if (result.runId === null) throw new Error("the reconcile was skipped");
    const run = await db.reconcileRun.findUniqueOrThrow({ where: { id: result.runId } });
    expect(run.driftCount).toBeGreaterThanOrEqual(2);
    const drift = await db.auditEvent.findMany({ where: { action: "drift.repaired", entityId: { in: [product.id, other.id] } } });
    expect(drift.length).toBeGreaterThanOrEqual(2);

    const again = await fullReconcile(running.worker.ctx, running.worker.options.workerId);
    expect(again.changes.filter((c) => c.entityId === product.id || c.entityId === other.id)).toEqual([]);
    // What the run waited on, by part: the catalog's reads and the cluster's describes of each section.
    expect(Object.keys(again.timing)).toEqual(expect.arrayContaining(["busy.catalog", "topics.catalog", "topics.cluster", "acls.catalog"]));
    expect(Object.values(again.timing).every((ms) => ms >= 0)).toBe(true);
    expect(again.timing["topics.cluster"]).toBeGreaterThan(0);
  });

  it("runs one full reconcile at a time across workers (another worker's unfinished run makes it skip; a stale one does not)", async () => {
    const { fullReconcile } = await import("../src/reconcile/full.ts");
    const other = await db.reconcileRun.create({ data: { workerId: "another-worker" } });
    expect((await fullReconcile(running.worker.ctx, running.worker.options.workerId)).runId).toBeNull();
    await db.reconcileRun.update({ where: { id: other.id }, data: { startedAt: new Date(Date.now() - 3600_000) } });
    expect((await fullReconcile(running.worker.ctx, running.worker.options.workerId)).runId).not.toBeNull();
  });
});
