/*
 * Copy-paste connection snippets for a subscriber. They never contain the
 * password: it is read from KAFKA_PASSWORD, so a snippet can be pasted into a
 * ticket or a repository without leaking the secret.
 */

export interface ConnectionSettings {
  bootstrap: string;
  mechanism: "SCRAM-SHA-512";
  username: string;
  topic: string;
  /** The account may only use consumer groups under this prefix (`<account>.`). */
  groupPrefix: string;
}

/**
 * The portal's Schema-Registry-compatible API, for the registry serializer
 * (@kafkajs/confluent-schema-registry for JavaScript, Confluent's serializers for
 * Java and Python): records carry the magic byte and the
 * schema id, and consumers decode them with the writer's schema.
 */
export interface RegistrySettings {
  /** e.g. https://kappa.example.com/api/schema-registry */
  url: string;
}

export interface ProducerRegistrySettings extends RegistrySettings {
  /** `<topic>-value` (TopicNameStrategy). */
  subject: string;
  format: "AVRO" | "JSON_SCHEMA";
  /** A record of the current schema, as JavaScript source. */
  example: string;
}

function registryLines(r: RegistrySettings, username: string): string[] {
  return [
    `// The registry is the portal's; it takes the same Kafka user name and password.`,
    `const registry = new SchemaRegistry({`,
    `  host: ${JSON.stringify(r.url)},`,
    `  auth: { username: ${JSON.stringify(username)}, password: process.env.KAFKA_PASSWORD },`,
    `});`,
    ``,
  ];
}

/** A group id inside the account's prefix; the suffix names the application. */
export function groupIdFor(settings: ConnectionSettings, app = "my-app"): string {
  return `${settings.groupPrefix}${app}`;
}

/** Single-quotes a shell word unless it is plainly safe. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_.,:/=@+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The clients the snippets hand out, with the versions that keep every
 * acknowledged write through a partition leader's failover (issue 35; the
 * platform's failover test and `npm run bench:failover`). kafkajs 2.2.4, its
 * last release, loses acknowledged records there and is not offered.
 */
export const SNIPPET_CLIENTS = {
  javascript: { name: "@platformatic/kafka", minimum: "1.35.0" },
  java: { name: "org.apache.kafka:kafka-clients", minimum: "3.0" },
  /** kcat and Confluent's clients (confluent-kafka for Python, Go, .NET) run on librdkafka; 2.6.1 is also what SCRAM with Kafka 4.x needs. */
  librdkafka: { name: "librdkafka", minimum: "2.6.1" },
} as const;

/** The @platformatic/kafka connection options both JavaScript snippets use; the password stays in the environment. */
function jsConnectionLines(s: Pick<ConnectionSettings, "bootstrap" | "username" | "mechanism">): string[] {
  const brokers = s.bootstrap.split(",").map((b) => JSON.stringify(b.trim()));
  return [
    `  clientId: ${JSON.stringify(s.username)},`,
    `  bootstrapBrokers: [${brokers.join(", ")}],`,
    `  // tls: {}, // when the cluster listens with TLS (SASL_SSL)`,
    `  sasl: {`,
    `    mechanism: ${JSON.stringify(s.mechanism)},`,
    `    username: ${JSON.stringify(s.username)},`,
    `    password: process.env.KAFKA_PASSWORD,`,
    `  },`,
  ];
}

const JS_VERSION_LINE = `// npm install @platformatic/kafka@^${SNIPPET_CLIENTS.javascript.minimum} (Node.js 20.19 or later)`;

/** A subscriber's consumer: @platformatic/kafka, committing each record after it was processed. */
export function platformaticSnippet(s: ConnectionSettings, registry?: RegistrySettings): string {
  return [
    JS_VERSION_LINE,
    `import { Consumer } from "@platformatic/kafka";`,
    ...(registry ? [`import { SchemaRegistry } from "@kafkajs/confluent-schema-registry";`] : []),
    ``,
    ...(registry ? registryLines(registry, s.username) : []),
    `// Consumer groups must start with ${JSON.stringify(s.groupPrefix)}.`,
    `const consumer = new Consumer({`,
    `  groupId: ${JSON.stringify(groupIdFor(s))},`,
    ...jsConnectionLines(s),
    `});`,
    `const stream = await consumer.consume({`,
    `  topics: [${JSON.stringify(s.topic)}],`,
    `  mode: "committed",`,
    `  fallbackMode: "earliest",`,
    `  autocommit: false,`,
    `});`,
    `for await (const message of stream) {`,
    ...(registry
      ? [
          `  // Magic byte + schema id, then the record: decoded with the schema it was written with.`,
          `  const value = message.value ? await registry.decode(message.value) : null;`,
          `  console.log(message.partition, message.offset, value);`,
        ]
      : [`  console.log(message.partition, message.offset, message.value?.length);`]),
    `  // Commit only what was processed.`,
    `  await message.commit();`,
    `}`,
  ].join("\n");
}

function javaProperties(s: Pick<ConnectionSettings, "bootstrap" | "username" | "mechanism">): string[] {
  return [
    `Properties props = new Properties();`,
    `props.put("bootstrap.servers", ${JSON.stringify(s.bootstrap)});`,
    `props.put("security.protocol", "SASL_PLAINTEXT"); // SASL_SSL when the cluster listens with TLS`,
    `props.put("sasl.mechanism", ${JSON.stringify(s.mechanism)});`,
    `props.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\\"${s.username.replace(/["\\]/g, "")}\\" password=\\"" + System.getenv("KAFKA_PASSWORD") + "\\";");`,
  ];
}

function javaRegistryProperties(r: RegistrySettings, username: string): string[] {
  return [
    `// The registry is the portal's; it takes the same Kafka user name and password.`,
    `props.put("schema.registry.url", ${JSON.stringify(r.url)});`,
    `props.put("basic.auth.credentials.source", "USER_INFO");`,
    `props.put("basic.auth.user.info", ${JSON.stringify(`${username}:`)} + System.getenv("KAFKA_PASSWORD"));`,
  ];
}

const JAVA_VERSION_LINE = `// ${SNIPPET_CLIENTS.java.name} ${SNIPPET_CLIENTS.java.minimum} or later (tested with 4.1.2)`;

/** A subscriber's consumer: Kafka's Java client, committing after each processed batch. */
export function javaSnippet(s: ConnectionSettings, registry?: RegistrySettings): string {
  return [
    JAVA_VERSION_LINE,
    ...(registry ? [`// with io.confluent:kafka-avro-serializer (Avro) or kafka-json-schema-serializer (JSON Schema)`] : []),
    ...javaProperties(s),
    `// Consumer groups must start with ${JSON.stringify(s.groupPrefix)}.`,
    `props.put("group.id", ${JSON.stringify(groupIdFor(s))});`,
    `props.put("auto.offset.reset", "earliest");`,
    `props.put("enable.auto.commit", "false");`,
    `props.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");`,
    ...(registry
      ? [...javaRegistryProperties(registry, s.username), `props.put("value.deserializer", "io.confluent.kafka.serializers.KafkaAvroDeserializer");`]
      : [`props.put("value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");`]),
    ``,
    `try (var consumer = new KafkaConsumer<String, Object>(props)) {`,
    `  consumer.subscribe(List.of(${JSON.stringify(s.topic)}));`,
    `  while (true) {`,
    `    for (var record : consumer.poll(Duration.ofSeconds(1))) {`,
    `      System.out.println(record.partition() + " " + record.offset() + " " + record.value());`,
    `    }`,
    `    consumer.commitSync(); // only what was processed`,
    `  }`,
    `}`,
  ].join("\n");
}

function pythonConfig(s: Pick<ConnectionSettings, "bootstrap" | "username" | "mechanism">): string[] {
  return [
    `    "bootstrap.servers": ${JSON.stringify(s.bootstrap)},`,
    `    "security.protocol": "SASL_PLAINTEXT",  # SASL_SSL when the cluster listens with TLS`,
    `    "sasl.mechanisms": ${JSON.stringify(s.mechanism)},`,
    `    "sasl.username": ${JSON.stringify(s.username)},`,
    `    "sasl.password": os.environ["KAFKA_PASSWORD"],`,
  ];
}

const PYTHON_VERSION_LINE = `# pip install "confluent-kafka>=${SNIPPET_CLIENTS.librdkafka.minimum}"  (librdkafka ${SNIPPET_CLIENTS.librdkafka.minimum} or later)`;

/** A subscriber's consumer: confluent-kafka (librdkafka), committing after each processed record. */
export function pythonSnippet(s: ConnectionSettings, registry?: RegistrySettings): string {
  return [
    PYTHON_VERSION_LINE,
    `import os`,
    `from confluent_kafka import Consumer`,
    ...(registry
      ? [
          `from confluent_kafka.schema_registry import SchemaRegistryClient`,
          `from confluent_kafka.schema_registry.avro import AvroDeserializer`,
          `from confluent_kafka.serialization import SerializationContext, MessageField`,
          ``,
          `# The registry is the portal's; it takes the same Kafka user name and password.`,
          `registry = SchemaRegistryClient({"url": ${JSON.stringify(registry.url)}, "basic.auth.user.info": ${JSON.stringify(`${s.username}:`)} + os.environ["KAFKA_PASSWORD"]})`,
          `decode = AvroDeserializer(registry)`,
        ]
      : []),
    ``,
    `consumer = Consumer({`,
    ...pythonConfig(s),
    `    # Consumer groups must start with ${JSON.stringify(s.groupPrefix)}.`,
    `    "group.id": ${JSON.stringify(groupIdFor(s))},`,
    `    "auto.offset.reset": "earliest",`,
    `    "enable.auto.commit": False,`,
    `})`,
    `consumer.subscribe([${JSON.stringify(s.topic)}])`,
    `while True:`,
    `    message = consumer.poll(1.0)`,
    `    if message is None or message.error():`,
    `        continue`,
    ...(registry
      ? [`    value = decode(message.value(), SerializationContext(message.topic(), MessageField.VALUE))`, `    print(message.partition(), message.offset(), value)`]
      : [`    print(message.partition(), message.offset(), len(message.value() or b""))`]),
    `    consumer.commit(message=message, asynchronous=False)  # only what was processed`,
  ].join("\n");
}

const KCAT_VERSION_LINE = `# kcat built with librdkafka ${SNIPPET_CLIENTS.librdkafka.minimum} or later (kcat -V shows it)`;

export function kcatCommand(s: ConnectionSettings): string {
  return [
    KCAT_VERSION_LINE,
    `kcat -C -b ${shellQuote(s.bootstrap)} \\`,
    `  -X security.protocol=SASL_PLAINTEXT -X sasl.mechanisms=${s.mechanism} \\`,
    `  -X sasl.username=${shellQuote(s.username)} -X sasl.password="$KAFKA_PASSWORD" \\`,
    `  -X auto.offset.reset=earliest \\`,
    `  -G ${shellQuote(groupIdFor(s))} ${shellQuote(s.topic)}`,
  ].join("\n");
}

/**
 * The producer side: the domain's producer account writes its product's
 * topic, idempotent with acks=all (the ACLs allow IdempotentWrite), and a send
 * counts as written only once it resolved.
 */
export function platformaticProducerSnippet(s: Omit<ConnectionSettings, "groupPrefix">, registry?: ProducerRegistrySettings): string {
  const head = [
    JS_VERSION_LINE,
    `import { Producer, stringSerializers } from "@platformatic/kafka";`,
    ...(registry ? [`import { SchemaRegistry } from "@kafkajs/confluent-schema-registry";`] : []),
    ``,
    ...(registry ? registryLines(registry, s.username) : []),
    `// Idempotent with acks=all: a send that resolved is in the log, once, even if a partition leader dies.`,
    `const producer = new Producer({`,
    ...jsConnectionLines(s),
    `  idempotent: true,`,
    `  acks: -1,`,
    ...(registry ? [] : [`  serializers: stringSerializers,`]),
    `});`,
  ];
  if (!registry) {
    return [
      ...head,
      `await producer.send({`,
      `  messages: [{ topic: ${JSON.stringify(s.topic)}, key: "id-1", value: JSON.stringify({ /* … */ }) }],`,
      `});`,
      `await producer.close();`,
    ].join("\n");
  }
  return [
    ...head,
    `// The latest approved schema of the product; new versions are proposed and reviewed in the portal.`,
    `const schemaId = await registry.getLatestSchemaId(${JSON.stringify(registry.subject)});`,
    ...(registry.format === "JSON_SCHEMA" ? [`// A JSON Schema of draft 2019-09/2020-12 needs the matching Ajv: new SchemaRegistry(…, { [SchemaType.JSON]: { ajvInstance } }).`] : []),
    `const record = ${registry.example};`,
    ``,
    `await producer.send({`,
    `  // encode() checks the record against the schema and prefixes the magic byte and the id.`,
    `  messages: [{ topic: ${JSON.stringify(s.topic)}, key: Buffer.from("id-1"), value: await registry.encode(schemaId, record) }],`,
    `});`,
    `await producer.close();`,
  ].join("\n");
}

export function javaProducerSnippet(s: Omit<ConnectionSettings, "groupPrefix">, registry?: ProducerRegistrySettings): string {
  const serializer = registry?.format === "JSON_SCHEMA" ? "io.confluent.kafka.serializers.json.KafkaJsonSchemaSerializer" : "io.confluent.kafka.serializers.KafkaAvroSerializer";
  return [
    JAVA_VERSION_LINE,
    ...(registry ? [`// with io.confluent:${registry.format === "JSON_SCHEMA" ? "kafka-json-schema-serializer" : "kafka-avro-serializer"}`] : []),
    ...javaProperties(s),
    `// Idempotent with acks=all: an acknowledged send is in the log, once, even if a partition leader dies.`,
    `props.put("enable.idempotence", "true");`,
    `props.put("acks", "all");`,
    `props.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");`,
    ...(registry
      ? [
          ...javaRegistryProperties(registry, s.username),
          `// The latest approved schema of the product (${registry.subject}); new versions are proposed and reviewed in the portal.`,
          `props.put("auto.register.schemas", "false");`,
          `props.put("use.latest.version", "true");`,
          `props.put("value.serializer", ${JSON.stringify(serializer)});`,
        ]
      : [`props.put("value.serializer", "org.apache.kafka.common.serialization.StringSerializer");`]),
    ``,
    `try (var producer = new KafkaProducer<String, Object>(props)) {`,
    `  // get() waits for the acknowledgement; an exception means the record may not be written.`,
    `  producer.send(new ProducerRecord<>(${JSON.stringify(s.topic)}, "id-1", ${registry ? "record /* a record of the product's schema */" : `"{\\"example\\":true}"`})).get();`,
    `}`,
  ].join("\n");
}

export function pythonProducerSnippet(s: Omit<ConnectionSettings, "groupPrefix">, registry?: ProducerRegistrySettings): string {
  const serializer = registry?.format === "JSON_SCHEMA" ? { module: "json_schema", cls: "JSONSerializer" } : { module: "avro", cls: "AvroSerializer" };
  return [
    PYTHON_VERSION_LINE,
    `import os`,
    `from confluent_kafka import Producer`,
    ...(registry
      ? [
          `from confluent_kafka.schema_registry import SchemaRegistryClient`,
          `from confluent_kafka.schema_registry.${serializer.module} import ${serializer.cls}`,
          `from confluent_kafka.serialization import SerializationContext, MessageField`,
          ``,
          `# The registry is the portal's; it takes the same Kafka user name and password.`,
          `registry = SchemaRegistryClient({"url": ${JSON.stringify(registry.url)}, "basic.auth.user.info": ${JSON.stringify(`${s.username}:`)} + os.environ["KAFKA_PASSWORD"]})`,
          `# The latest approved schema of ${registry.subject}; new versions are proposed and reviewed in the portal.`,
          `encode = ${serializer.cls}(registry, None, conf={"auto.register.schemas": False, "use.latest.version": True})`,
        ]
      : []),
    ``,
    `producer = Producer({`,
    ...pythonConfig(s),
    `    # Idempotent with acks=all: a delivered record is in the log, once, even if a partition leader dies.`,
    `    "enable.idempotence": True,`,
    `    "acks": "all",`,
    `})`,
    ``,
    `def delivered(error, message):`,
    `    if error is not None:`,
    `        raise RuntimeError(f"not written: {error}")`,
    ``,
    ...(registry
      ? [
          `record = {}  # a record of the product's schema`,
          `producer.produce(${JSON.stringify(s.topic)}, key="id-1", value=encode(record, SerializationContext(${JSON.stringify(s.topic)}, MessageField.VALUE)), on_delivery=delivered)`,
        ]
      : [`producer.produce(${JSON.stringify(s.topic)}, key="id-1", value='{"example": true}', on_delivery=delivered)`]),
    `producer.flush()  # waits for every acknowledgement`,
  ].join("\n");
}

export function kcatProduceCommand(s: Omit<ConnectionSettings, "groupPrefix">, registry?: ProducerRegistrySettings): string {
  if (registry) {
    // kcat has no registry serializer: an unframed record would be garbage to every registry-aware consumer.
    return [
      KCAT_VERSION_LINE,
      `# kcat cannot encode records with the schema registry, and consumers of`,
      `# ${s.topic} expect schema-tagged records (magic byte + id): produce with the`,
      `# JavaScript, Java or Python snippet. kcat can check that the credentials and ACLs work:`,
      `kcat -L -b ${shellQuote(s.bootstrap)} \\`,
      `  -X security.protocol=SASL_PLAINTEXT -X sasl.mechanisms=${s.mechanism} \\`,
      `  -X sasl.username=${shellQuote(s.username)} -X sasl.password="$KAFKA_PASSWORD" \\`,
      `  -t ${shellQuote(s.topic)}`,
    ].join("\n");
  }
  return [
    KCAT_VERSION_LINE,
    `echo 'id-1:{"example":true}' | kcat -P -b ${shellQuote(s.bootstrap)} \\`,
    `  -X security.protocol=SASL_PLAINTEXT -X sasl.mechanisms=${s.mechanism} \\`,
    `  -X sasl.username=${shellQuote(s.username)} -X sasl.password="$KAFKA_PASSWORD" \\`,
    `  -K : -t ${shellQuote(s.topic)}`,
  ].join("\n");
}
