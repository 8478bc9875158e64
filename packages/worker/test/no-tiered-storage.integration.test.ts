// A cluster without tiered storage (Apache Kafka with
// remote.log.storage.system.enable=false, one node of its own): the worker
// learns it and records it on the environment, the catalog refuses a tiered
// product before submission, and a tiered product's topic that the cluster
// refuses fails at once with the reason instead of being retried forever.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerProduct, type Db } from "@kappa/catalog";
import { startApacheKafka, type ApacheKafkaCluster } from "@kappa/engines";
import { approvedProduct, openTestDatabase, seedPeople, startWorker, waitFor } from "./helpers.ts";

const ADMIN = { name: "kappa-admin", password: "no-tiers-secret" };

let kafka: ApacheKafkaCluster;
let dataDir: string;
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;
let people: Awaited<ReturnType<typeof seedPeople>>;
let running: ReturnType<typeof startWorker>;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "kappa-worker-no-tiers-"));
  kafka = await startApacheKafka({ nodes: 1, dataDir, adminPassword: ADMIN.password, overrides: { "remote.log.storage.system.enable": "false", "group.initial.rebalance.delay.ms": "0" } });
  database = await openTestDatabase();
  db = database.db;
  people = await seedPeople(db);
  running = startWorker(
    db,
    kafka.bootstrap,
    { adminUser: ADMIN.name, environments: { intervalMs: 3_600_000, primary: { environment: "edge", bootstrap: kafka.bootstrap, securityProtocol: "SASL_PLAINTEXT", saslMechanism: "scram-sha-512", adminUser: ADMIN.name } } },
    { mechanism: "SCRAM-SHA-512", username: ADMIN.name, password: ADMIN.password },
  );
  await running.start();
}, 300_000);

afterAll(async () => {
  await running?.stop();
  await database?.dispose();
  await kafka?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

describe("a cluster without tiered storage (Apache Kafka, remote.log.storage.system.enable=false)", () => {
  it("is recorded as such on its environment, and the catalog refuses a tiered product before submission", async () => {
    expect(await running.cluster.tieredStorageEnabled()).toBe(false);
    const row = await waitFor(async () => {
      const c = await db.cluster.findUnique({ where: { environment: "edge" } });
      return c?.tieredStorage === false ? c : null;
    }, 15_000, "the environment's tiered-storage capability");
    expect(row.primary).toBe(true);
    const refused = registerProduct(db, people.as.ordersOwner, {
      domainId: people.orders.id,
      name: "Cold archive",
      description: "Kept for years on the remote tier.",
      classification: "INTERNAL",
      partitions: 1,
      retentionMs: 365 * 24 * 3600_000,
      tieredStorage: true,
      localRetentionMs: 3600_000,
      tags: ["archive"],
      freshnessSeconds: 3600,
      availabilityPct: 99.9,
      contactEmail: "owner@orders.test",
      schema: { format: "JSON_SCHEMA", definition: JSON.stringify({ type: "object" }) },
    });
    await expect(refused).rejects.toMatchObject({ status: 400, fields: { tieredStorage: [expect.stringContaining("The edge environment has no tiered storage")] } });
  });

  it("fails a tiered product's topic at once with the reason (not retried forever), while an untiered product is provisioned", async () => {
    // Approved while the capability was not known yet (e.g. before the worker first reached the cluster).
    await db.cluster.update({ where: { environment: "edge" }, data: { tieredStorage: null } });
    const tiered = await approvedProduct(db, people, { partitions: 1, retentionMs: 30 * 24 * 3600_000, tieredStorage: true, localRetentionMs: 3600_000 });
    const plain = await approvedProduct(db, people, { partitions: 2 });
    await running.worker.runner.drain();
    const step = await db.provisioningTask.findFirstOrThrow({ where: { entityId: tiered.id, kind: "CREATE_TOPIC" } });
    expect(step.status).toBe("FAILED");
    expect(step.attempts).toBe(1);
    expect(step.lastError).toContain("This environment has no tiered storage");
    expect(step.lastError).toMatch(/Tiered Storage functionality is disabled/i);
    expect(await db.auditEvent.count({ where: { entityId: tiered.id, action: "provisioning.failed" } })).toBe(1);
    expect(await running.cluster.listTopics()).not.toContain(tiered.topicName);
    expect((await db.provisioningTask.findMany({ where: { entityId: plain.id } })).every((t) => t.status === "DONE")).toBe(true);
    expect(await running.cluster.listTopics()).toContain(plain.topicName);
  });
});
