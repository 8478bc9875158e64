// Derived products on Apache Flink (issue 34): statements planned by Flink's
// own planner through the SQL Gateway (validation: output schema, inputs,
// plan; 403 for an input the domain may not read; 422 with Flink's message),
// and a windowed aggregation that Flink runs over topics on the embedded
// broker, its output compared with the same aggregation computed here; the
// worker's deployment, and its stop when the input's subscription is revoked
// (and the job account's grants when the product is retired); the life cycle:
// pause, resume, replay, a new statement for a running job and for a paused
// one (it runs on resume). One Flink session cluster for the file
// (packages/engines), started while the catalog's products are made, the
// embedded broker with SASL/SCRAM and ACLs, a real PostgreSQL catalog. The
// worker's cycles run on demand: observeUntil is the one wait loop for them.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveChangeRequest,
  applyContracts,
  approveProduct,
  authenticateServiceAccount,
  CatalogError,
  changeDerivedStatement,
  deprecateProduct,
  derivedJobStatus,
  getProduct,
  loadActor,
  parseBasicAuthorization,
  pauseDerivedJob,
  planContracts,
  productContract,
  productJob,
  redriveValue,
  RegistryError,
  registerDerivedProduct,
  replayDerivedJob,
  resumeDerivedJob,
  retireProduct,
  revokeSubscription,
  schemaById,
  startDerivedJob,
  submitForReview,
  validateDerivedStatement,
  type FlinkSettings,
} from "@kappa/catalog";
import { startFlink, type ApacheFlinkCluster } from "@kappa/engines";
import { DerivedJobs, stopReasons } from "../src/derived/derived-jobs.ts";
import type { AclBinding } from "../src/kafka/cluster.ts";
import { unsealJobPassword } from "../src/reconcile/derived-grants.ts";
import { reconcilePrincipalAcls } from "../src/reconcile/entities.ts";
import { aclKeys, fullReconcile } from "../src/reconcile/full.ts";
import { approvedProduct, approvedSubscription, kafkaClient, startSaslStack, stopSaslStack, waitFor } from "./helpers.ts";

const ADMIN = { name: "kappa-admin", password: "admin-secret-for-flink-tests" };

const ORDER_SCHEMA = JSON.stringify({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    orderId: { type: "string" },
    merchant: { type: "string" },
    amount: { type: "number" },
    placedAt: { type: "string", format: "date-time" },
  },
  required: ["orderId", "merchant", "amount", "placedAt"],
});

const PAYMENT_SCHEMA = JSON.stringify({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    paymentId: { type: "string" },
    orderId: { type: "string" },
    amount: { type: "number" },
    capturedAt: { type: "string", format: "date-time" },
  },
  required: ["paymentId", "orderId", "amount", "capturedAt"],
});

/** The orders as an Avro product (Confluent's wire format, the registry's schema id): event time as timestamp-millis. */
const AVRO_ORDER_SCHEMA = JSON.stringify({
  type: "record",
  name: "OrderPlaced",
  namespace: "test.orders",
  fields: [
    { name: "orderId", type: "string" },
    { name: "merchant", type: "string" },
    { name: "amount", type: "double" },
    { name: "note", type: ["null", "string"], default: null },
    { name: "placedAt", type: { type: "long", logicalType: "timestamp-millis" } },
  ],
});

/** Orders joined with the payments captured within a minute of them (an interval join: each match once, append-only). */
const PAID_ORDERS = (orders: string, payments: string) => `SELECT o.orderId, o.merchant, o.amount AS ordered, p.paymentId, p.amount AS paid, p.capturedAt
FROM \`${orders}\` o JOIN \`${payments}\` p
ON o.orderId = p.orderId AND p.capturedAt BETWEEN o.placedAt AND o.placedAt + INTERVAL '1' MINUTE`;

const REVENUE_PER_MINUTE = (topic: string) => `SELECT merchant, window_start, window_end, COUNT(*) AS orders, SUM(amount) AS revenue
FROM TABLE(TUMBLE(TABLE \`${topic}\`, DESCRIPTOR(placedAt), INTERVAL '1' MINUTE))
GROUP BY merchant, window_start, window_end;`;

/** How often observeUntil runs the test worker's observation cycle at most. */
const CYCLE_MS = 500;

/** A failure that waiting longer cannot mend (the worker finished an intent as FAILED): observeUntil stops at once. */
class Final extends Error {
  override name = "Final";
}

describe("derived products on Apache Flink", () => {
  let flink: ApacheFlinkCluster;
  let flinkDir: string;
  let stack: Awaited<ReturnType<typeof startSaslStack>>;
  let settings: FlinkSettings;
  let orderEvents: { id: string; topicName: string };
  let otherProduct: { id: string; topicName: string };
  /** The interval join's two inputs, which the payments domain subscribes to (orders of their own: the other tests count orderEvents' offsets). */
  let joinOrders: { id: string; topicName: string };
  let capturedPayments: { id: string; topicName: string };
  /** The payments domain's subscription to orderEvents (the derived products' input). */
  let inputSubscription: { id: string };
  /** The product the worker deployed (the deployment test), which the stop test reuses: one job start less. */
  let deployedJob: { productId: string; topicName: string; jobId: string; accountId: string; wanted: AclBinding[] } | undefined;
  /** The Avro input (orders domain), subscribed to by the payments domain. */
  let avroOrders: { id: string; topicName: string };
  let avroSubscription: { id: string };
  /**
   * The portal's Schema Registry API as Flink's avro-confluent format calls it (GET /schemas/ids/{id}): the catalog's
   * own authentication (Basic, a service account's Kafka login) and schemaById, as the portal's route runs them, with
   * each answer recorded.
   */
  let registry: Server;
  let registryUrl: string;
  const registryAnswers: { account: string | null; id: number; status: number }[] = [];
  let derivedJobsStep: DerivedJobs | undefined;
  /** The worker's derived-jobs step, added to the test worker's observer once (its interval is an hour: cycles on demand). */
  const derivedJobs = () => {
    if (!derivedJobsStep) {
      derivedJobsStep = new DerivedJobs(stack.running.worker.ctx, { gatewayUrl: flink.gatewayUrl, restUrl: flink.restUrl, bootstrap: stack.broker.bootstrap, registryUrl });
      stack.running.worker.observer.use(derivedJobsStep);
    }
    return derivedJobsStep;
  };
  /**
   * Runs the test worker's observation cycles (its interval is an hour: cycles on demand, each running the
   * derived-jobs step) until `check` answers something, and answers that. The step's failure is tried again (a cycle
   * may fail while Flink is busy) and said on a timeout, as is an error `check` throws; a `Final` one — an intent the
   * worker finished as FAILED — ends the wait at once.
   */
  const observeUntil = async <T,>(check: () => Promise<T | null | undefined | false>, timeoutMs: number, what: string): Promise<T> => {
    const ended: { final?: Final } = {};
    let cycleAt = 0;
    const answer = await waitFor(async () => {
      // Cycles at most every CYCLE_MS: back to back they take a core from Flink's JVMs on a 2-core machine.
      const early = cycleAt + CYCLE_MS - Date.now();
      if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
      cycleAt = Date.now();
      await stack.running.worker.observeNow();
      const stepError = stack.running.worker.observer.stepErrors.get("derived-jobs");
      if (stepError) throw new Error(stepError);
      try {
        return await check();
      } catch (error) {
        if (!(error instanceof Final)) throw error;
        ended.final = error;
        return true;
      }
    }, timeoutMs, what);
    if (ended.final) throw ended.final;
    return answer as T;
  };
  /** Cycles until the worker deployed the product's job: its DerivedProduct row with the job id (a deployment's error is said on a timeout). */
  const deployedRow = (productId: string, what: string) =>
    observeUntil(async () => {
      const row = await stack.db.derivedProduct.findUniqueOrThrow({ where: { productId } });
      if (row.jobError) throw new Error(row.jobError);
      return row.jobId ? row : null;
    }, 120_000, what);
  /**
   * Cycles until the worker finished the intent `commandId` (DONE; FAILED ends the wait with its error) and the job
   * reads `state`; answers the job as the product page shows it (GET /api/v1/products/{id}/job).
   */
  const carriedOut = async (productId: string, commandId: string, state: string, timeoutMs = 180_000) => {
    const owner = await loadActor(stack.db, stack.people.as.paymentsOwner.userId);
    return observeUntil(async () => {
      const j = await productJob(stack.db, owner, productId);
      if (j.command?.id === commandId && j.command.status === "FAILED") throw new Final(`${j.command.kind} failed: ${j.command.error}`);
      return j.command?.id === commandId && j.command.status === "DONE" && j.state === state ? j : null;
    }, timeoutMs, `the worker to carry out ${commandId} (job ${state})`);
  };
  /** The worker's intent for an approved change request (a new statement). */
  const commandFor = async (changeRequestId: string) => (await stack.db.derivedJobCommand.findFirstOrThrow({ where: { changeRequestId } })).id;

  beforeAll(async () => {
    flinkDir = mkdtempSync(join(tmpdir(), "kappa-worker-flink-"));
    // The catalog's products are made while Flink's JVMs start (the longest part of the setup); both are awaited
    // before a failure of either is thrown, so that afterAll stops whatever did start.
    const setups = await Promise.allSettled([startFlink({ dataDir: flinkDir, taskSlots: 2, checkpointIntervalMs: 2_000 }).then((cluster) => (flink = cluster)), startSaslStack(ADMIN).then(async (started) => {
      stack = started;
      await createProducts();
    })]);
    const failed = setups.find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
    settings = { gatewayUrl: flink.gatewayUrl, bootstrap: stack.broker.bootstrap };
  }, 400_000);

  /** The file's input products and the payments domain's subscriptions to them; the Schema Registry stand-in. */
  const createProducts = async () => {
    // Single partitions: the watermark of a topic is the minimum over its partitions, and the fixed input goes to one.
    orderEvents = await approvedProduct(stack.db, stack.people, { name: `Order Events ${randomBytes(2).toString("hex")}`, partitions: 1, schema: { format: "JSON_SCHEMA", definition: ORDER_SCHEMA } });
    otherProduct = await approvedProduct(stack.db, stack.people, { name: `Refunds ${randomBytes(2).toString("hex")}`, partitions: 1, schema: { format: "JSON_SCHEMA", definition: ORDER_SCHEMA } });
    inputSubscription = (await approvedSubscription(stack.db, stack.people, orderEvents.id, "revenue")).subscription;
    joinOrders = await approvedProduct(stack.db, stack.people, { name: `Shop Orders ${randomBytes(2).toString("hex")}`, partitions: 1, schema: { format: "JSON_SCHEMA", definition: ORDER_SCHEMA } });
    await approvedSubscription(stack.db, stack.people, joinOrders.id, "shop-orders");
    capturedPayments = await approvedProduct(stack.db, stack.people, { name: `Payments Captured ${randomBytes(2).toString("hex")}`, partitions: 1, schema: { format: "JSON_SCHEMA", definition: PAYMENT_SCHEMA } });
    await approvedSubscription(stack.db, stack.people, capturedPayments.id, "paid-orders");
    avroOrders = await approvedProduct(stack.db, stack.people, { name: `Avro Orders ${randomBytes(2).toString("hex")}`, partitions: 1, schema: { format: "AVRO", definition: AVRO_ORDER_SCHEMA } });
    avroSubscription = (await approvedSubscription(stack.db, stack.people, avroOrders.id, "avro-orders")).subscription;
    registry = createServer((request, response) => {
      const match = /^\/schemas\/ids\/(\d{1,9})(?:\?.*)?$/.exec(request.url ?? "");
      const basic = parseBasicAuthorization(request.headers.authorization ?? "");
      const answer = (status: number, body: unknown) => {
        registryAnswers.push({ account: basic?.username ?? null, id: match ? Number(match[1]) : -1, status });
        response.writeHead(status, { "content-type": "application/vnd.schemaregistry.v1+json" }).end(JSON.stringify(body));
      };
      if (request.method !== "GET" || !match) return answer(404, { error_code: 404, message: "HTTP 404 Not Found" });
      if (!basic) return answer(401, { error_code: 401, message: "Unauthorized" });
      void (async () => {
        try {
          const account = await authenticateServiceAccount(stack.db, basic.username, basic.password);
          answer(200, await schemaById(stack.db, { kind: "serviceAccount", account }, Number(match[1])));
        } catch (error) {
          if (error instanceof RegistryError) answer(error.status, { error_code: error.errorCode, message: error.message });
          else answer(500, { error_code: 500, message: String(error) });
        }
      })();
    });
    await new Promise<void>((resolve) => registry.listen(0, "127.0.0.1", resolve));
    registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
  };

  // Fixed input: two merchants over three minutes, out of order within a minute, then one late-in-time record that closes those windows.
  const t0 = Date.UTC(2026, 11, 5, 10, 0, 0);
  const at = (minute: number, second: number) => new Date(t0 + minute * 60_000 + second * 1_000).toISOString();
  const input = [
    { orderId: "o1", merchant: "m1", amount: 10, placedAt: at(0, 5) },
    { orderId: "o2", merchant: "m2", amount: 7.25, placedAt: at(0, 40) },
    { orderId: "o3", merchant: "m1", amount: 5.5, placedAt: at(0, 20) },
    { orderId: "o4", merchant: "m2", amount: 1, placedAt: at(1, 1) },
    { orderId: "o5", merchant: "m1", amount: 2, placedAt: at(1, 59) },
    { orderId: "o6", merchant: "m1", amount: 4, placedAt: at(2, 30) },
    { orderId: "o7", merchant: "m3", amount: 100, placedAt: at(10, 0) },
  ];
  /** A client of the broker as its admin. */
  const adminKafka = () => kafkaClient(stack.broker.bootstrap, { sasl: { mechanism: "scram-sha-512", username: ADMIN.name, password: ADMIN.password } });
  /** Orders into the input product's topic, keyed by order id. */
  const sendOrders = async (orders: readonly (typeof input)[number][]) => {
    const producer = adminKafka().producer();
    await producer.connect();
    await producer.send({ topic: orderEvents.topicName, messages: orders.map((r) => ({ key: r.orderId, value: JSON.stringify(r) })) });
    await producer.disconnect();
  };
  /** Produced once into the input product's topic; the jobs read it from the earliest offset. */
  let produced: Promise<void> | undefined;
  const produceInput = () =>
    (produced ??= (async () => {
      await waitFor(async () => (await stack.db.dataProduct.findUniqueOrThrow({ where: { id: orderEvents.id } })).status === "ACTIVE", 30_000, "the input topic to be provisioned");
      await sendOrders(input);
    })());
  /** The same aggregation, computed here: tumbling minutes per merchant, emitted once the watermark (newest event − 5 s) passes a window's end. */
  const expectedWindows = (records: readonly (typeof input)[number][] = input) => {
    const watermark = Math.max(...records.map((r) => Date.parse(r.placedAt))) - 5_000;
    const expected = new Map<string, { merchant: string; window_start: number; window_end: number; orders: number; revenue: number }>();
    for (const r of records) {
      const start = Math.floor(Date.parse(r.placedAt) / 60_000) * 60_000;
      if (start + 60_000 > watermark) continue;
      const key = `${r.merchant}@${start}`;
      const row = expected.get(key) ?? { merchant: r.merchant, window_start: start, window_end: start + 60_000, orders: 0, revenue: 0 };
      row.orders += 1;
      row.revenue += r.amount;
      expected.set(key, row);
    }
    return expected;
  };
  const normalise = (r: Record<string, unknown>) => ({ merchant: r.merchant, window_start: Date.parse(`${String(r.window_start)}Z`), window_end: Date.parse(`${String(r.window_end)}Z`), orders: r.orders, revenue: r.revenue });
  const byKey = (a: { merchant: unknown; window_start: number }, b: { merchant: unknown; window_start: number }) => `${String(a.merchant)}${a.window_start}`.localeCompare(`${String(b.merchant)}${b.window_start}`);

  afterAll(async () => {
    registry?.close();
    // Side by side: Flink's JVMs and the broker and database stop independently.
    await Promise.all([flink?.stop(), stack ? stopSaslStack(stack) : undefined]);
    if (flinkDir) rmSync(flinkDir, { recursive: true, force: true });
  }, 120_000);

  it("validates a windowed aggregation over a subscribed product: the output schema Flink derives, the inputs, Flink's plan", async () => {
    const result = await validateDerivedStatement(stack.db, stack.people.as.paymentsOwner, { domainId: stack.people.payments.id, statement: REVENUE_PER_MINUTE(orderEvents.topicName) }, settings);
    expect(result.inputs).toEqual([{ productId: orderEvents.id, topicName: orderEvents.topicName }]);
    expect(result.columns).toEqual([
      { name: "merchant", type: "STRING NOT NULL" },
      { name: "window_start", type: "TIMESTAMP(3) NOT NULL" },
      { name: "window_end", type: "TIMESTAMP(3) NOT NULL" },
      { name: "orders", type: "BIGINT NOT NULL" },
      { name: "revenue", type: "DOUBLE NOT NULL" },
    ]);
    expect(result.outputSchema).toMatchObject({
      type: "object",
      required: ["merchant", "window_start", "window_end", "orders", "revenue"],
      properties: { merchant: { type: "string" }, orders: { type: "integer" }, revenue: { type: "number" }, window_start: { type: "string", "x-flink-type": "TIMESTAMP(3)" } },
    });
    expect(result.plan).toMatch(/WindowAggregate\(groupBy=\[merchant\], window=\[TUMBLE\(time_col=\[placedAt\], size=\[1 min\]\)\]/);
    expect(result.plan).toContain(`TableSourceScan(table=[[default_catalog, default_database, ${orderEvents.topicName}`);
    expect(result.minimumClassification).toBe("INTERNAL");
  });

  it("refuses, naming the input, a statement over a product the domain holds no approved subscription to", async () => {
    const refused = await validateDerivedStatement(stack.db, stack.people.as.paymentsOwner, { domainId: stack.people.payments.id, statement: `SELECT o.orderId FROM \`${orderEvents.topicName}\` o JOIN \`${otherProduct.topicName}\` r ON o.orderId = r.orderId` }, settings).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CatalogError);
    expect((refused as CatalogError).status).toBe(403);
    expect((refused as CatalogError).message).toContain(otherProduct.topicName);
    expect((refused as CatalogError).details).toEqual({ productId: otherProduct.id, topicName: otherProduct.topicName });
    // Nor may someone outside the domain plan in its name.
    const outsider = await validateDerivedStatement(stack.db, stack.people.as.outsider, { domainId: stack.people.payments.id, statement: REVENUE_PER_MINUTE(orderEvents.topicName) }, settings).catch((e: unknown) => e);
    expect((outsider as CatalogError).status).toBe(403);
  });

  it("answers Flink's own error, with the line and column in the owner's statement, for a statement that does not plan", async () => {
    const statement = `SELECT merchant,\n  nope\nFROM \`${orderEvents.topicName}\``;
    const refused = (await validateDerivedStatement(stack.db, stack.people.as.paymentsOwner, { domainId: stack.people.payments.id, statement }, settings).catch((e: unknown) => e)) as CatalogError;
    expect(refused).toBeInstanceOf(CatalogError);
    expect(refused.status).toBe(422);
    expect(refused.message).toBe("From line 2, column 3 to line 2, column 6: Column 'nope' not found in any table");
    expect(refused.details).toEqual({ line: 2, column: 3 });
    // A table hint cannot point an input at another topic: Flink refuses dynamic options in the platform's sessions.
    const hinted = (await validateDerivedStatement(stack.db, stack.people.as.paymentsOwner, { domainId: stack.people.payments.id, statement: `SELECT * FROM \`${orderEvents.topicName}\` /*+ OPTIONS('topic'='${otherProduct.topicName}') */` }, settings).catch((e: unknown) => e)) as CatalogError;
    expect(hinted.status).toBe(422);
    expect(hinted.message).toContain("'table.dynamic-table-options.enabled'");
  });

  it("registers a derived product: the planner's output schema as schema version 1, the inputs as lineage, the statement on the product", async () => {
    const body = {
      domainId: stack.people.payments.id,
      name: `Revenue per Minute ${randomBytes(2).toString("hex")}`,
      description: "Order revenue per merchant per minute, computed in the stream by Flink.",
      classification: "INTERNAL",
      freshnessSeconds: 120,
      availabilityPct: 99.5,
      partitions: 1,
      contactEmail: "owner@payments.test",
      derived: { statement: REVENUE_PER_MINUTE(orderEvents.topicName) },
    };
    // Less sensitive than its input: refused, naming the field.
    const tooOpen = (await registerDerivedProduct(stack.db, stack.people.as.paymentsOwner, { ...body, classification: "PUBLIC" }, settings).catch((e: unknown) => e)) as CatalogError;
    expect(tooOpen.status).toBe(400);
    expect(tooOpen.fields?.classification?.[0]).toContain("INTERNAL or higher");
    // The schema is Flink's to derive, not the owner's to state.
    const withSchema = (await registerDerivedProduct(stack.db, stack.people.as.paymentsOwner, { ...body, schema: { format: "JSON_SCHEMA", definition: "{}" } }, settings).catch((e: unknown) => e)) as CatalogError;
    expect(withSchema.fields?.schema).toBeDefined();

    const created = await registerDerivedProduct(stack.db, stack.people.as.paymentsOwner, body, settings);
    expect(created.status).toBe("DRAFT");
    const page = await getProduct(stack.db, await loadActor(stack.db, stack.people.as.paymentsOwner.userId), created.id);
    expect(page.derived?.statement).toBe(REVENUE_PER_MINUTE(orderEvents.topicName).replace(/;$/, ""));
    expect(page.inputProducts.map((p) => p.id)).toEqual([orderEvents.id]);
    const schema = JSON.parse(page.schemaVersions[0]!.definition) as { properties: Record<string, unknown>; required: string[] };
    expect(page.schemaVersions[0]!.format).toBe("JSON_SCHEMA");
    expect(Object.keys(schema.properties)).toEqual(["merchant", "window_start", "window_end", "orders", "revenue"]);
    expect(schema.required).toEqual(["merchant", "window_start", "window_end", "orders", "revenue"]);
    const audit = await stack.db.auditEvent.findFirst({ where: { entityId: created.id, action: "product.derivedDeclared" } });
    expect(audit).not.toBeNull();
  });

  it("runs the windowed aggregation on Flink over the embedded broker: each closed window once, as computed here, exactly-once", async () => {
    const validated = await validateDerivedStatement(stack.db, stack.people.as.paymentsOwner, { domainId: stack.people.payments.id, statement: REVENUE_PER_MINUTE(orderEvents.topicName) }, settings);
    const outputTopic = `${stack.people.payments.slug}.revenue-per-minute-${randomBytes(2).toString("hex")}.v1`;
    const kafka = adminKafka();
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: outputTopic, numPartitions: 1 }], waitForLeaders: true });
    await admin.disconnect();

    await produceInput();
    const expected = expectedWindows();
    expect(expected.size).toBe(5);

    const jobId = await startDerivedJob({
      gatewayUrl: flink.gatewayUrl,
      connection: { bootstrap: stack.broker.bootstrap, sasl: { username: ADMIN.name, password: ADMIN.password } },
      statement: validated.statement,
      inputs: [{ topicName: orderEvents.topicName, format: "JSON_SCHEMA", definition: ORDER_SCHEMA }],
      outputTopic,
      outputColumns: validated.columns,
      groupId: `flink-test-${randomBytes(3).toString("hex")}`,
      transactionalIdPrefix: `flink-test-${randomBytes(3).toString("hex")}`,
    });
    expect(jobId).toMatch(/^[0-9a-f]{32}$/);

    // A READ_COMMITTED consumer (kafkajs's default) sees the sink's records once their checkpoint commits the transaction.
    const { seen, stop: stopReading } = await readOutput(outputTopic);
    try {
      await waitFor(() => seen.length >= expected.size, 120_000, `${expected.size} windows on ${outputTopic} (job ${jobId})`);
    } finally {
      await stopReading();
    }
    expect(seen.map(normalise).sort(byKey)).toEqual([...expected.values()].sort(byKey));

    // Flink reports numRestarts once the job's metrics are registered, which may be after its first results.
    const status = await waitFor(async () => {
      const s = await derivedJobStatus(flink.restUrl, jobId);
      return s.restarts !== null ? s : null;
    }, 60_000, `Flink to report job ${jobId}'s restarts`);
    expect(status).toMatchObject({ state: "RUNNING", jobId, restarts: 0, error: null });
    expect(Date.parse(status.startedAt!)).toBeGreaterThan(Date.now() - 10 * 60_000);
    expect(status.lastCheckpointAt).not.toBeNull();
    // Its slot goes to the next test's job.
    await fetch(`${flink.restUrl}/jobs/${jobId}?mode=cancel`, { method: "PATCH" });
  });

  // The interval join's job, which the TaskManager test kills under: one job start for both.
  let joinJob: { jobId: string; outputTopic: string } | undefined;
  const j0 = Date.UTC(2026, 11, 5, 12, 0, 0);
  const jat = (second: number) => new Date(j0 + second * 1_000).toISOString();
  type Order = (typeof input)[number];
  type Payment = { paymentId: string; orderId: string; amount: number; capturedAt: string };
  /** n orders from second `from` on, every 4 s, and their payments: most captured 10 s later, every fifth 2 minutes later (no match), every seventh twice; one payment of an unknown order. */
  const joinInput = (prefix: string, from: number, n: number) => {
    const orders: Order[] = [];
    const payments: Payment[] = [];
    for (let i = 0; i < n; i++) {
      const second = from + i * 4;
      orders.push({ orderId: `${prefix}${i}`, merchant: `m${i % 3}`, amount: 10 + i, placedAt: jat(second) });
      payments.push({ paymentId: `${prefix}p${i}`, orderId: `${prefix}${i}`, amount: 10 + i, capturedAt: jat(i % 5 === 4 ? second + 120 : second + 10) });
      if (i % 7 === 6) payments.push({ paymentId: `${prefix}q${i}`, orderId: `${prefix}${i}`, amount: 1, capturedAt: jat(second + 11) });
    }
    payments.push({ paymentId: `${prefix}x`, orderId: `${prefix}unknown`, amount: 5, capturedAt: jat(from + 1) });
    // Each topic in event-time order (nothing behind its watermark).
    payments.sort((a, b) => Date.parse(a.capturedAt) - Date.parse(b.capturedAt));
    return { orders, payments };
  };
  /** The join computed here: every (order, payment) of the same order id captured within a minute of the order. */
  const expectedJoin = (orders: readonly Order[], payments: readonly Payment[]) =>
    orders
      .flatMap((o) =>
        payments
          .filter((p) => p.orderId === o.orderId && Date.parse(p.capturedAt) >= Date.parse(o.placedAt) && Date.parse(p.capturedAt) <= Date.parse(o.placedAt) + 60_000)
          .map((p) => ({ orderId: o.orderId, merchant: o.merchant, ordered: o.amount, paymentId: p.paymentId, paid: p.amount, capturedAt: Date.parse(p.capturedAt) })),
      )
      .sort((a, b) => a.paymentId.localeCompare(b.paymentId));
  const joined = (r: Record<string, unknown>) => ({ orderId: r.orderId, merchant: r.merchant, ordered: r.ordered, paymentId: r.paymentId, paid: r.paid, capturedAt: Date.parse(String(r.capturedAt).replace(/Z?$/, "Z")) });
  const sendJoinInput = async ({ orders, payments }: { orders: readonly Order[]; payments: readonly Payment[] }) => {
    const producer = adminKafka().producer();
    await producer.connect();
    await producer.sendBatch({
      topicMessages: [
        { topic: joinOrders.topicName, messages: orders.map((o) => ({ key: o.orderId, value: JSON.stringify(o) })) },
        { topic: capturedPayments.topicName, messages: payments.map((p) => ({ key: p.paymentId, value: JSON.stringify(p) })) },
      ],
    });
    await producer.disconnect();
  };
  /** A product's topic from the beginning, read committed (kafkajs's default): what a consumer of the product sees. */
  const readOutput = async (topic: string) => {
    const seen: Record<string, unknown>[] = [];
    const consumer = adminKafka().consumer({ groupId: `reader-${randomBytes(3).toString("hex")}` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(JSON.parse(message.value!.toString()) as Record<string, unknown>) });
    return { seen, stop: () => consumer.disconnect() };
  };
  const firstJoinHalf = joinInput("a", 0, 20);
  const secondJoinHalf = joinInput("b", 100, 60);

  it("runs an interval join of two subscribed products on Flink: each order with the payments captured within a minute of it, as computed here (an aborted transaction's records left out)", async () => {
    await waitFor(async () => (await stack.db.dataProduct.count({ where: { id: { in: [joinOrders.id, capturedPayments.id] }, status: "ACTIVE" } })) === 2, 30_000, "the join's input topics to be provisioned");
    const validated = await validateDerivedStatement(stack.db, stack.people.as.paymentsOwner, { domainId: stack.people.payments.id, statement: PAID_ORDERS(joinOrders.topicName, capturedPayments.topicName) }, settings);
    expect(validated.inputs.map((i) => i.topicName).sort()).toEqual([joinOrders.topicName, capturedPayments.topicName].sort());
    expect(validated.plan).toMatch(/IntervalJoin\(joinType=\[InnerJoin\]/);
    const outputTopic = `${stack.people.payments.slug}.paid-orders-${randomBytes(2).toString("hex")}.v1`;
    const admin = adminKafka().admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: outputTopic, numPartitions: 1 }], waitForLeaders: true });
    await admin.disconnect();
    await sendJoinInput(firstJoinHalf);
    // An order and its payment in a transaction its producer aborted: not part of either product, so not joined.
    const aborting = adminKafka().producer({ transactionalId: `aborted-${randomBytes(3).toString("hex")}`, idempotent: true, maxInFlightRequests: 1 });
    await aborting.connect();
    const transaction = await aborting.transaction();
    await transaction.sendBatch({
      topicMessages: [
        { topic: joinOrders.topicName, messages: [{ key: "z0", value: JSON.stringify({ orderId: "z0", merchant: "m0", amount: 99, placedAt: jat(78) }) }] },
        { topic: capturedPayments.topicName, messages: [{ key: "zp0", value: JSON.stringify({ paymentId: "zp0", orderId: "z0", amount: 99, capturedAt: jat(88) }) }] },
      ],
    });
    await transaction.abort();
    await aborting.disconnect();
    const expected = expectedJoin(firstJoinHalf.orders, firstJoinHalf.payments);
    // 20 orders: 4 paid too late, 2 paid twice; the unknown order's payment matches nothing.
    expect(expected).toHaveLength(18);

    const jobId = await startDerivedJob({
      gatewayUrl: flink.gatewayUrl,
      connection: { bootstrap: stack.broker.bootstrap, sasl: { username: ADMIN.name, password: ADMIN.password } },
      statement: validated.statement,
      inputs: [
        { topicName: joinOrders.topicName, format: "JSON_SCHEMA", definition: ORDER_SCHEMA },
        { topicName: capturedPayments.topicName, format: "JSON_SCHEMA", definition: PAYMENT_SCHEMA },
      ],
      outputTopic,
      outputColumns: validated.columns,
      groupId: `flink-join-${randomBytes(3).toString("hex")}`,
      transactionalIdPrefix: `flink-join-${randomBytes(3).toString("hex")}`,
    });
    joinJob = { jobId, outputTopic };
    const out = await readOutput(outputTopic);
    try {
      await waitFor(() => out.seen.length >= expected.length, 120_000, `${expected.length} joined records on ${outputTopic} (job ${jobId})`);
    } finally {
      await out.stop();
    }
    expect(out.seen.map(joined).sort((a, b) => String(a.paymentId).localeCompare(String(b.paymentId)))).toEqual(expected);
  });

  it("kills the job's TaskManager mid-stream (SIGKILL): Flink restarts the job from its last checkpoint once a TaskManager is back, a read-committed consumer sees each joined record exactly once, and the job's status counts the restart", async () => {
    if (!joinJob) throw new Error("the interval join test must run first: this test kills the TaskManager under its job");
    const { jobId, outputTopic } = joinJob;
    const all = expectedJoin([...firstJoinHalf.orders, ...secondJoinHalf.orders], [...firstJoinHalf.payments, ...secondJoinHalf.payments]);
    const out = await readOutput(outputTopic);
    try {
      await waitFor(() => out.seen.length >= expectedJoin(firstJoinHalf.orders, firstJoinHalf.payments).length, 60_000, "the first half's joined records");
      // A checkpoint after the first half (the restart goes back to the latest one), then the second half while the job runs.
      const checkpointed = await waitFor(async () => (await derivedJobStatus(flink.restUrl, jobId)).lastCheckpointAt, 60_000, `a checkpoint of job ${jobId}`);
      await waitFor(async () => ((await derivedJobStatus(flink.restUrl, jobId)).lastCheckpointAt ?? "") > checkpointed, 60_000, `a later checkpoint of job ${jobId}`);
      // Mid-stream: the second half sent and the TaskManager killed at once, before the checkpoint that would commit its results.
      await sendJoinInput(secondJoinHalf);
      const killedPid = flink.pid("taskmanager");
      await flink.kill("taskmanager");
      expect(flink.pid("taskmanager")).toBe(killedPid);
      // A new TaskManager (its JVM starts while Flink notices the lost one); Flink fails the job's tasks over onto its slots.
      await flink.restart("taskmanager");
      expect(flink.pid("taskmanager")).not.toBe(killedPid);
      await waitFor(() => out.seen.length >= all.length, 180_000, `${all.length} joined records after the restart (job ${jobId})`);
      // One more completed checkpoint: a record written twice would be committed and read by now.
      const reached = (await derivedJobStatus(flink.restUrl, jobId)).lastCheckpointAt ?? "";
      await waitFor(async () => ((await derivedJobStatus(flink.restUrl, jobId)).lastCheckpointAt ?? "") > reached, 60_000, `a checkpoint of job ${jobId} after the last record`);
      // Exactly once: no record twice (the aborted transactions' records stay invisible to a read-committed consumer), none missing.
      const seenSorted = out.seen.map(joined).sort((a, b) => String(a.paymentId).localeCompare(String(b.paymentId)));
      expect(seenSorted).toEqual(all);
      // What the product page shows (GET /api/v1/products/{id}/job reads these figures): running again, one restart or more.
      const status = await waitFor(async () => {
        const s = await derivedJobStatus(flink.restUrl, jobId);
        return s.state === "RUNNING" && (s.restarts ?? 0) >= 1 ? s : null;
      }, 60_000, `job ${jobId} RUNNING with its restart counted`);
      expect(status).toMatchObject({ state: "RUNNING", jobId, error: null });
      expect(status.restarts).toBeGreaterThanOrEqual(1);
    } finally {
      await out.stop();
    }
    // Its slot goes to the next test's job.
    await fetch(`${flink.restUrl}/jobs/${jobId}?mode=cancel`, { method: "PATCH" });
  }, 600_000);

  it("deploys an approved derived product: a job account of its domain with exactly the job's grants, kept by drift repair; the right windows on the product's topic; the job RUNNING in the catalog", async () => {
    const { worker } = stack.running;
    derivedJobs();
    await produceInput();
    const expected = expectedWindows();
    const created = await registerDerivedProduct(
      stack.db,
      stack.people.as.paymentsOwner,
      {
        domainId: stack.people.payments.id,
        name: `Revenue Deployed ${randomBytes(2).toString("hex")}`,
        description: "Order revenue per merchant per minute, deployed by the worker.",
        classification: "INTERNAL",
        freshnessSeconds: 120,
        availabilityPct: 99.5,
        partitions: 1,
        contactEmail: "owner@payments.test",
        derived: { statement: REVENUE_PER_MINUTE(orderEvents.topicName) },
      },
      settings,
    );
    await submitForReview(stack.db, stack.people.as.paymentsOwner, created.id);
    await approveProduct(stack.db, stack.people.as.reviewer, created.id);

    const deployed = await deployedRow(created.id, "the worker to deploy the job");
    expect(deployed.jobId).toMatch(/^[0-9a-f]{32}$/);

    // The job's own account: of the product's domain, its password sealed for the worker and never offered for pickup.
    const account = await stack.db.serviceAccount.findUniqueOrThrow({ where: { id: deployed.serviceAccountId! }, omit: { secretHash: false, secretCiphertext: false } });
    expect(account.domainId).toBe(stack.people.payments.id);
    expect(account.isProducer).toBe(false);
    expect(account.secretHash).not.toBeNull();
    expect(account.secretCiphertext).toBeNull();
    expect(deployed.jobSecretSealed).toMatch(/^v1:/);
    const principal = `User:${account.name}`;
    const prefix = `${account.name}.`;
    const allow = (resourceType: AclBinding["resourceType"], patternType: AclBinding["patternType"], resourceName: string, operation: AclBinding["operation"]): AclBinding => ({ principal, resourceType, patternType, resourceName, operation, permission: "ALLOW", host: "*" });
    const wanted = [
      allow("TOPIC", "LITERAL", orderEvents.topicName, "READ"),
      allow("TOPIC", "LITERAL", orderEvents.topicName, "DESCRIBE"),
      allow("GROUP", "PREFIXED", prefix, "READ"),
      allow("TOPIC", "LITERAL", created.topicName, "WRITE"),
      allow("TOPIC", "LITERAL", created.topicName, "DESCRIBE"),
      allow("CLUSTER", "LITERAL", "kafka-cluster", "IDEMPOTENT_WRITE"),
      allow("TRANSACTIONAL_ID", "PREFIXED", prefix, "WRITE"),
      allow("TRANSACTIONAL_ID", "PREFIXED", prefix, "DESCRIBE"),
    ];
    const held = async () => aclKeys(await stack.running.cluster.describeAcls([principal]));
    expect(await held()).toEqual(aclKeys(wanted));
    // Drift repair derives the same grants from the catalog: nothing to delete, per account or in the full run.
    expect(await reconcilePrincipalAcls(worker.ctx, account.id)).toEqual([]);
    const full = await fullReconcile(worker.ctx, "derived-test");
    expect(full.changes.filter((c) => c.entityId === account.id)).toEqual([]);
    expect(await held()).toEqual(aclKeys(wanted));

    // The job, running as that account, writes the closed windows into the product's topic (read committed).
    const { seen, stop: stopReading } = await readOutput(created.topicName);
    try {
      await waitFor(() => seen.length >= expected.size, 120_000, `${expected.size} windows on ${created.topicName} (job ${deployed.jobId})`);
    } finally {
      await stopReading();
    }
    expect(seen.map(normalise).sort(byKey)).toEqual([...expected.values()].sort(byKey));

    // GET /api/v1/products/{id}/job's data, as the observer recorded it in the catalog.
    const owner = await loadActor(stack.db, stack.people.as.paymentsOwner.userId);
    const job = await observeUntil(async () => {
      const j = await productJob(stack.db, owner, created.id);
      // Flink reports numRestarts once the job's metrics are registered: a cycle right after the start may not have it yet.
      return j.state === "RUNNING" && j.restarts !== null ? j : null;
    }, 60_000, "the observer to record the job RUNNING with its metrics");
    expect(job).toMatchObject({ state: "RUNNING", jobId: deployed.jobId, error: null, restarts: 0, stoppedAt: null, stopReason: null });
    deployedJob = { productId: created.id, topicName: created.topicName, jobId: deployed.jobId!, accountId: account.id, wanted };
    expect(Date.parse(job.startedAt!)).toBeGreaterThan(Date.now() - 10 * 60_000);
    // A product that is not derived has no job.
    const notDerived = (await productJob(stack.db, owner, orderEvents.id).catch((e: unknown) => e)) as CatalogError;
    expect(notDerived.status).toBe(404);
  });

  it("pauses the job with a savepoint, resumes it from there (the window open at the pause closes with its earlier record, nothing recomputed), and replays it from the earliest offset under a new group (every window again)", async () => {
    if (!deployedJob) throw new Error("the deployment test must run first: this test pauses the job it deployed");
    const { productId, topicName } = deployedJob;
    const flinkState = async (id: string) => ((await (await fetch(`${flink.restUrl}/jobs/${id}`)).json()) as { state: string }).state;
    // The product's topic from the beginning, read committed, for the whole test.
    const { seen, stop: stopReading } = await readOutput(topicName);
    try {
      const before = [...expectedWindows().values()];
      await waitFor(() => seen.length >= before.length, 60_000, "the deployed job's windows");

      // Pause: Flink stops the job with a savepoint in the cluster's savepoint folder; the catalog says PAUSED and where.
      const firstJob = deployedJob.jobId;
      const { command: pause } = await pauseDerivedJob(stack.db, stack.people.as.paymentsOwner, productId);
      const paused = await carriedOut(productId, pause.id, "PAUSED");
      expect(paused).toMatchObject({ jobId: firstJob, command: { kind: "PAUSE", status: "DONE", error: null }, pausedAt: expect.any(String) });
      // Flink writes the location as file:/…/savepoints/savepoint-<job id prefix>-<random>.
      expect(paused.savepointPath).toContain(`${flink.savepointsDir.replace(/^file:\/+/, "/")}/savepoint-${firstJob.slice(0, 6)}`);
      // Stopped with its savepoint: Flink reports it FINISHED (not CANCELED) before the worker records PAUSED.
      expect(await flinkState(firstJob)).toBe("FINISHED");

      // While it is paused: one more order of m3 in the window that was open at the pause, and one that closes it.
      const later = [
        { orderId: "o8", merchant: "m3", amount: 3, placedAt: at(10, 30) },
        { orderId: "o9", merchant: "m1", amount: 1, placedAt: at(20, 0) },
      ];
      await sendOrders(later);

      // Resume: from the savepoint. m3's window closes with o7 (read before the pause, kept in the savepoint) and o8;
      // the windows written before the pause are not written again.
      const { command: resume } = await resumeDerivedJob(stack.db, stack.people.as.paymentsOwner, productId);
      const resumed = await carriedOut(productId, resume.id, "RUNNING");
      expect(resumed.jobId).not.toBe(firstJob);
      expect(resumed).toMatchObject({ pausedAt: null, savepointPath: null, command: { kind: "RESUME", savepointPath: paused.savepointPath } });
      const all = [...input, ...later];
      const afterResume = [...expectedWindows(all).values()];
      expect(afterResume.find((w) => w.merchant === "m3")).toMatchObject({ orders: 2, revenue: 103 });
      await waitFor(() => seen.length >= afterResume.length, 120_000, `the window m3 closed by the resumed job ${resumed.jobId}`);
      expect(seen.map(normalise).sort(byKey)).toEqual(afterResume.sort(byKey));

      // Replay from the earliest offset: the resumed job is cancelled (no savepoint), a new one reads every input
      // from its beginning under a new group of the job's account, and every closed window is appended again.
      const { command: replay } = await replayDerivedJob(stack.db, stack.people.as.paymentsOwner, productId, { from: "earliest" });
      const replayed = await carriedOut(productId, replay!.id, "RUNNING");
      expect(replayed.jobId).not.toBe(resumed.jobId);
      expect(replayed.command).toMatchObject({ kind: "REPLAY", from: "earliest", progress: expect.stringContaining("Replaying from earliest") });
      expect(await flinkState(resumed.jobId!)).toBe("CANCELED");
      const account = await stack.db.serviceAccount.findUniqueOrThrow({ where: { id: deployedJob.accountId } });
      expect((await stack.db.derivedProduct.findUniqueOrThrow({ where: { productId } })).jobGroupId).toBe(`${account.name}.replay-${replay!.id.slice(-10)}`);
      await waitFor(() => seen.length >= 2 * afterResume.length, 120_000, `the replayed job ${replayed.jobId} to write every window again`);
      expect(seen.map(normalise).sort(byKey)).toEqual([...afterResume, ...afterResume].sort(byKey));

      // Audited and told to the domain.
      for (const action of ["derivedProduct.pauseRequested", "derivedProduct.jobPaused", "derivedProduct.jobResumed", "derivedProduct.jobReplayed"]) {
        expect(await stack.db.auditEvent.count({ where: { entityId: productId, action } }), action).toBe(1);
      }
      const told = await stack.db.notificationEvent.findFirst({ where: { entityId: productId, kind: "derived.job-replayed" } });
      expect(told?.body).toBe(`Job ${replayed.jobId} recomputes from the inputs' earliest offsets; its results are appended to the topic again, after the earlier ones.`);
      deployedJob.jobId = replayed.jobId!;
    } finally {
      await stopReading();
    }
  }, 600_000);

  it("changes the running job's statement as a reviewed new version: an incompatible output refused naming the field; a compatible one approved by governance runs restored from the old job's savepoint (its open window closes with its earlier record) and writes the new column", async () => {
    if (!deployedJob) throw new Error("the deployment test must run first: this test changes the statement of the job it deployed");
    const { productId, topicName } = deployedJob;
    const owner = await loadActor(stack.db, stack.people.as.paymentsOwner.userId);
    const v1 = REVENUE_PER_MINUTE(orderEvents.topicName).replace(/;$/, "");
    // Planned by Flink: orders as text is not BACKWARD compatible with schema v1, and says so, naming the field.
    const breaking = (await changeDerivedStatement(stack.db, stack.people.as.paymentsOwner, productId, { statement: v1.replace("COUNT(*) AS orders", "CAST(COUNT(*) AS STRING) AS orders"), reason: "Orders as text." }, settings).catch((e: unknown) => e)) as CatalogError;
    expect(breaking).toBeInstanceOf(CatalogError);
    expect(breaking).toMatchObject({ status: 422, code: "INCOMPATIBLE_OUTPUT_SCHEMA", details: { fields: ["orders"], mode: "BACKWARD" } });
    expect(breaking.message).toContain("A new major version is needed");

    // A new nullable column computed from the window's aggregates: BACKWARD compatible, schema v2, same topic — asked
    // for with `kappa apply` (POST /api/v1/contracts) of the product's exported contract with the new statement in it.
    const v2 = v1.replace("SUM(amount) AS revenue", "SUM(amount) AS revenue, CASE WHEN SUM(amount) > 50 THEN 'large' END AS size");
    const contract = await productContract(stack.db, owner, productId, { bootstrap: stack.broker.bootstrap });
    const withV2 = { ...contract, schema: contract.schema?.map((o) => ({ ...o, customProperties: o.customProperties?.map((p) => (p.property === "derivedStatement" ? { ...p, value: v2 } : p)) })) };
    const files = { contracts: [{ content: JSON.stringify(withV2), source: "contracts/revenue.json" }] };
    const planned = (await planContracts(stack.db, stack.people.as.paymentsOwner, files)).items[0]!;
    expect(planned).toMatchObject({ action: "update", errors: [], changes: [{ field: "derivedStatement", from: v1, to: v2 }] });
    const applied = (await applyContracts(stack.db, stack.people.as.paymentsOwner, files, settings)).items[0]!;
    expect(applied.refusal).toBeUndefined();
    expect(applied).toMatchObject({ applied: true });
    const request = await stack.db.productChangeRequest.findFirstOrThrow({ where: { productId, kind: "DERIVED_STATEMENT", status: "REQUESTED" } });
    expect(applied.notes).toContain(`Statement version 2 with schema version 2 (Flink's output schema, compatible) waits for governance's review (change request ${request.id}).`);
    expect(request.payload).toMatchObject({ statement: v2, fromVersion: 1, toVersion: 2, schema: { version: 2, changed: true } });
    expect(request.reason).toBe(`Contract ${planned.contractId} applied from contracts/revenue.json.`);
    expect(planned.contractId).toBe(contract.id);
    const proposed = (request.payload as { schema: { definition: string } }).schema.definition;
    expect(Object.keys((JSON.parse(proposed) as { properties: object }).properties)).toEqual(["merchant", "window_start", "window_end", "orders", "revenue", "size"]);
    // Applying again while it waits for review is refused, nothing asked twice.
    expect((await applyContracts(stack.db, stack.people.as.paymentsOwner, files, settings)).items[0]).toMatchObject({ applied: false, refusal: { code: "CHANGE_PENDING" } });
    const oldJob = (await stack.db.derivedProduct.findUniqueOrThrow({ where: { productId } })).jobId!;
    await approveChangeRequest(stack.db, stack.people.as.reviewer, request.id);

    const { seen, stop: stopReading } = await readOutput(topicName);
    try {
      const changed = await carriedOut(productId, await commandFor(request.id), "RUNNING", 240_000);
      expect(changed).toMatchObject({ statementVersion: 2, jobStatementVersion: 2, restoredFromSavepoint: true, restoreNote: null, command: { kind: "STATEMENT", statementVersion: 2, error: null } });
      expect(changed.jobId).not.toBe(oldJob);
      expect(changed.command!.savepointPath).toContain(`savepoint-${oldJob.slice(0, 6)}`);
      // Stopped with its savepoint, not cancelled.
      expect(((await (await fetch(`${flink.restUrl}/jobs/${oldJob}`)).json()) as { state: string }).state).toBe("FINISHED");
      const before = seen.length;

      // m1's window at minute 20 was open at the change, holding o9 (amount 1) in the savepoint; o10 joins it, o11 closes it.
      const later = [
        { orderId: "o10", merchant: "m1", amount: 60, placedAt: at(20, 30) },
        { orderId: "o11", merchant: "m2", amount: 2, placedAt: at(30, 0) },
      ];
      await sendOrders(later);
      await waitFor(() => seen.slice(before).some((r) => r.merchant === "m1" && Date.parse(`${String(r.window_start)}Z`) === Date.parse(at(20, 0))), 120_000, `m1's window at minute 20 from the new job ${changed.jobId}`);
      // Restored: o9 counted with o10 (a job without the old state would say 1 order, 60). The new statement's column is there.
      expect(seen.slice(before).map((r) => ({ ...normalise(r), size: r.size }))).toEqual([{ merchant: "m1", window_start: Date.parse(at(20, 0)), window_end: Date.parse(at(21, 0)), orders: 2, revenue: 61, size: "large" }]);
      deployedJob.jobId = changed.jobId!;
    } finally {
      await stopReading();
    }
    // Recorded: statement versions 1 and 2, schema v2 approved by the reviewer, audited and told to the domain.
    expect(await stack.db.derivedStatementVersion.findMany({ where: { productId }, orderBy: { version: "asc" }, select: { version: true, schemaVersion: true } })).toEqual([
      { version: 1, schemaVersion: 1 },
      { version: 2, schemaVersion: 2 },
    ]);
    expect(await stack.db.schemaVersion.findFirst({ where: { productId, version: 2 } })).toMatchObject({ status: "APPROVED", decidedById: stack.people.as.reviewer.userId });
    expect(await stack.db.auditEvent.count({ where: { entityId: productId, action: "derivedProduct.jobStatementChanged" } })).toBe(1);
    expect((await stack.db.notificationEvent.findFirst({ where: { entityId: productId, kind: "derived.job-statement-changed" } }))?.body).toBe(`Job ${deployedJob.jobId} continues from the savepoint ${(await productJob(stack.db, owner, productId)).command!.savepointPath} of job ${oldJob}.`);
  }, 600_000);

  it("starts a new statement whose state Flink cannot restore from the group's committed input offsets, without state, and says so with Flink's reason", async () => {
    if (!deployedJob) throw new Error("the deployment test must run first: this test changes the statement of the job it deployed");
    const { productId, topicName } = deployedJob;
    const current = (await stack.db.derivedProduct.findUniqueOrThrow({ where: { productId } })).statement;
    // One more aggregate: the window operator's state (its accumulators) is no longer what the savepoint holds.
    const v3 = current.replace("SUM(amount) AS revenue", "SUM(amount) AS revenue, MAX(CASE WHEN amount > 0 THEN amount END) AS largest");
    const asked = await changeDerivedStatement(stack.db, stack.people.as.paymentsOwner, productId, { statement: v3, reason: "Show the largest order." }, settings);
    expect(asked).toMatchObject({ statementVersion: 3, schemaVersion: 3, schemaChanged: true });
    const oldJob = deployedJob.jobId;

    const kafka = adminKafka();
    const { seen, stop: stopReading } = await readOutput(topicName);
    // The input as the earlier tests produced it, in offset order (o1–o7, o8–o9 while paused, o10–o11 after the last change).
    const logged = [
      ...input,
      { orderId: "o8", merchant: "m3", amount: 3, placedAt: at(10, 30) },
      { orderId: "o9", merchant: "m1", amount: 1, placedAt: at(20, 0) },
      { orderId: "o10", merchant: "m1", amount: 60, placedAt: at(20, 30) },
      { orderId: "o11", merchant: "m2", amount: 2, placedAt: at(30, 0) },
    ];
    const admin = kafka.admin();
    await admin.connect();
    try {
      expect((await admin.fetchTopicOffsets(orderEvents.topicName))[0]).toMatchObject({ partition: 0, high: String(logged.length) });
      // The old job's last record (the previous test's window, its single partition read in order) is read: what follows is the new job's.
      await waitFor(() => (seen.some((r) => r.size === "large") ? true : null), 60_000, "the product's records so far");
      const mark = seen.length;
      await approveChangeRequest(stack.db, stack.people.as.reviewer, asked.changeRequest.id);
      const changed = await carriedOut(productId, await commandFor(asked.changeRequest.id), "RUNNING", 300_000);
      expect(changed).toMatchObject({ statementVersion: 3, jobStatementVersion: 3, restoredFromSavepoint: false });
      // Flink's reason: the window operator's state no longer fits its serializer.
      expect(changed.restoreNote).toMatch(/^Flink could not restore the savepoint \S+: StateMigrationException: .+\. The new statement started without state from the offsets the old job's consumer group \S+ committed: windows open at the change start afresh, and what was read since the group's last commit is read again\.$/);
      expect(changed.jobId).not.toBe(oldJob);
      const group = (await stack.db.derivedProduct.findUniqueOrThrow({ where: { productId } })).jobGroupId!;
      const committed = Number((await admin.fetchOffsets({ groupId: group, topics: [orderEvents.topicName] }))[0]!.partitions[0]!.offset);
      expect(committed).toBeGreaterThan(0);

      // Two more orders: o12 in m2's minute 30, o13 closes it. The new job, without state, read the input from the
      // group's committed offset on: its windows are those of the records from there, computed here.
      const later = [
        { orderId: "o12", merchant: "m2", amount: 5, placedAt: at(30, 20) },
        { orderId: "o13", merchant: "m1", amount: 1, placedAt: at(40, 0) },
      ];
      await sendOrders(later);
      const read = [...logged.slice(committed), ...later];
      const expected = [...expectedWindows(read).values()].map((w) => ({ ...w, largest: Math.max(...read.filter((r) => r.merchant === w.merchant && Date.parse(r.placedAt) >= w.window_start && Date.parse(r.placedAt) < w.window_end).map((r) => r.amount)) }));
      expect(expected.find((w) => w.merchant === "m2")).toMatchObject({ window_start: Date.parse(at(30, 0)) });
      await waitFor(() => seen.length - mark >= expected.length, 120_000, `${expected.length} windows from the new job ${changed.jobId}`);
      expect(seen.slice(mark).map((r) => ({ ...normalise(r), largest: r.largest })).sort(byKey)).toEqual(expected.sort(byKey));
      deployedJob.jobId = changed.jobId!;
    } finally {
      await admin.disconnect();
      await stopReading();
    }
  }, 600_000);

  it("rolls a new statement back that cannot run: refused before the job stops when it no longer plans, and when it starts neither with nor without state the old statement runs again from the savepoint; the command fails with Flink's reason, the job's version stays current", async () => {
    if (!deployedJob) throw new Error("the deployment test must run first: this test changes the statement of the job it deployed");
    const { productId, topicName } = deployedJob;
    const owner = await loadActor(stack.db, stack.people.as.paymentsOwner.userId);
    const row = await stack.db.derivedProduct.findUniqueOrThrow({ where: { productId } });
    const current = row.statement;
    expect(row.statementVersion).toBe(3);
    /** Cycles until the worker finished the intent of this approved change (DONE or FAILED) and the job runs; answers the job as the product page shows it. */
    const settled = async (changeRequestId: string, what: string) => {
      const commandId = await commandFor(changeRequestId);
      return observeUntil(async () => {
        const j = await productJob(stack.db, owner, productId);
        return j.command?.id === commandId && ["DONE", "FAILED"].includes(j.command.status) && j.state === "RUNNING" ? j : null;
      }, 300_000, what);
    };
    // The same windows over the captured payments too, per order id: the same output columns (schema v3 unchanged), a second input.
    const payments = current
      .replace("SELECT merchant,", "SELECT orderId AS merchant,")
      .replace(`\`${orderEvents.topicName}\``, `\`${capturedPayments.topicName}\``)
      .replace("DESCRIPTOR(placedAt)", "DESCRIPTOR(capturedAt)")
      .replace("GROUP BY merchant,", "GROUP BY orderId,");
    const union = `${current}\nUNION ALL\n${payments}`;
    const paymentsSchema = await stack.db.schemaVersion.findFirstOrThrow({ where: { productId: capturedPayments.id, status: "APPROVED" } });

    // 1. Approved, but the payments' approved schema loses `amount` before the worker gets to it: Flink no longer plans it, and the running job is left alone.
    const asked4 = await changeDerivedStatement(stack.db, stack.people.as.paymentsOwner, productId, { statement: union, reason: "Count captured payments too." }, settings);
    expect(asked4).toMatchObject({ statementVersion: 4, schemaChanged: false });
    await approveChangeRequest(stack.db, stack.people.as.reviewer, asked4.changeRequest.id);
    const withoutAmount = JSON.parse(PAYMENT_SCHEMA) as { properties: Record<string, unknown>; required: string[] };
    delete withoutAmount.properties.amount;
    withoutAmount.required = withoutAmount.required.filter((f) => f !== "amount");
    await stack.db.schemaVersion.update({ where: { id: paymentsSchema.id }, data: { definition: JSON.stringify(withoutAmount) } });
    let refused: Awaited<ReturnType<typeof productJob>>;
    try {
      refused = await settled(asked4.changeRequest.id, "the worker to refuse statement version 4");
    } finally {
      await stack.db.schemaVersion.update({ where: { id: paymentsSchema.id }, data: { definition: paymentsSchema.definition } });
    }
    expect(refused.command).toMatchObject({ kind: "STATEMENT", status: "FAILED", statementVersion: 4, savepointPath: null });
    expect(refused.command!.error).toMatch(/^Statement version 4 no longer plans: .*Column 'amount' not found/);
    expect(refused).toMatchObject({ jobId: deployedJob.jobId, statementVersion: 3, jobStatementVersion: 3 });
    expect(((await (await fetch(`${flink.restUrl}/jobs/${deployedJob.jobId}`)).json()) as { state: string }).state).toBe("RUNNING");
    expect((await stack.db.derivedProduct.findUniqueOrThrow({ where: { productId } })).statement).toBe(current);
    expect((await stack.db.productInput.findMany({ where: { productId } })).map((i) => i.inputProductId)).toEqual([orderEvents.id]);

    // 2. The payments' topic is gone from the cluster: the new statement plans, the old job stops with a savepoint, and Flink
    //    cannot run the new one, restored or not. The old statement runs again from that savepoint, its open window kept.
    const admin = adminKafka().admin();
    await admin.connect();
    try {
      await admin.deleteTopics({ topics: [capturedPayments.topicName] });
    } finally {
      await admin.disconnect();
    }
    const asked5 = await changeDerivedStatement(stack.db, stack.people.as.paymentsOwner, productId, { statement: union, reason: "Count captured payments too, again." }, settings);
    // Version 4 stays in the history (it did not run); the next one is 5.
    expect(asked5).toMatchObject({ statementVersion: 5, schemaChanged: false });
    const oldJob = deployedJob.jobId;
    const { seen, stop: stopReading } = await readOutput(topicName);
    try {
      // Everything the old job wrote so far is read: what follows is the rolled-back job's.
      await waitFor(() => (seen.some((r) => Date.parse(`${String(r.window_start)}Z`) === Date.parse(at(30, 0))) ? true : null), 60_000, "the product's records so far");
      const mark = seen.length;
      await approveChangeRequest(stack.db, stack.people.as.reviewer, asked5.changeRequest.id);
      const rolledBack = await settled(asked5.changeRequest.id, "the worker to roll statement version 5 back");
      expect(rolledBack.command).toMatchObject({ kind: "STATEMENT", status: "FAILED", statementVersion: 5, savepointPath: expect.stringContaining(`savepoint-${oldJob.slice(0, 6)}`) });
      // Flink's reason: the payments' topic is not there.
      expect(rolledBack.command!.error).toMatch(new RegExp(`^Statement version 5 did not start, with or without the savepoint \\S+: .*(UnknownTopicOrPartition|does not host this topic-partition|${capturedPayments.topicName.replace(/\./g, "\\.")})`));
      expect(rolledBack.command!.progress).toBe(`Rolled back: Statement version 3 runs again as job ${rolledBack.jobId}, restored from the savepoint ${rolledBack.command!.savepointPath} of job ${oldJob}.`);
      expect(rolledBack).toMatchObject({ statementVersion: 3, jobStatementVersion: 3, restoredFromSavepoint: true });
      expect(rolledBack.restoreNote).toContain(`Rolled back to statement version 3, restored from the savepoint ${rolledBack.command!.savepointPath}: Statement version 5 did not start`);
      expect(rolledBack.jobId).not.toBe(oldJob);
      expect(((await (await fetch(`${flink.restUrl}/jobs/${oldJob}`)).json()) as { state: string }).state).toBe("FINISHED");
      expect((await stack.db.derivedProduct.findUniqueOrThrow({ where: { productId } })).statement).toBe(current);
      expect((await stack.db.productInput.findMany({ where: { productId } })).map((i) => i.inputProductId)).toEqual([orderEvents.id]);
      // Restored: m1's window at minute 40 held o13 (amount 1) in the savepoint; o14 joins it, o15 closes it.
      await sendOrders([
        { orderId: "o14", merchant: "m1", amount: 4, placedAt: at(40, 30) },
        { orderId: "o15", merchant: "m2", amount: 1, placedAt: at(50, 0) },
      ]);
      await waitFor(() => seen.length > mark, 120_000, `m1's window at minute 40 from the rolled-back job ${rolledBack.jobId}`);
      expect(seen.slice(mark).map((r) => ({ ...normalise(r), largest: r.largest }))).toEqual([{ merchant: "m1", window_start: Date.parse(at(40, 0)), window_end: Date.parse(at(41, 0)), orders: 2, revenue: 5, largest: 4 }]);
      deployedJob.jobId = rolledBack.jobId!;
    } finally {
      await stopReading();
    }
    // Audited and told to the domain, with Flink's reason; the job account reads only the statement's input again.
    const failures = await stack.db.auditEvent.findMany({ where: { entityId: productId, action: "derivedProduct.jobCommandFailed" }, orderBy: { at: "asc" } });
    expect(failures.map((a) => (a.data as { statementVersion?: number; rolledBackTo?: number }).statementVersion)).toEqual([4, 5]);
    expect(failures[1]!.data).toMatchObject({ rolledBackTo: 3, fromJobId: oldJob, jobId: deployedJob.jobId });
    const told = await stack.db.notificationEvent.findFirst({ where: { entityId: productId, kind: "derived.job-command-failed" }, orderBy: { createdAt: "desc" } });
    expect(told?.title).toContain("Statement version 5 did not run; the job runs version 3");
    expect(told?.body).toContain(`Statement version 3 runs again as job ${deployedJob.jobId}`);
    const account = await stack.db.serviceAccount.findUniqueOrThrow({ where: { id: deployedJob.accountId } });
    expect(aclKeys(await stack.running.cluster.describeAcls([`User:${account.name}`]))).toEqual(aclKeys(deployedJob.wanted));
  }, 600_000);

  it("changes a paused job's statement: reviewed as for a running job, approved it leaves the job paused (nothing started in Flink); the resume runs the new statement restored from the pause's savepoint (its open window closes with its earlier record)", async () => {
    if (!deployedJob) throw new Error("the deployment test must run first: this test changes the statement of the job it deployed");
    const { productId, topicName } = deployedJob;
    const owner = await loadActor(stack.db, stack.people.as.paymentsOwner.userId);
    const runningJob = deployedJob.jobId;
    const current = (await stack.db.derivedProduct.findUniqueOrThrow({ where: { productId } })).statement;
    expect(current).toContain("CASE WHEN SUM(amount) > 50 THEN 'large' END AS size");
    const { seen, stop: stopReading } = await readOutput(topicName);
    try {
      // Everything written so far is read (the rolled-back job's window at minute 40 last): what follows is the resumed job's.
      await waitFor(() => (seen.some((r) => Date.parse(`${String(r.window_start)}Z`) === Date.parse(at(40, 0))) ? true : null), 60_000, "the product's records so far");
      const mark = seen.length;
      const { command: pause } = await pauseDerivedJob(stack.db, stack.people.as.paymentsOwner, productId);
      const paused = await carriedOut(productId, pause.id, "PAUSED");
      // Paused: what the job panel shows has no rates of the stopped job.
      expect(paused).toMatchObject({ jobId: runningJob, recordsInPerSecond: null, recordsOutPerSecond: null, watermarkLagMs: null, statementVersionOnResume: null });

      // A smaller threshold for "large": the same output schema, operators of the same shape. Planned by Flink and reviewed as for a running job.
      const v6 = current.replace("SUM(amount) > 50", "SUM(amount) > 4");
      const asked = await changeDerivedStatement(stack.db, stack.people.as.paymentsOwner, productId, { statement: v6, reason: "Large from 5 on." }, settings);
      expect(asked).toMatchObject({ statementVersion: 6, schemaChanged: false, jobPaused: true });
      expect(asked.onApproval).toMatch(/^The job is paused: once approved, statement version 6 is recorded and the job stays paused; resuming it runs statement version 6, restoring its savepoint/);
      await approveChangeRequest(stack.db, stack.people.as.reviewer, asked.changeRequest.id);
      // Not started behind the owners' back: no intent for the worker, a cycle later still PAUSED, no job of the product's name in Flink.
      expect(await stack.db.derivedJobCommand.count({ where: { changeRequestId: asked.changeRequest.id } })).toBe(0);
      const waiting = await observeUntil(async () => productJob(stack.db, owner, productId), 10_000, "a cycle");
      expect(waiting).toMatchObject({ state: "PAUSED", jobId: runningJob, statementVersion: 6, jobStatementVersion: 3, statementVersionOnResume: 6, command: { id: pause.id } });
      const overview = (await (await fetch(`${flink.restUrl}/jobs/overview`)).json()) as { jobs: { name: string; state: string }[] };
      expect(overview.jobs.filter((j) => j.name === `kappa-derived:${topicName}` && !["FINISHED", "CANCELED", "FAILED"].includes(j.state))).toEqual([]);

      // While paused: m2's window at minute 50 (open at the pause, o15 of amount 1 in the savepoint) gets o16; o17 closes it.
      await sendOrders([
        { orderId: "o16", merchant: "m2", amount: 5, placedAt: at(50, 30) },
        { orderId: "o17", merchant: "m1", amount: 1, placedAt: at(60, 0) },
      ]);
      const { command: resume } = await resumeDerivedJob(stack.db, stack.people.as.paymentsOwner, productId);
      const resumed = await carriedOut(productId, resume.id, "RUNNING", 240_000);
      expect(resumed).toMatchObject({ statementVersion: 6, jobStatementVersion: 6, statementVersionOnResume: null, restoredFromSavepoint: true, restoreNote: null, pausedAt: null, command: { kind: "RESUME", savepointPath: paused.savepointPath, error: null } });
      expect(resumed.command!.progress).toBe(`Resumed with statement version 6 as job ${resumed.jobId}, restored from ${paused.savepointPath}.`);
      expect(resumed.jobId).not.toBe(runningJob);
      await waitFor(() => seen.length > mark, 120_000, `m2's window at minute 50 from the resumed job ${resumed.jobId}`);
      // Restored: o15 counted with o16 (without the state it would be 1 order, 5). Version 6's threshold: "large" at 6 (version 3 said null).
      expect(seen.slice(mark).map((r) => ({ ...normalise(r), largest: r.largest, size: r.size }))).toEqual([{ merchant: "m2", window_start: Date.parse(at(50, 0)), window_end: Date.parse(at(51, 0)), orders: 2, revenue: 6, largest: 5, size: "large" }]);
      deployedJob.jobId = resumed.jobId!;
    } finally {
      await stopReading();
    }
    expect(await stack.db.auditEvent.findFirst({ where: { entityId: productId, action: "derivedProduct.jobResumed" }, orderBy: { at: "desc" } })).toMatchObject({ data: { statementVersion: 6, fromStatementVersion: 3, restoredFromSavepoint: true } });
    const told = await stack.db.notificationEvent.findFirst({ where: { entityId: productId, kind: "derived.job-resumed" }, orderBy: { createdAt: "desc" } });
    expect(told?.title).toContain("The Flink job was resumed with statement version 6");
  }, 600_000);

  it("redeploys the job Flink lost when its JobManager restarted (a session cluster without HA): restored from the last completed checkpoint the worker observed, its open window closing with its earlier record, each window once for a read-committed consumer", async () => {
    if (!deployedJob) throw new Error("the deployment test must run first: this test restarts Flink under the job it deployed");
    const { worker } = stack.running;
    const { productId, topicName } = deployedJob;
    const owner = await loadActor(stack.db, stack.people.as.paymentsOwner.userId);
    const lostJob = deployedJob.jobId;
    const { seen, stop: stopReading } = await readOutput(topicName);
    try {
      // m4's window at minute 70 opens with o18 (which closes m1's at minute 60, o17's); a checkpoint completes after the job read it, and the worker observes it.
      const sentAt = Date.now();
      await sendOrders([{ orderId: "o18", merchant: "m4", amount: 4, placedAt: at(70, 10) }]);
      const checkpoint = await observeUntil(async () => {
        const m = (await stack.db.derivedProduct.findUniqueOrThrow({ where: { productId } })).jobMetrics as Record<string, unknown> | null;
        return m?.checkpointJobId === lostJob && typeof m.lastCheckpointPath === "string" && typeof m.lastCheckpointAt === "string" && Date.parse(m.lastCheckpointAt) > sentAt + 2_000 ? m.lastCheckpointPath : null;
      }, 60_000, "a completed checkpoint of the job after it read o18");
      expect(checkpoint).toContain(`${lostJob}/chk-`);

      // The JobManager dies: Flink unreachable is UNKNOWN (retried). Started again it no longer knows the job (404), and the worker redeploys it.
      await flink.kill("jobmanager");
      await worker.observeNow();
      expect(await productJob(stack.db, owner, productId)).toMatchObject({ jobId: lostJob, state: "UNKNOWN" });
      await flink.restart("jobmanager");
      expect((await fetch(`${flink.restUrl}/jobs/${lostJob}`)).status).toBe(404);
      const redeployed = await observeUntil(async () => {
        const j = await productJob(stack.db, owner, productId);
        return j.jobId !== lostJob && j.state === "RUNNING" ? j : null;
      }, 240_000, "the worker to redeploy the lost job");
      const note = `Redeployed after Flink lost job ${lostJob} (its cluster restarted), restored from checkpoint ${checkpoint}.`;
      expect(redeployed).toMatchObject({ restoredFromSavepoint: true, restoreNote: note, error: null, stoppedAt: null, pausedAt: null, jobStatementVersion: 6 });
      const restored = (await (await fetch(`${flink.restUrl}/jobs/${redeployed.jobId}/checkpoints`)).json()) as { latest?: { restored?: { external_path?: string } | null } };
      expect(restored.latest?.restored?.external_path).toBe(checkpoint);
      const audited = await stack.db.auditEvent.findMany({ where: { entityId: productId, action: "derivedProduct.jobRedeployed" } });
      expect(audited.map((a) => a.data)).toEqual([{ fromJobId: lostJob, jobId: redeployed.jobId, checkpoint }]);
      expect((await stack.db.notificationEvent.findFirst({ where: { entityId: productId, kind: "derived.job-redeployed" } }))?.body).toBe(note);

      // The restored window holds o18: o19 joins it, o20 closes it — 2 orders (a job without the state would say 1).
      await sendOrders([
        { orderId: "o19", merchant: "m4", amount: 6, placedAt: at(70, 20) },
        { orderId: "o20", merchant: "m5", amount: 1, placedAt: at(80, 0) },
      ]);
      await waitFor(() => seen.some((r) => r.merchant === "m4"), 120_000, `m4's window at minute 70 from the redeployed job ${redeployed.jobId}`);
      expect(seen.map(normalise).filter((w) => w.merchant === "m4")).toEqual([{ merchant: "m4", window_start: Date.parse(at(70, 0)), window_end: Date.parse(at(71, 0)), orders: 2, revenue: 10 }]);
      // Each window across the restart once (read committed: what the lost job wrote after its checkpoint was aborted, and written again once).
      const windows = seen.map(normalise).filter((w) => w.window_start >= Date.parse(at(60, 0))).map((w) => `${String(w.merchant)}@${(w.window_start - t0) / 60_000}`);
      expect(windows.sort()).toEqual(["m1@60", "m4@70"]);
      deployedJob.jobId = redeployed.jobId!;
    } finally {
      await stopReading();
    }
  }, 600_000);

  it("stops the job when its domain's subscription to an input is revoked: no longer running in Flink, STOPPED with the reason in the catalog, its READ on the input taken away; retiring the product removes every grant of the job's account", async () => {
    if (!deployedJob) throw new Error("the deployment test must run first: this test stops the job it deployed");
    const { worker } = stack.running;
    const { productId, jobId, accountId, wanted } = deployedJob;
    const account = await stack.db.serviceAccount.findUniqueOrThrow({ where: { id: accountId } });
    const principal = `User:${account.name}`;
    const held = async () => aclKeys(await stack.running.cluster.describeAcls([principal]));
    expect(await held()).toEqual(aclKeys(wanted));
    const flinkState = async () => ((await (await fetch(`${flink.restUrl}/jobs/${jobId}`)).json()) as { state: string }).state;
    expect(await flinkState()).toBe("RUNNING");

    // The orders domain's owner takes the payments domain's access away.
    await revokeSubscription(stack.db, stack.people.as.ordersOwner, inputSubscription.id, { reason: "Order events move to a new contract next week." });
    const owner = await loadActor(stack.db, stack.people.as.paymentsOwner.userId);
    const job = await observeUntil(async () => {
      const j = await productJob(stack.db, owner, productId);
      return j.state === "STOPPED" ? j : null;
    }, 120_000, "the worker to stop the job");
    expect(job.stopReason).toBe(`The subscription of ${stack.people.payments.slug} to its input ${orderEvents.topicName} was revoked: Order events move to a new contract next week.`);
    expect(Date.parse(job.stoppedAt!)).toBeGreaterThan(Date.now() - 5 * 60_000);
    expect(job.error).toBeNull();
    // Flink no longer runs it (cancelled through its REST API, not left to fail on a missing ACL).
    expect(await flinkState()).toBe("CANCELED");
    const overview = (await (await fetch(`${flink.restUrl}/jobs/overview`)).json()) as { jobs: { jid: string; state: string }[] };
    expect(overview.jobs.filter((j) => j.state === "RUNNING").map((j) => j.jid)).not.toContain(jobId);
    // The job's account no longer reads the input (nor, reading nothing, its group prefix); it keeps its grants on its own product's topic.
    expect(await held()).toEqual(aclKeys(wanted.filter((b) => !(b.resourceType === "TOPIC" && b.resourceName === orderEvents.topicName) && b.resourceType !== "GROUP")));
    // Visible to the owners: the audit trail and a notification with the reason.
    const audit = await stack.db.auditEvent.findFirst({ where: { entityId: productId, action: "derivedProduct.jobStopped" } });
    expect(audit?.data).toMatchObject({ jobId, reason: job.stopReason, flinkState: "CANCELED" });
    const notification = await stack.db.notificationEvent.findFirst({ where: { entityId: productId, kind: "derived.job-stopped" } });
    expect(notification?.body).toBe(job.stopReason);
    // Later cycles leave it stopped (Flink's CANCELED does not overwrite STOPPED, nothing redeploys it).
    await worker.observeNow();
    expect(await productJob(stack.db, owner, productId)).toMatchObject({ state: "STOPPED", jobId, stopReason: job.stopReason });

    // Retirement: every grant of the job's account goes (its topic, group prefix, IDEMPOTENT_WRITE, transactional ids).
    await deprecateProduct(stack.db, stack.people.as.paymentsOwner, productId, { reason: "Replaced by a per-hour product.", sunsetAt: new Date(Date.now() + 31 * 86_400_000).toISOString() });
    await retireProduct(stack.db, stack.people.as.paymentsOwner, productId, { reason: "Nobody reads it any more." });
    await waitFor(
      async () => {
        const left = await held();
        if (left.size === 0) return true;
        // Said on a timeout: what is left, and how the retirement step went.
        const tasks = await stack.db.provisioningTask.findMany({ where: { entityId: productId }, select: { kind: true, status: true, lastError: true }, orderBy: { step: "asc" } });
        throw new Error(`${[...left].join(", ")} left; tasks ${JSON.stringify(tasks)}`);
      },
      60_000,
      `every ACL of ${principal} to be removed`,
    );
    expect((await stopReasons(stack.db, [productId])).get(productId)).toBe("The product was retired.");
  }, 300_000);

  it("reads an Avro input through the Schema Registry (avro-confluent) as the job's account, which reads the schemas of its inputs only while its domain's subscription is granted: the right windows", async () => {
    const { worker } = stack.running;
    derivedJobs();
    await waitFor(async () => (await stack.db.dataProduct.findUniqueOrThrow({ where: { id: avroOrders.id } })).status === "ACTIVE", 30_000, "the Avro input's topic to be provisioned");
    // Records as Confluent's serializer writes them: magic byte, the approved version's registry id, Avro binary.
    const version = await stack.db.schemaVersion.findFirstOrThrow({ where: { productId: avroOrders.id, status: "APPROVED" }, select: { schemaId: true, definition: true } });
    expect(version.schemaId).not.toBeNull();
    const encoded = input.map((r, i) => {
      const value = redriveValue(Buffer.from(JSON.stringify({ ...r, note: i % 2 ? `note ${i}` : null, placedAt: Date.parse(r.placedAt) })), { format: "AVRO", definition: version.definition, schemaId: version.schemaId! });
      if (!value.ok || !value.value) throw new Error(`order ${r.orderId} does not fit the Avro schema`);
      expect(value.value.subarray(0, 5)).toEqual(Buffer.from([0, 0, 0, 0, version.schemaId!]));
      return { key: r.orderId, value: value.value };
    });
    const producer = adminKafka().producer();
    await producer.connect();
    await producer.send({ topic: avroOrders.topicName, messages: encoded });
    await producer.disconnect();

    const statement = REVENUE_PER_MINUTE(avroOrders.topicName);
    const validated = await validateDerivedStatement(stack.db, stack.people.as.paymentsOwner, { domainId: stack.people.payments.id, statement }, { ...settings, registryUrl });
    expect(validated.columns.map((c) => c.name)).toEqual(["merchant", "window_start", "window_end", "orders", "revenue"]);
    const created = await registerDerivedProduct(
      stack.db,
      stack.people.as.paymentsOwner,
      {
        domainId: stack.people.payments.id,
        name: `Avro Revenue ${randomBytes(2).toString("hex")}`,
        description: "Order revenue per merchant per minute over an Avro product, deployed by the worker.",
        classification: "INTERNAL",
        freshnessSeconds: 120,
        availabilityPct: 99.5,
        partitions: 1,
        contactEmail: "owner@payments.test",
        derived: { statement },
      },
      { ...settings, registryUrl },
    );
    await submitForReview(stack.db, stack.people.as.paymentsOwner, created.id);
    await approveProduct(stack.db, stack.people.as.reviewer, created.id);
    const deployed = await deployedRow(created.id, "the worker to deploy the job over the Avro input");
    const account = await stack.db.serviceAccount.findUniqueOrThrow({ where: { id: deployed.serviceAccountId! } });

    const expected = expectedWindows();
    const { seen, stop: stopReading } = await readOutput(created.topicName);
    // A job that cannot read its input (a registry refusal fails it) restarts: said at once, with what the registry answered.
    let failure: string | null = null;
    try {
      await waitFor(async () => {
        if (seen.length >= expected.size) return true;
        const status = await derivedJobStatus(flink.restUrl, deployed.jobId!);
        if (status.state === "FAILED" || (status.restarts ?? 0) > 0) failure = `job ${deployed.jobId} ${status.state}, ${status.restarts} restarts: ${status.error}; registry answers ${JSON.stringify(registryAnswers)}`;
        return failure !== null;
      }, 120_000, `${expected.size} windows on ${created.topicName} (job ${deployed.jobId})`);
    } finally {
      await stopReading();
    }
    expect(failure).toBeNull();
    expect(seen.map(normalise).sort(byKey)).toEqual([...expected.values()].sort(byKey));
    // Flink fetched the writer's schema by id as the job's account, with its Kafka login.
    expect(registryAnswers).toContainEqual({ account: account.name, id: version.schemaId, status: 200 });

    // That account reads the schemas of its inputs only: not another product's, and not once its domain's subscription is revoked.
    const password = unsealJobPassword(worker.ctx.secretsKey, account.id, deployed.jobSecretSealed!);
    const asJob = async () => ({ kind: "serviceAccount" as const, account: await authenticateServiceAccount(stack.db, account.name, password) });
    expect(JSON.parse((await schemaById(stack.db, await asJob(), version.schemaId!)).schema)).toMatchObject({ type: "record", name: "OrderPlaced" });
    const other = await stack.db.schemaVersion.findFirstOrThrow({ where: { productId: capturedPayments.id, status: "APPROVED" }, select: { schemaId: true } });
    await expect(schemaById(stack.db, await asJob(), other.schemaId!)).rejects.toMatchObject({ status: 404, message: "Schema not found" });
    await revokeSubscription(stack.db, stack.people.as.ordersOwner, avroSubscription.id, { reason: "The Avro orders move to a new contract." });
    await expect(schemaById(stack.db, await asJob(), version.schemaId!)).rejects.toMatchObject({ status: 404, message: "Schema not found" });
  }, 300_000);
});
