/*
 * GET /metrics on the health port: scraped before and after the thing each
 * metric counts, against a real broker and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@kappa/catalog";
import { KafkaJsCluster } from "../src/kafka/kafkajs-cluster.ts";
import { WorkerMetrics } from "../src/metrics.ts";
import { Worker } from "../src/worker.ts";
import { approvedProduct, kafkaClient, openTestDatabase, seedPeople, startTestBroker, testLogger, waitFor, workerOptions, type TestBroker } from "./helpers.ts";

let broker: TestBroker;
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;
let people: Awaited<ReturnType<typeof seedPeople>>;
let cluster: KafkaJsCluster;
let worker: Worker;

beforeAll(async () => {
  broker = await startTestBroker();
  database = await openTestDatabase();
  db = database.db;
  people = await seedPeople(db);
  const metrics = new WorkerMetrics();
  cluster = new KafkaJsCluster({ brokers: [broker.bootstrap], sasl: null, ssl: false, clientId: "kappa-worker-test", connectionTimeoutMs: 1_000, requestTimeoutMs: 5_000, metrics }, testLogger);
  worker = new Worker(db, cluster, workerOptions({ healthPort: -1, metrics }), testLogger);
  await worker.start();
});

afterAll(async () => {
  await worker?.stop();
  await cluster?.close();
  await database?.dispose();
  await broker?.cleanup();
});

/** The scrape as {`name{labels}`: value}. */
async function scrape(): Promise<Map<string, number>> {
  const res = await fetch(`http://127.0.0.1:${worker.healthPort}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  const out = new Map<string, number>();
  for (const line of (await res.text()).split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const cut = line.lastIndexOf(" ");
    out.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return out;
}

const value = (m: Map<string, number>, series: string): number => m.get(series) ?? 0;

describe("worker metrics at GET /metrics", () => {
  it("a provisioning task that runs counts as completed, with its duration and the Kafka requests it sent", async () => {
    const before = await scrape();
    const product = await approvedProduct(db, people, { partitions: 2 });
    await waitFor(async () => (await db.provisioningTask.findFirst({ where: { entityId: product.id, kind: "CREATE_TOPIC", status: "DONE" } })) !== null, 20_000, "CREATE_TOPIC done");
    await waitFor(async () => value(await scrape(), 'kappa_worker_tasks_completed_total{kind="CREATE_TOPIC"}') > value(before, 'kappa_worker_tasks_completed_total{kind="CREATE_TOPIC"}'), 10_000, "the completed counter to move");
    const after = await scrape();
    const ran = (m: Map<string, number>) => value(m, 'kappa_worker_task_duration_seconds_count{kind="CREATE_TOPIC"}') + value(m, 'kappa_worker_task_duration_seconds_count{kind="batch"}');
    expect(ran(after)).toBeGreaterThan(ran(before));
    expect(value(after, 'kappa_worker_kafka_request_duration_seconds_count{api="CreateTopics"}')).toBeGreaterThan(value(before, 'kappa_worker_kafka_request_duration_seconds_count{api="CreateTopics"}'));
    // The queue gauges are read from the catalog at scrape time.
    expect(after.has('kappa_worker_task_queue_depth{status="PENDING"}')).toBe(true);
    expect(after.get("kappa_worker_task_queue_oldest_age_seconds")).toBeGreaterThanOrEqual(0);
    expect(after.get('kappa_worker_dependency_up{dependency="database"}')).toBe(1);
  });

  it("a task that can never succeed counts as a final failure", async () => {
    const before = await scrape();
    await db.provisioningTask.create({ data: { kind: "CREATE_TOPIC", payload: { productId: "no-such-product" }, entityType: "DataProduct", entityId: "no-such-product" } });
    await waitFor(async () => (await db.provisioningTask.findFirst({ where: { entityId: "no-such-product", status: "FAILED" } })) !== null, 20_000, "the task to fail");
    const after = await scrape();
    expect(value(after, 'kappa_worker_task_failures_total{kind="CREATE_TOPIC",final="true"}')).toBe(value(before, 'kappa_worker_task_failures_total{kind="CREATE_TOPIC",final="true"}') + 1);
  });

  it("a full reconcile that repairs a deleted topic records its duration and the drift; an observation cycle its duration", async () => {
    const product = await approvedProduct(db, people, { partitions: 1 });
    await waitFor(async () => (await db.provisioningTask.findFirst({ where: { entityId: product.id, kind: "CREATE_TOPIC", status: "DONE" } })) !== null, 20_000, "CREATE_TOPIC done");
    // The plan's credential steps stay open on a broker without SCRAM, and the reconcile leaves entities with open tasks to them.
    await db.provisioningTask.updateMany({ where: { entityId: product.id }, data: { status: "DONE" } });
    const admin = kafkaClient(broker.bootstrap).admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [product.topicName] });
    await admin.disconnect();
    const before = await scrape();
    await worker.reconcileNow();
    await worker.observeNow();
    const after = await scrape();
    const reconciles = (m: Map<string, number>) => value(m, 'kappa_worker_reconcile_duration_seconds_count{result="ok"}') + value(m, 'kappa_worker_reconcile_duration_seconds_count{result="error"}');
    expect(reconciles(after)).toBe(reconciles(before) + 1);
    const drift = (m: Map<string, number>) => [...m].filter(([k]) => k.startsWith("kappa_worker_drift_repaired_total")).reduce((n, [, v]) => n + v, 0);
    expect(drift(after)).toBeGreaterThan(drift(before));
    const observations = (m: Map<string, number>) => value(m, 'kappa_worker_observation_duration_seconds_count{result="ok"}') + value(m, 'kappa_worker_observation_duration_seconds_count{result="error"}');
    expect(observations(after)).toBe(observations(before) + 1);
  });
});
