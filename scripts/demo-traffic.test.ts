import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { LocalKmsDriver, SchemaRegistryClient, type Client } from "@confluentinc/schemaregistry";
import avsc from "avsc";
import kafkajs from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applySaslAdmin, configFromArgs, startBroker } from "@kappa/broker";
import { encryptRule, registryMetadata, registryRuleSet } from "../packages/catalog/src/quality/registry-rules.ts";
import { DEMO_SCHEMAS } from "../prisma/seed.ts";
import { DEMO_CONSUMER_GROUP, DEMO_NEGATIVE_TOTAL_EVERY, DEMO_TOPICS, DemoRecords, startDemoTraffic } from "./demo-traffic.ts";

/*
 * The demo traffic against the embedded broker. Order Events goes through
 * Confluent's serializer with the rules the portal's registry serves for the
 * demo product — built here by the catalog's own registryRuleSet /
 * registryMetadata / encryptRule from the seed's rule — held in the library's
 * in-memory registry (`mock://`): this suite runs no portal. Payments Captured
 * goes through the same serializer and registry (its schema, no rules), so
 * both are in the wire format Flink's avro-confluent format reads (the demo's
 * derived product, prisma/demo-derived.ts, joins them). That the portal's
 * /api/schema-registry serves exactly these rules for the seeded Order Events
 * is tested in packages/catalog/test/examples.integration.test.ts, and the
 * serializer against the real registry, DEK Registry and worker in
 * apps/portal/e2e/worker-data-contracts.spec.ts. The library's mock has no
 * shared platform KEK, so the DEK is made by the client with its local KMS
 * driver here, where the portal's registry generates it.
 */

const { Kafka, logLevel } = kafkajs;
const admin = { name: "kappa-admin", password: "demo-traffic-test" };
const SUBJECT = `${DEMO_TOPICS.orderEvents}-value`;
const DLQ = `${DEMO_TOPICS.orderEvents}.dlq`;

/** The library's in-memory registry holding Order Events as the portal serves it (the seed's rule, DLQ, and the ENCRYPT rule for PII; schema id 1), and Payments Captured (schema id 2). */
async function registryServingDemoProducts(): Promise<Client> {
  const client = SchemaRegistryClient.newClient({ baseURLs: [`mock://demo-traffic-${Date.now()}`] });
  const rule = { name: "non-negative-total", description: "An order's total is never below zero.", kind: "CEL" as const, expression: "message.totalCents >= 0", mode: "WRITE" as const, onFailure: "DLQ" as const, tags: [] };
  await client.register(SUBJECT, {
    schemaType: "AVRO",
    schema: DEMO_SCHEMAS.orderEvent,
    metadata: registryMetadata({ classification: "CONFIDENTIAL", contactEmail: "owner@orders.example", freshnessSeconds: 60, availabilityPct: 99.9, domain: { slug: "orders" } }, { format: "AVRO", definition: DEMO_SCHEMAS.orderEvent }),
    ruleSet: registryRuleSet(DEMO_TOPICS.orderEvents, [rule], encryptRule("kappa-orders", "local-kms", "kappa/orders")),
  } as Parameters<Client["register"]>[1], false);
  await client.register(`${DEMO_TOPICS.paymentsCaptured}-value`, { schemaType: "AVRO", schema: DEMO_SCHEMAS.payment }, false);
  return client;
}

describe("demo records", () => {
  it("are valid under the demo products' schemas, and exactly one order in DEMO_NEGATIVE_TOTAL_EVERY has a negative total", () => {
    const records = new DemoRecords();
    const orderType = avsc.Type.forSchema(JSON.parse(DEMO_SCHEMAS.orderEvent) as avsc.Schema);
    const paymentType = avsc.Type.forSchema(JSON.parse(DEMO_SCHEMAS.payment) as avsc.Schema);
    const negative: number[] = [];
    for (let i = 1; i <= 4 * DEMO_NEGATIVE_TOTAL_EVERY; i++) {
      const order = records.nextOrder();
      expect(orderType.isValid(order.record), JSON.stringify(order.record)).toBe(true);
      expect(order.record.orderId).toBe(order.key);
      if (order.record.totalCents < 0) negative.push(i);
      else {
        // Captured at once: the demo's derived product joins a payment with its order when captured within a minute of it.
        const payment = records.paymentFor(order.order);
        expect(paymentType.isValid(payment.record), JSON.stringify(payment.record)).toBe(true);
        expect(payment).toMatchObject({ key: order.key, record: { orderId: order.key, amountCents: order.record.totalCents } });
        expect(payment.record.capturedAt - order.record.placedAt).toBeGreaterThanOrEqual(0);
        expect(payment.record.capturedAt - order.record.placedAt).toBeLessThan(60_000);
      }
      const status = records.nextStatus();
      expect(status).not.toBeNull();
      const json = JSON.parse(status!.value.toString()) as { orderId: string; status: string };
      expect(json.orderId).toBe(status!.key);
      expect(["PLACED", "PAID", "SHIPPED", "DELIVERED"]).toContain(json.status);
    }
    expect(DEMO_NEGATIVE_TOTAL_EVERY).toBe(50);
    expect(negative).toEqual([50, 100, 150, 200]);
  });

  it("never give a dead-lettered order a status", () => {
    const records = new DemoRecords(Date.now, 2);
    const rejected = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const order = records.nextOrder();
      if (order.record.totalCents < 0) rejected.add(order.key);
      const status = records.nextStatus();
      if (status) expect(rejected.has(status.key)).toBe(false);
    }
    expect(rejected.size).toBe(20);
  });
});

describe("demo traffic against the embedded broker", () => {
  let dir: string;
  let broker: Awaited<ReturnType<typeof startBroker>>;
  let kafka: InstanceType<typeof Kafka>;
  const previousSecret = process.env.LOCAL_SECRET;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "kappa-demo-traffic-"));
    const config = applySaslAdmin(configFromArgs(["--host", "127.0.0.1", "--port", "0", "--data-dir", dir, "--override", "auto.create.topics.enable=false"]), admin);
    broker = await startBroker({ ...config, saslUsers: [admin], logger: { debug() {}, info() {}, warn() {}, error() {} } });
    kafka = new Kafka({ clientId: "demo-traffic-test", brokers: [broker.bootstrap], sasl: { mechanism: "scram-sha-512", username: admin.name, password: admin.password }, logLevel: logLevel.NOTHING });
    // The client-made DEK of the mock registry is wrapped with the library's local KMS driver (see the file comment).
    LocalKmsDriver.register();
    process.env.LOCAL_SECRET = "demo-traffic-test-kms-secret";
  });

  afterAll(async () => {
    if (previousSecret === undefined) delete process.env.LOCAL_SECRET;
    else process.env.LOCAL_SECRET = previousSecret;
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes Order Events (customerId encrypted, negative totals to <topic>.dlq with the rule's name) and Payments Captured through the serializer, decodable records to Order Status, and its consumer lags behind the end", async () => {
    const log: string[] = [];
    // The admin stands in for the producer accounts: the embedded broker here has no catalog and no ACLs to grant.
    const registry = await registryServingDemoProducts();
    const traffic = await startDemoTraffic({
      brokers: [broker.bootstrap],
      username: admin.name,
      password: admin.password,
      orderEvents: { registry, username: admin.name, password: admin.password },
      paymentsCaptured: { registry, username: admin.name, password: admin.password },
      ratePerSecond: 40,
      consumerDelayMs: 1_500,
      log: (line) => log.push(line),
    });
    const a = kafka.admin();
    await a.connect();
    try {
      // As on a first start: the topics appear only after the traffic has started (the worker creates them).
      await new Promise((r) => setTimeout(r, 1_500));
      await a.createTopics({ topics: [...Object.values(DEMO_TOPICS), DLQ].map((topic) => ({ topic, numPartitions: 2 })) });
      // The consumer commits what it has processed; it stays behind the producer.
      let lag = 0;
      let committed = 0;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        const ends = await a.fetchTopicOffsets(DEMO_TOPICS.orderEvents);
        const [group] = await a.fetchOffsets({ groupId: DEMO_CONSUMER_GROUP, topics: [DEMO_TOPICS.orderEvents] });
        const offsets = new Map(group!.partitions.map((p) => [p.partition, Number(p.offset)]));
        committed = [...offsets.values()].filter((o) => o >= 0).reduce((x, y) => x + y, 0);
        lag = ends.reduce((sum, p) => sum + Number(p.high) - Math.max(0, offsets.get(p.partition) ?? 0), 0);
        if (committed > 0 && lag > 0 && traffic.deadLettered() >= 2 && traffic.produced() > 120) break;
      }
      expect(committed).toBeGreaterThan(0);
      expect(lag).toBeGreaterThan(0);
      expect(traffic.deadLettered()).toBeGreaterThanOrEqual(2);
    } finally {
      await a.disconnect();
      await traffic.stop();
    }
    expect(log[0]).toContain("Order Events through the registry's serializer");
    expect(log[0]).toContain("Payments Captured through it");

    // Every record decodes with its product's schema; Order Events, its dead letters and Payments Captured are in the
    // registry's wire format (magic byte 0, the schema id) — customerId encrypted, nowhere in clear — and the dead
    // letters carry the failed rule and a negative total, the product topic none; each payment is for an order
    // written to the product topic, for its total, captured within a minute of it.
    const reader = kafka.consumer({ groupId: "demo-traffic-test-reader" });
    const orderType = avsc.Type.forSchema(JSON.parse(DEMO_SCHEMAS.orderEvent) as avsc.Schema);
    const paymentType = avsc.Type.forSchema(JSON.parse(DEMO_SCHEMAS.payment) as avsc.Schema);
    const seen = new Map<string, number>();
    const problems: string[] = [];
    const placed = new Map<string, { totalCents: number; placedAt: number }>();
    const paid: { orderId: string; amountCents: number; capturedAt: number }[] = [];
    const orderOf = (topic: string, value: Buffer, key: string, rule: string | undefined) => {
      if (value[0] !== 0 || value.readUInt32BE(1) !== 1) problems.push(`${topic}: not in the wire format with schema id 1`);
      const order = orderType.fromBuffer(value.subarray(5)) as { orderId: string; customerId: string; totalCents: number; placedAt: number };
      if (order.orderId !== key) problems.push(`${topic}: key ${key} for ${order.orderId}`);
      if (value.includes("cust-") || order.customerId.startsWith("cust-")) problems.push(`${topic}: customerId in clear`);
      if (Buffer.from(order.customerId, "base64").length <= "cust-1".length) problems.push(`${topic}: customerId is no ciphertext`);
      if (topic === DLQ && (order.totalCents >= 0 || rule !== "non-negative-total")) problems.push(`${DLQ}: total ${order.totalCents}, rule ${rule}`);
      if (topic === DEMO_TOPICS.orderEvents && order.totalCents < 0) problems.push(`${topic}: negative total ${order.totalCents}`);
      if (topic === DEMO_TOPICS.orderEvents) placed.set(order.orderId, { totalCents: order.totalCents, placedAt: Number(order.placedAt) });
    };
    const paymentOf = (value: Buffer, key: string) => {
      if (value[0] !== 0 || value.readUInt32BE(1) !== 2) problems.push(`${DEMO_TOPICS.paymentsCaptured}: not in the wire format with schema id 2`);
      const payment = paymentType.fromBuffer(value.subarray(5)) as { orderId: string; amountCents: number; capturedAt: Date | number };
      if (payment.orderId !== key) problems.push(`${DEMO_TOPICS.paymentsCaptured}: key ${key} for ${payment.orderId}`);
      paid.push({ orderId: payment.orderId, amountCents: payment.amountCents, capturedAt: Number(payment.capturedAt) });
    };
    // All of it (the traffic has stopped): every topic to its end.
    const topics = [...Object.values(DEMO_TOPICS), DLQ];
    const ends = kafka.admin();
    await ends.connect();
    const total = new Map<string, number>();
    try {
      for (const t of topics) total.set(t, (await ends.fetchTopicOffsets(t)).reduce((sum, p) => sum + Number(p.high), 0));
    } finally {
      await ends.disconnect();
    }
    expect(Object.fromEntries([...total].map(([t, n]) => [t, n >= (t === DLQ ? 2 : 5)]))).toEqual(Object.fromEntries(topics.map((t) => [t, true])));
    await reader.connect();
    await reader.subscribe({ topics, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timeout = setTimeout(() => reject(new Error(`read only ${JSON.stringify([...seen])} of ${JSON.stringify([...total])}`)), 30_000);
      void reader.run({
        eachMessage: async ({ topic, message }) => {
          const value = message.value!;
          const key = message.key!.toString();
          if (topic === DEMO_TOPICS.orderEvents || topic === DLQ) orderOf(topic, value, key, message.headers?.["__rule.name"]?.toString());
          else if (topic === DEMO_TOPICS.paymentsCaptured) paymentOf(value, key);
          else expect(JSON.parse(value.toString())).toHaveProperty("orderId", key);
          seen.set(topic, (seen.get(topic) ?? 0) + 1);
          if (topics.every((t) => (seen.get(t) ?? 0) >= total.get(t)!)) {
            clearTimeout(timeout);
            resolve();
          }
        },
      });
    });
    await reader.disconnect();
    expect(problems).toEqual([]);
    // Each payment matches an order on the product topic.
    expect(paid.length).toBe(total.get(DEMO_TOPICS.paymentsCaptured));
    for (const p of paid) {
      const order = placed.get(p.orderId);
      expect(order, `the order of payment ${p.orderId}`).toBeDefined();
      expect(p.amountCents).toBe(order!.totalCents);
      expect(p.capturedAt - order!.placedAt).toBeGreaterThanOrEqual(0);
      expect(p.capturedAt - order!.placedAt).toBeLessThan(60_000);
    }
  }, 120_000);
});
