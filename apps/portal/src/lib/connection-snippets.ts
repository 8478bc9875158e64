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
 * (@kafkajs/confluent-schema-registry): records carry the magic byte and the
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

/** The kafkajs client both snippets start with; the password stays in the environment. */
function kafkaClientLines(s: Pick<ConnectionSettings, "bootstrap" | "username" | "mechanism">, withRegistry = false): string[] {
  const brokers = s.bootstrap.split(",").map((b) => JSON.stringify(b.trim()));
  return [
    `import { Kafka } from "kafkajs";`,
    ...(withRegistry ? [`import { SchemaRegistry } from "@kafkajs/confluent-schema-registry";`] : []),
    ``,
    `const kafka = new Kafka({`,
    `  clientId: ${JSON.stringify(s.username)},`,
    `  brokers: [${brokers.join(", ")}],`,
    `  // ssl: true, // when the cluster listens with TLS (SASL_SSL)`,
    `  sasl: {`,
    `    mechanism: ${JSON.stringify(s.mechanism.toLowerCase())},`,
    `    username: ${JSON.stringify(s.username)},`,
    `    password: process.env.KAFKA_PASSWORD,`,
    `  },`,
    `});`,
    ``,
  ];
}

export function kafkajsSnippet(s: ConnectionSettings, registry?: RegistrySettings): string {
  return [
    ...kafkaClientLines(s, registry !== undefined),
    ...(registry ? registryLines(registry, s.username) : []),
    `// Consumer groups must start with ${JSON.stringify(s.groupPrefix)}.`,
    `const consumer = kafka.consumer({ groupId: ${JSON.stringify(groupIdFor(s))} });`,
    `await consumer.connect();`,
    `await consumer.subscribe({ topics: [${JSON.stringify(s.topic)}], fromBeginning: true });`,
    `await consumer.run({`,
    `  eachMessage: async ({ partition, message }) => {`,
    ...(registry
      ? [
          `    // Magic byte + schema id, then the record: decoded with the schema it was written with.`,
          `    const value = message.value ? await registry.decode(message.value) : null;`,
          `    console.log(partition, message.offset, value);`,
        ]
      : [`    console.log(partition, message.offset, message.value?.length);`]),
    `  },`,
    `});`,
  ].join("\n");
}

/**
 * The client versions a kcat command needs: librdkafka before 2.6.1 (e.g. Debian
 * bookworm's kcat, on 2.0.2) sends a wrong nonce in SCRAM's last message, which
 * Kafka 4.x and the embedded broker refuse (confluentinc/librdkafka#4895).
 */
export const KCAT_SCRAM_REQUIREMENT = "# Needs kcat built on librdkafka >= 2.6.1 for SCRAM on Kafka 4.x (check: kcat -V).";

export function kcatCommand(s: ConnectionSettings): string {
  return [
    KCAT_SCRAM_REQUIREMENT,
    `kcat -C -b ${shellQuote(s.bootstrap)} \\`,
    `  -X security.protocol=SASL_PLAINTEXT -X sasl.mechanisms=${s.mechanism} \\`,
    `  -X sasl.username=${shellQuote(s.username)} -X sasl.password="$KAFKA_PASSWORD" \\`,
    `  -X auto.offset.reset=earliest \\`,
    `  -G ${shellQuote(groupIdFor(s))} ${shellQuote(s.topic)}`,
  ].join("\n");
}

/** The producer side: the domain's producer account writes its product's topic (idempotent, as the ACLs allow). */
export function kafkajsProducerSnippet(s: Omit<ConnectionSettings, "groupPrefix">, registry?: ProducerRegistrySettings): string {
  if (!registry) {
    return [
      ...kafkaClientLines(s),
      `const producer = kafka.producer({ idempotent: true });`,
      `await producer.connect();`,
      `await producer.send({`,
      `  topic: ${JSON.stringify(s.topic)},`,
      `  messages: [{ key: "id-1", value: JSON.stringify({ /* … */ }) }],`,
      `});`,
    ].join("\n");
  }
  return [
    ...kafkaClientLines(s, true),
    ...registryLines(registry, s.username),
    `// The latest approved schema of the product; new versions are proposed and reviewed in the portal.`,
    `const schemaId = await registry.getLatestSchemaId(${JSON.stringify(registry.subject)});`,
    ...(registry.format === "JSON_SCHEMA" ? [`// A JSON Schema of draft 2019-09/2020-12 needs the matching Ajv: new SchemaRegistry(…, { [SchemaType.JSON]: { ajvInstance } }).`] : []),
    `const record = ${registry.example};`,
    ``,
    `const producer = kafka.producer({ idempotent: true });`,
    `await producer.connect();`,
    `await producer.send({`,
    `  topic: ${JSON.stringify(s.topic)},`,
    `  // encode() checks the record against the schema and prefixes the magic byte and the id.`,
    `  messages: [{ key: "id-1", value: await registry.encode(schemaId, record) }],`,
    `});`,
  ].join("\n");
}

export function kcatProduceCommand(s: Omit<ConnectionSettings, "groupPrefix">, registry?: ProducerRegistrySettings): string {
  if (registry) {
    // kcat has no registry serializer: an unframed record would be garbage to every registry-aware consumer.
    return [
      `# kcat cannot encode records with the schema registry, and consumers of`,
      `# ${s.topic} expect schema-tagged records (magic byte + id): produce with the`,
      `# kafkajs snippet. kcat can check that the credentials and ACLs work:`,
      KCAT_SCRAM_REQUIREMENT,
      `kcat -L -b ${shellQuote(s.bootstrap)} \\`,
      `  -X security.protocol=SASL_PLAINTEXT -X sasl.mechanisms=${s.mechanism} \\`,
      `  -X sasl.username=${shellQuote(s.username)} -X sasl.password="$KAFKA_PASSWORD" \\`,
      `  -t ${shellQuote(s.topic)}`,
    ].join("\n");
  }
  return [
    KCAT_SCRAM_REQUIREMENT,
    `echo 'id-1:{"example":true}' | kcat -P -b ${shellQuote(s.bootstrap)} \\`,
    `  -X security.protocol=SASL_PLAINTEXT -X sasl.mechanisms=${s.mechanism} \\`,
    `  -X sasl.username=${shellQuote(s.username)} -X sasl.password="$KAFKA_PASSWORD" \\`,
    `  -K : -t ${shellQuote(s.topic)}`,
  ].join("\n");
}
