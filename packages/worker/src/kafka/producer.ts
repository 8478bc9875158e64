/*
 * The one way the platform writes records to Kafka when it relies on the
 * acknowledgement (demo traffic today; dead letters, redrive and anything
 * else the worker produces tomorrow). Everything else — admin calls and
 * consumers — stays on kafkajs.
 *
 * Why not kafkajs: kafkajs 2.2.4 (its last release) loses acknowledged
 * records when a partition leader is killed mid-stream: send() resolves, and
 * the records of one in-flight request are not in the log (issue 35; the
 * failover test in test/producer-failover.integration.test.ts and
 * `npm run bench:failover` measure it). @platformatic/kafka, pinned to the
 * version the same test proves, keeps every acknowledged record exactly once
 * under the same fault. It is pure TypeScript and runs on Node 20.19+ (1.35.x;
 * 2.x needs Node 22). Callers see only this module, so the client can change
 * again without touching them.
 *
 * The producer is idempotent with acks=all. A send that fails (retries
 * exhausted) is reported as failed — its records may or may not be in the
 * log — and the next send opens a fresh producer (a new producer id), so the
 * sequence numbers of a request with an unknown outcome never block later
 * writes.
 *
 * One exception, chosen on the first send: @platformatic/kafka 1.35 speaks
 * only the flexible versions of Metadata (9+), SaslAuthenticate (2),
 * FindCoordinator (4+) and InitProducerId (3+), which Apache Kafka has served
 * since 2.4 but the embedded broker (packages/broker) does not yet. Against a
 * cluster of ONE broker that lacks them, the module produces with kafkajs's
 * idempotent producer: the loss of issue 35 needs a leader change, which a
 * single broker cannot have (the embedded broker's kill -9 test in
 * test/producer-failover.integration.test.ts holds this path to the same
 * standard). A cluster of several brokers that lacks them is refused.
 */
import diagnosticsChannel from "node:diagnostics_channel";
import { Producer, ProduceAcks, type SASLMechanismValue } from "@platformatic/kafka";
import kafkajs, { type Producer as KafkaJsProducer } from "kafkajs";
import { ApiKey } from "@kappa/kafka-protocol";
import { KafkaConnection } from "@kappa/kafka-protocol/client";

/** The client behind this module and the version the failover test proves (package.json pins the same). */
export const PRODUCER_CLIENT = { name: "@platformatic/kafka", version: "1.35.0" } as const;

export interface ProducerSettings {
  clientId: string;
  /** `host:port` entries. */
  brokers: string[];
  sasl?: { mechanism: "SCRAM-SHA-512" | "SCRAM-SHA-256" | "PLAIN"; username: string; password: string };
  /** TLS to the brokers (SASL_SSL / SSL); the system's CAs unless `ca` is given (PEM). */
  tls?: boolean | { ca?: string };
  /** One request's timeout (default 30 s). */
  requestTimeoutMs?: number;
  /** Attempts of a failing request before send() rejects (default 30, 500 ms apart: a leader election fits well inside). */
  retries?: number;
}

export interface OutgoingRecord {
  topic: string;
  key?: string | Buffer | null;
  value: string | Buffer | null;
  /** Without it the key picks the partition (murmur2, as Kafka's Java client does). */
  partition?: number;
  headers?: Record<string, string | Buffer>;
}

export interface AcknowledgedPartition {
  topic: string;
  partition: number;
  /** The offset the broker reports for the write to this partition. */
  offset: bigint;
}

/** Which client carries the writes (known after the first send). */
export type ProducerClient = "@platformatic/kafka" | "kafkajs (single broker)";

export interface PlatformProducer {
  /** The client chosen on the first send; null before it. */
  client(): ProducerClient | null;
  /**
   * Writes the records with acks=all (every in-sync replica has them) and
   * resolves once the cluster acknowledged all of them; rejects if it could
   * not — then some of them may have been written.
   */
  send(records: OutgoingRecord[]): Promise<AcknowledgedPartition[]>;
  close(): Promise<void>;
}

type Bytes = Buffer | undefined;

function bytes(v: string | Buffer | null | undefined): Bytes {
  if (v === null || v === undefined) return undefined;
  return typeof v === "string" ? Buffer.from(v) : v;
}

function validate(settings: ProducerSettings): void {
  if (!settings.clientId || !/^[A-Za-z0-9._-]{1,200}$/.test(settings.clientId)) throw new Error("producer clientId: 1–200 letters, digits, '.', '_' or '-'");
  if (!Array.isArray(settings.brokers) || settings.brokers.length === 0) throw new Error("producer brokers: at least one host:port");
  for (const b of settings.brokers) if (!/^[^\s:]+:\d{1,5}$/.test(b)) throw new Error(`producer brokers: ${JSON.stringify(b)} is not host:port`);
  if (settings.retries !== undefined && (!Number.isInteger(settings.retries) || settings.retries < 1)) throw new Error("producer retries: a whole number ≥ 1");
  if (settings.requestTimeoutMs !== undefined && (!Number.isInteger(settings.requestTimeoutMs) || settings.requestTimeoutMs < 1_000)) throw new Error("producer requestTimeoutMs: a whole number ≥ 1000");
}

/** Does the cluster serve what @platformatic/kafka 1.35 sends (asked of the first broker that answers)? */
async function servesFlexibleClient(settings: ProducerSettings): Promise<boolean> {
  let lastError: unknown;
  for (const broker of settings.brokers) {
    const at = broker.lastIndexOf(":");
    let conn: KafkaConnection;
    try {
      conn = await KafkaConnection.open({
        host: broker.slice(0, at),
        port: Number(broker.slice(at + 1)),
        clientId: settings.clientId,
        sasl: settings.sasl ?? null,
        tls: settings.tls ? (settings.tls === true ? {} : { ca: settings.tls.ca }) : null,
        connectTimeoutMs: 10_000,
        requestTimeoutMs: settings.requestTimeoutMs ?? 30_000,
      });
    } catch (error) {
      lastError = error;
      continue;
    }
    try {
      return conn.supports(ApiKey.Metadata, 9) && conn.supports(ApiKey.SaslAuthenticate, 2) && conn.supports(ApiKey.FindCoordinator, 4) && conn.supports(ApiKey.InitProducerId, 3) && conn.supports(ApiKey.Produce, 7);
    } finally {
      conn.close();
    }
  }
  throw lastError instanceof Error ? lastError : new Error("no broker answered");
}

interface Writer {
  send(records: OutgoingRecord[]): Promise<AcknowledgedPartition[]>;
  /** force: drop what is in flight (after a failed send). */
  close(force: boolean): Promise<void>;
}

/*
 * @platformatic/kafka 1.35's connection pool listens to a connection's `error`
 * with `once`, and a connection whose broker dies during its SASL handshake can
 * emit `error` twice (the handshake's failure after the connect's): the second,
 * with no listener, is an uncaught exception that ends the process. Every
 * connection the library creates (announced on its `plt:kafka:instances`
 * diagnostics channel) gets a lasting listener; the errors still reach the
 * library's own callbacks, which report them to the caller.
 */
let connectionErrorsGuarded = false;
function guardConnectionErrors(): void {
  if (connectionErrorsGuarded) return;
  connectionErrorsGuarded = true;
  diagnosticsChannel.subscribe("plt:kafka:instances", (message) => {
    const { type, instance } = message as { type?: string; instance?: { on?: (event: string, listener: () => void) => unknown } };
    if (type === "connection" && typeof instance?.on === "function") instance.on("error", () => undefined);
  });
}

function platformaticWriter(settings: ProducerSettings): Writer {
  guardConnectionErrors();
  const producer = new Producer<Bytes, Bytes, string, Bytes>({
    clientId: settings.clientId,
    bootstrapBrokers: settings.brokers,
    ...(settings.sasl ? { sasl: { mechanism: settings.sasl.mechanism as SASLMechanismValue, username: settings.sasl.username, password: settings.sasl.password } } : {}),
    ...(settings.tls ? { tls: settings.tls === true ? {} : { ca: settings.tls.ca } } : {}),
    idempotent: true,
    acks: ProduceAcks.ALL,
    retries: settings.retries ?? 30,
    retryDelay: 500,
    requestTimeout: settings.requestTimeoutMs ?? 30_000,
    connectTimeout: 10_000,
    autocreateTopics: false,
    serializers: { key: (k?: Bytes) => k, value: (v?: Bytes) => v, headerKey: (k?: string) => (k === undefined ? undefined : Buffer.from(k)), headerValue: (v?: Bytes) => v },
  });
  return {
    async send(records) {
      const result = await producer.send({
        messages: records.map((r) => ({
          topic: r.topic,
          key: bytes(r.key),
          value: bytes(r.value),
          ...(r.partition !== undefined ? { partition: r.partition } : {}),
          ...(r.headers ? { headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, bytes(v)])) } : {}),
        })),
      });
      return (result.offsets ?? []).map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset }));
    },
    close: (force) => (force ? new Promise<void>((resolve) => producer.close(true, () => resolve())) : producer.close()),
  };
}

async function kafkajsSingleBrokerWriter(settings: ProducerSettings): Promise<Writer> {
  const kafka = new kafkajs.Kafka({
    clientId: settings.clientId,
    brokers: settings.brokers,
    ...(settings.sasl ? { sasl: { mechanism: settings.sasl.mechanism.toLowerCase(), username: settings.sasl.username, password: settings.sasl.password } as kafkajs.SASLOptions } : {}),
    ...(settings.tls ? { ssl: settings.tls === true ? true : { ca: settings.tls.ca ? [settings.tls.ca] : undefined } } : {}),
    logLevel: kafkajs.logLevel.NOTHING,
    connectionTimeout: 10_000,
    requestTimeout: settings.requestTimeoutMs ?? 30_000,
    retry: { retries: Math.min(settings.retries ?? 30, 30), initialRetryTime: 300, maxRetryTime: 2_000 },
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { brokers } = await admin.describeCluster();
    if (brokers.length !== 1) {
      throw new Error(`the cluster at ${settings.brokers.join(",")} has ${brokers.length} brokers but does not serve the API versions ${PRODUCER_CLIENT.name} ${PRODUCER_CLIENT.version} needs (Metadata 9+, SaslAuthenticate 2, FindCoordinator 4+, InitProducerId 3+): the platform does not produce there with a client that can lose acknowledged records at a leader change`);
    }
  } finally {
    await admin.disconnect();
  }
  const producer: KafkaJsProducer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  return {
    async send(records) {
      const byTopic = new Map<string, kafkajs.Message[]>();
      for (const r of records) {
        const list = byTopic.get(r.topic) ?? [];
        list.push({ key: bytes(r.key) ?? null, value: bytes(r.value) ?? null, ...(r.partition !== undefined ? { partition: r.partition } : {}), ...(r.headers ? { headers: r.headers } : {}) });
        byTopic.set(r.topic, list);
      }
      const result = await producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) });
      return result.map((m) => ({ topic: m.topicName, partition: m.partition, offset: BigInt(m.baseOffset ?? m.offset ?? "-1") }));
    },
    close: () => producer.disconnect(),
  };
}

/** Opens the platform's producer (connections are made on the first send). */
export function openProducer(settings: ProducerSettings): PlatformProducer {
  validate(settings);
  let chosen: ProducerClient | null = null;
  let writer: Writer | null = null;
  let closed = false;
  let chain: Promise<unknown> = Promise.resolve();

  const open = async (): Promise<Writer> => {
    chosen ??= (await servesFlexibleClient(settings)) ? "@platformatic/kafka" : "kafkajs (single broker)";
    return chosen === "@platformatic/kafka" ? platformaticWriter(settings) : await kafkajsSingleBrokerWriter(settings);
  };

  const send = async (records: OutgoingRecord[]): Promise<AcknowledgedPartition[]> => {
    if (closed) throw new Error("the producer is closed");
    if (records.length === 0) return [];
    writer ??= await open();
    const current = writer;
    try {
      return await current.send(records);
    } catch (error) {
      // The outcome of this request is unknown: the next send starts over with a new producer id.
      if (writer === current) writer = null;
      await current.close(true).catch(() => undefined);
      throw error;
    }
  };

  return {
    client: () => chosen,
    // One send at a time, in call order: a later send never overtakes an earlier one.
    send(records) {
      const next = chain.then(() => send(records));
      chain = next.catch(() => undefined);
      return next;
    },
    async close() {
      closed = true;
      await chain;
      const w = writer;
      writer = null;
      await w?.close(false).catch(() => undefined);
    },
  };
}
