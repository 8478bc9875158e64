import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import avsc from "avsc";
import kafkajs from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applySaslAdmin, configFromArgs, startBroker } from "@kappa/broker";
import { DEMO_SCHEMAS } from "../prisma/seed.ts";
import { DEMO_CONSUMER_GROUP, DEMO_TOPICS, DemoRecords, startDemoTraffic } from "./demo-traffic.ts";

const { Kafka, logLevel } = kafkajs;
const admin = { name: "kappa-admin", password: "demo-traffic-test" };

describe("demo records", () => {
  it("are valid under the demo products' schemas", () => {
    const records = new DemoRecords();
    const orderType = avsc.Type.forSchema(JSON.parse(DEMO_SCHEMAS.orderEvent) as avsc.Schema);
    const paymentType = avsc.Type.forSchema(JSON.parse(DEMO_SCHEMAS.payment) as avsc.Schema);
    for (let i = 0; i < 50; i++) {
      const order = records.nextOrder();
      const decoded = orderType.fromBuffer(order.value) as { orderId: string; totalCents: number };
      expect(decoded.orderId).toBe(order.key);
      expect(paymentType.fromBuffer(records.paymentFor(order.order).value)).toMatchObject({ orderId: order.key, amountCents: decoded.totalCents });
      const status = records.nextStatus();
      expect(status).not.toBeNull();
      const json = JSON.parse(status!.value.toString()) as { orderId: string; status: string };
      expect(json.orderId).toBe(status!.key);
      expect(["PLACED", "PAID", "SHIPPED", "DELIVERED"]).toContain(json.status);
    }
  });
});

describe("demo traffic against the embedded broker", () => {
  let dir: string;
  let broker: Awaited<ReturnType<typeof startBroker>>;
  let kafka: InstanceType<typeof Kafka>;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "kappa-demo-traffic-"));
    const config = applySaslAdmin(configFromArgs(["--host", "127.0.0.1", "--port", "0", "--data-dir", dir, "--override", "auto.create.topics.enable=false"]), admin);
    broker = await startBroker({ ...config, saslUsers: [admin], logger: { debug() {}, info() {}, warn() {}, error() {} } });
    kafka = new Kafka({ clientId: "demo-traffic-test", brokers: [broker.bootstrap], sasl: { mechanism: "scram-sha-512", username: admin.name, password: admin.password }, logLevel: logLevel.NOTHING });
  });

  afterAll(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes decodable records to every demo topic and its consumer lags behind the end", async () => {
    const traffic = await startDemoTraffic({ brokers: [broker.bootstrap], username: admin.name, password: admin.password, ratePerSecond: 20, consumerDelayMs: 1_500 });
    const a = kafka.admin();
    await a.connect();
    try {
      // As on a first start: the topics appear only after the traffic has started (the worker creates them).
      await new Promise((r) => setTimeout(r, 1_500));
      await a.createTopics({ topics: Object.values(DEMO_TOPICS).map((topic) => ({ topic, numPartitions: 2 })) });
      // The consumer commits what it has processed; it stays behind the producer.
      let lag = 0;
      let committed = 0;
      const deadline = Date.now() + 45_000;
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        const ends = await a.fetchTopicOffsets(DEMO_TOPICS.orderEvents);
        const [group] = await a.fetchOffsets({ groupId: DEMO_CONSUMER_GROUP, topics: [DEMO_TOPICS.orderEvents] });
        const offsets = new Map(group!.partitions.map((p) => [p.partition, Number(p.offset)]));
        committed = [...offsets.values()].filter((o) => o >= 0).reduce((x, y) => x + y, 0);
        lag = ends.reduce((sum, p) => sum + Number(p.high) - Math.max(0, offsets.get(p.partition) ?? 0), 0);
        if (committed > 0 && lag > 0 && traffic.produced() > 60) break;
      }
      expect(committed).toBeGreaterThan(0);
      expect(lag).toBeGreaterThan(0);
    } finally {
      await a.disconnect();
      await traffic.stop();
    }

    // Every record on the topics decodes with the product's schema.
    const reader = kafka.consumer({ groupId: "demo-traffic-test-reader" });
    const orderType = avsc.Type.forSchema(JSON.parse(DEMO_SCHEMAS.orderEvent) as avsc.Schema);
    const paymentType = avsc.Type.forSchema(JSON.parse(DEMO_SCHEMAS.payment) as avsc.Schema);
    const seen = new Map<string, number>();
    await reader.connect();
    await reader.subscribe({ topics: Object.values(DEMO_TOPICS), fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timeout = setTimeout(() => reject(new Error(`read only ${JSON.stringify([...seen])}`)), 30_000);
      void reader.run({
        eachMessage: async ({ topic, message }) => {
          const value = message.value!;
          if (topic === DEMO_TOPICS.orderEvents) expect(orderType.fromBuffer(value)).toHaveProperty("orderId", message.key!.toString());
          else if (topic === DEMO_TOPICS.paymentsCaptured) expect(paymentType.fromBuffer(value)).toHaveProperty("orderId", message.key!.toString());
          else expect(JSON.parse(value.toString())).toHaveProperty("orderId", message.key!.toString());
          seen.set(topic, (seen.get(topic) ?? 0) + 1);
          if (Object.values(DEMO_TOPICS).every((t) => (seen.get(t) ?? 0) >= 5)) {
            clearTimeout(timeout);
            resolve();
          }
        },
      });
    });
    await reader.disconnect();
  }, 90_000);
});
