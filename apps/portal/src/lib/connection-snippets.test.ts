import { describe, expect, it } from "vitest";
import { groupIdFor, kafkajsProducerSnippet, kafkajsSnippet, kcatCommand, kcatProduceCommand, shellQuote } from "./connection-snippets";

const settings = { bootstrap: "127.0.0.1:9092", mechanism: "SCRAM-SHA-512" as const, username: "payments-reconciliation", topic: "orders.order-events.v1", groupPrefix: "payments-reconciliation." };

describe("connection snippets", () => {
  it("kafkajs: bootstrap, SCRAM-SHA-512, user, topic and a group inside the account's prefix; password from the environment", () => {
    const code = kafkajsSnippet({ ...settings, bootstrap: "k1:9092, k2:9092" });
    expect(code).toContain(`brokers: ["k1:9092", "k2:9092"]`);
    expect(code).toContain(`mechanism: "scram-sha-512"`);
    expect(code).toContain(`username: "payments-reconciliation"`);
    expect(code).toContain(`password: process.env.KAFKA_PASSWORD`);
    expect(code).toContain(`groupId: "payments-reconciliation.my-app"`);
    expect(code).toContain(`topics: ["orders.order-events.v1"]`);
  });

  it("kcat: one consumer command with the same settings", () => {
    const cmd = kcatCommand(settings);
    expect(cmd).toContain("kcat -C -b 127.0.0.1:9092");
    expect(cmd).toContain("-X sasl.mechanisms=SCRAM-SHA-512");
    expect(cmd).toContain("-X sasl.username=payments-reconciliation");
    expect(cmd).toContain(`-X sasl.password="$KAFKA_PASSWORD"`);
    expect(cmd).toContain("-G payments-reconciliation.my-app orders.order-events.v1");
    // SCRAM against Kafka 4.x needs librdkafka 2.6.1 or later: the snippet says so.
    expect(cmd.split("\n")[0]).toBe("# Needs kcat built on librdkafka >= 2.6.1 for SCRAM on Kafka 4.x (check: kcat -V).");
    expect(groupIdFor(settings, "billing")).toBe("payments-reconciliation.billing");
  });

  it("quotes shell words that are not plainly safe", () => {
    expect(shellQuote("a.b-c:9092")).toBe("a.b-c:9092");
    expect(shellQuote("it's here")).toBe(`'it'\\''s here'`);
  });

  it("producer: idempotent kafkajs producer and a kcat -P command for the product's topic", () => {
    const producer = { bootstrap: "127.0.0.1:9092", mechanism: "SCRAM-SHA-512" as const, username: "orders-producer", topic: "orders.order-events.v1" };
    const code = kafkajsProducerSnippet(producer);
    expect(code).toContain(`username: "orders-producer",`);
    expect(code).toContain(`password: process.env.KAFKA_PASSWORD`);
    expect(code).toContain("idempotent: true");
    expect(code).toContain(`topic: "orders.order-events.v1"`);
    const cmd = kcatProduceCommand(producer);
    expect(cmd).toContain("kcat -P -b 127.0.0.1:9092");
    expect(cmd).toContain("librdkafka >= 2.6.1");
    expect(cmd).toContain("-X sasl.username=orders-producer");
    expect(cmd).toContain("-t orders.order-events.v1");
  });

  it("with the registry: the consumer decodes by schema id, the producer encodes with the latest approved id, kcat only checks access", () => {
    const registry = { url: "http://localhost:3000/api/schema-registry" };
    const consumer = kafkajsSnippet(settings, registry);
    expect(consumer).toContain(`import { SchemaRegistry } from "@kafkajs/confluent-schema-registry";`);
    expect(consumer).toContain(`host: "http://localhost:3000/api/schema-registry",`);
    expect(consumer).toContain(`auth: { username: "payments-reconciliation", password: process.env.KAFKA_PASSWORD },`);
    expect(consumer).toContain("await registry.decode(message.value)");

    const producer = { bootstrap: "127.0.0.1:9092", mechanism: "SCRAM-SHA-512" as const, username: "orders-producer", topic: "orders.order-events.v1" };
    const withRegistry = { ...registry, subject: "orders.order-events.v1-value", format: "AVRO" as const, example: '{\n  orderId: "example",\n}' };
    const code = kafkajsProducerSnippet(producer, withRegistry);
    expect(code).toContain(`await registry.getLatestSchemaId("orders.order-events.v1-value")`);
    expect(code).toContain('const record = {\n  orderId: "example",\n};');
    expect(code).toContain("value: await registry.encode(schemaId, record)");
    expect(code).not.toContain('{"example":true}');
    const cmd = kcatProduceCommand(producer, withRegistry);
    expect(cmd).toContain("kcat -L -b 127.0.0.1:9092");
    expect(cmd).not.toContain("kcat -P");
  });
});
