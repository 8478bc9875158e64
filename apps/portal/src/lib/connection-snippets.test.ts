import { describe, expect, it } from "vitest";
import {
  groupIdFor,
  javaProducerSnippet,
  javaSnippet,
  kcatCommand,
  kcatProduceCommand,
  platformaticProducerSnippet,
  platformaticSnippet,
  pythonProducerSnippet,
  pythonSnippet,
  shellQuote,
  SNIPPET_CLIENTS,
} from "./connection-snippets";

const settings = { bootstrap: "127.0.0.1:9092", mechanism: "SCRAM-SHA-512" as const, username: "payments-reconciliation", topic: "orders.order-events.v1", groupPrefix: "payments-reconciliation." };
const producer = { bootstrap: "127.0.0.1:9092", mechanism: "SCRAM-SHA-512" as const, username: "orders-producer", topic: "orders.order-events.v1" };
const registry = { url: "http://localhost:3000/api/schema-registry" };
const producerRegistry = { ...registry, subject: "orders.order-events.v1-value", format: "AVRO" as const, example: '{\n  orderId: "example",\n}' };

function all(): string[] {
  return [
    platformaticSnippet(settings),
    platformaticSnippet(settings, registry),
    javaSnippet(settings),
    javaSnippet(settings, registry),
    pythonSnippet(settings),
    pythonSnippet(settings, registry),
    kcatCommand(settings),
    platformaticProducerSnippet(producer),
    platformaticProducerSnippet(producer, producerRegistry),
    javaProducerSnippet(producer),
    javaProducerSnippet(producer, producerRegistry),
    pythonProducerSnippet(producer),
    pythonProducerSnippet(producer, producerRegistry),
    kcatProduceCommand(producer),
    kcatProduceCommand(producer, producerRegistry),
  ];
}

describe("connection snippets", () => {
  it("never hand out kafkajs (it loses acknowledged writes at leader failover, issue 35) and never contain a password", () => {
    for (const code of all()) {
      expect(code).not.toMatch(/from "kafkajs"|require\("kafkajs"\)|new Kafka\(/);
      expect(code).toContain("KAFKA_PASSWORD");
    }
  });

  it("name the minimum version of each client: @platformatic/kafka 1.35.0, kafka-clients 3.0, librdkafka 2.6.1", () => {
    expect(SNIPPET_CLIENTS).toEqual({
      javascript: { name: "@platformatic/kafka", minimum: "1.35.0" },
      java: { name: "org.apache.kafka:kafka-clients", minimum: "3.0" },
      librdkafka: { name: "librdkafka", minimum: "2.6.1" },
    });
    for (const code of [platformaticSnippet(settings), platformaticProducerSnippet(producer)]) expect(code.split("\n")[0]).toBe("// npm install @platformatic/kafka@^1.35.0 (Node.js 20.19 or later)");
    for (const code of [javaSnippet(settings), javaProducerSnippet(producer)]) expect(code.split("\n")[0]).toBe("// org.apache.kafka:kafka-clients 3.0 or later (tested with 4.1.2)");
    for (const code of [pythonSnippet(settings), pythonProducerSnippet(producer)]) expect(code.split("\n")[0]).toBe(`# pip install "confluent-kafka>=2.6.1"  (librdkafka 2.6.1 or later)`);
    for (const code of [kcatCommand(settings), kcatProduceCommand(producer), kcatProduceCommand(producer, producerRegistry)]) expect(code.split("\n")[0]).toBe("# kcat built with librdkafka 2.6.1 or later (kcat -V shows it)");
  });

  it("JavaScript consumer: bootstrap, SCRAM-SHA-512, user, topic and a group inside the account's prefix; commits after processing", () => {
    const code = platformaticSnippet({ ...settings, bootstrap: "k1:9092, k2:9092" });
    expect(code).toContain(`import { Consumer } from "@platformatic/kafka";`);
    expect(code).toContain(`bootstrapBrokers: ["k1:9092", "k2:9092"]`);
    expect(code).toContain(`mechanism: "SCRAM-SHA-512"`);
    expect(code).toContain(`username: "payments-reconciliation"`);
    expect(code).toContain(`password: process.env.KAFKA_PASSWORD`);
    expect(code).toContain(`groupId: "payments-reconciliation.my-app"`);
    expect(code).toContain(`topics: ["orders.order-events.v1"]`);
    expect(code).toContain("autocommit: false");
    expect(code.indexOf("console.log")).toBeLessThan(code.indexOf("await message.commit()"));
  });

  it("Java and Python consumers: the same settings, manual commits after processing", () => {
    const java = javaSnippet(settings);
    expect(java).toContain(`props.put("bootstrap.servers", "127.0.0.1:9092");`);
    expect(java).toContain(`props.put("sasl.mechanism", "SCRAM-SHA-512");`);
    expect(java).toContain(`ScramLoginModule required username=\\"payments-reconciliation\\" password=\\"" + System.getenv("KAFKA_PASSWORD") + "\\";`);
    expect(java).toContain(`props.put("group.id", "payments-reconciliation.my-app");`);
    expect(java).toContain(`props.put("enable.auto.commit", "false");`);
    expect(java).toContain(`consumer.subscribe(List.of("orders.order-events.v1"));`);
    const python = pythonSnippet(settings);
    expect(python).toContain(`"sasl.mechanisms": "SCRAM-SHA-512",`);
    expect(python).toContain(`"sasl.username": "payments-reconciliation",`);
    expect(python).toContain(`"sasl.password": os.environ["KAFKA_PASSWORD"],`);
    expect(python).toContain(`"group.id": "payments-reconciliation.my-app",`);
    expect(python).toContain(`"enable.auto.commit": False,`);
    expect(python).toContain(`consumer.subscribe(["orders.order-events.v1"])`);
  });

  it("kcat: one consumer command with the same settings", () => {
    const cmd = kcatCommand(settings);
    expect(cmd).toContain("kcat -C -b 127.0.0.1:9092");
    expect(cmd).toContain("-X sasl.mechanisms=SCRAM-SHA-512");
    expect(cmd).toContain("-X sasl.username=payments-reconciliation");
    expect(cmd).toContain(`-X sasl.password="$KAFKA_PASSWORD"`);
    expect(cmd).toContain("-G payments-reconciliation.my-app orders.order-events.v1");
    // SCRAM against Kafka 4.x needs librdkafka 2.6.1 or later: the snippet says so.
    expect(cmd.split("\n")[0]).toBe("# kcat built with librdkafka 2.6.1 or later (kcat -V shows it)");
    expect(groupIdFor(settings, "billing")).toBe("payments-reconciliation.billing");
  });

  it("quotes shell words that are not plainly safe", () => {
    expect(shellQuote("a.b-c:9092")).toBe("a.b-c:9092");
    expect(shellQuote("it's here")).toBe(`'it'\\''s here'`);
  });

  it("producers: idempotent with acks=all in every client, for the product's topic", () => {
    const js = platformaticProducerSnippet(producer);
    expect(js).toContain(`import { Producer, stringSerializers } from "@platformatic/kafka";`);
    expect(js).toContain(`username: "orders-producer",`);
    expect(js).toContain(`password: process.env.KAFKA_PASSWORD`);
    expect(js).toContain("idempotent: true,");
    expect(js).toContain("acks: -1,");
    expect(js).toContain(`topic: "orders.order-events.v1"`);
    const java = javaProducerSnippet(producer);
    expect(java).toContain(`props.put("enable.idempotence", "true");`);
    expect(java).toContain(`props.put("acks", "all");`);
    expect(java).toContain(`new ProducerRecord<>("orders.order-events.v1", "id-1", "{\\"example\\":true}")).get();`);
    const python = pythonProducerSnippet(producer);
    expect(python).toContain(`"enable.idempotence": True,`);
    expect(python).toContain(`"acks": "all",`);
    expect(python).toContain(`producer.produce("orders.order-events.v1", key="id-1"`);
    expect(python).toContain("producer.flush()");
    const cmd = kcatProduceCommand(producer);
    expect(cmd).toContain("kcat -P -b 127.0.0.1:9092");
    expect(cmd).toContain("librdkafka 2.6.1 or later");
    expect(cmd).toContain("-X sasl.username=orders-producer");
    expect(cmd).toContain("-t orders.order-events.v1");
  });

  it("with the registry: consumers decode by schema id, producers encode with the latest approved schema, kcat only checks access", () => {
    const consumer = platformaticSnippet(settings, registry);
    expect(consumer).toContain(`import { SchemaRegistry } from "@kafkajs/confluent-schema-registry";`);
    expect(consumer).toContain(`host: "http://localhost:3000/api/schema-registry",`);
    expect(consumer).toContain(`auth: { username: "payments-reconciliation", password: process.env.KAFKA_PASSWORD },`);
    expect(consumer).toContain("await registry.decode(message.value)");
    expect(javaSnippet(settings, registry)).toContain(`props.put("value.deserializer", "io.confluent.kafka.serializers.KafkaAvroDeserializer");`);
    expect(pythonSnippet(settings, registry)).toContain("decode = AvroDeserializer(registry)");

    const code = platformaticProducerSnippet(producer, producerRegistry);
    expect(code).toContain(`await registry.getLatestSchemaId("orders.order-events.v1-value")`);
    expect(code).toContain('const record = {\n  orderId: "example",\n};');
    expect(code).toContain("value: await registry.encode(schemaId, record)");
    expect(code).not.toContain('{"example":true}');
    const java = javaProducerSnippet(producer, producerRegistry);
    expect(java).toContain(`props.put("use.latest.version", "true");`);
    expect(java).toContain(`props.put("value.serializer", "io.confluent.kafka.serializers.KafkaAvroSerializer");`);
    expect(javaProducerSnippet(producer, { ...producerRegistry, format: "JSON_SCHEMA" })).toContain("KafkaJsonSchemaSerializer");
    const python = pythonProducerSnippet(producer, producerRegistry);
    expect(python).toContain(`encode = AvroSerializer(registry, None, conf={"auto.register.schemas": False, "use.latest.version": True})`);
    const cmd = kcatProduceCommand(producer, producerRegistry);
    expect(cmd).toContain("kcat -L -b 127.0.0.1:9092");
    expect(cmd).not.toContain("kcat -P");
  });
});
