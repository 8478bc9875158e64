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

/** A group id inside the account's prefix; the suffix names the application. */
export function groupIdFor(settings: ConnectionSettings, app = "my-app"): string {
  return `${settings.groupPrefix}${app}`;
}

/** Single-quotes a shell word unless it is plainly safe. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_.,:/=@+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The kafkajs client both snippets start with; the password stays in the environment. */
function kafkaClientLines(s: Pick<ConnectionSettings, "bootstrap" | "username" | "mechanism">): string[] {
  const brokers = s.bootstrap.split(",").map((b) => JSON.stringify(b.trim()));
  return [
    `import { Kafka } from "kafkajs";`,
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

export function kafkajsSnippet(s: ConnectionSettings): string {
  return [
    ...kafkaClientLines(s),
    `// Consumer groups must start with ${JSON.stringify(s.groupPrefix)}.`,
    `const consumer = kafka.consumer({ groupId: ${JSON.stringify(groupIdFor(s))} });`,
    `await consumer.connect();`,
    `await consumer.subscribe({ topics: [${JSON.stringify(s.topic)}], fromBeginning: true });`,
    `await consumer.run({`,
    `  eachMessage: async ({ partition, message }) => {`,
    `    console.log(partition, message.offset, message.value?.length);`,
    `  },`,
    `});`,
  ].join("\n");
}

export function kcatCommand(s: ConnectionSettings): string {
  return [
    `kcat -C -b ${shellQuote(s.bootstrap)} \\`,
    `  -X security.protocol=SASL_PLAINTEXT -X sasl.mechanisms=${s.mechanism} \\`,
    `  -X sasl.username=${shellQuote(s.username)} -X sasl.password="$KAFKA_PASSWORD" \\`,
    `  -X auto.offset.reset=earliest \\`,
    `  -G ${shellQuote(groupIdFor(s))} ${shellQuote(s.topic)}`,
  ].join("\n");
}

/** The producer side: the domain's producer account writes its product's topic (idempotent, as the ACLs allow). */
export function kafkajsProducerSnippet(s: Omit<ConnectionSettings, "groupPrefix">): string {
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

export function kcatProduceCommand(s: Omit<ConnectionSettings, "groupPrefix">): string {
  return [
    `echo 'id-1:{"example":true}' | kcat -P -b ${shellQuote(s.bootstrap)} \\`,
    `  -X security.protocol=SASL_PLAINTEXT -X sasl.mechanisms=${s.mechanism} \\`,
    `  -X sasl.username=${shellQuote(s.username)} -X sasl.password="$KAFKA_PASSWORD" \\`,
    `  -K : -t ${shellQuote(s.topic)}`,
  ].join("\n");
}
