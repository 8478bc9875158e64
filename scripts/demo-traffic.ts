/*
 * Live traffic for the demo (`npm start` in demo mode, unless
 * KAPPA_DEMO_TRAFFIC=0): a producer writes schema-valid records to the demo
 * products at a few records per second, and a consumer of the payments
 * domain reads Order Events about 20 seconds behind, so the portal shows
 * throughput, a non-zero lag (in records and in seconds) and, on the tiered
 * product, bytes moving to the object store.
 *
 * Order Events goes through the data contract (issue 29), as a producing
 * application of the orders domain would write it: Confluent's
 * `@confluentinc/schemaregistry` Avro serializer against the portal's registry
 * (/api/schema-registry), with the CEL executor and the field-encryption
 * executor registered. The registry serves the product's rule
 * `non-negative-total` (on write, action DLQ) and the ENCRYPT rule for
 * `customerId` (tagged PII): every record is framed with the schema's id and
 * its customerId encrypted with the domain's DEK; about one order in
 * DEMO_NEGATIVE_TOTAL_EVERY has a negative total, which the rule sends to the
 * dead-letter topic `orders.order-events.v1.dlq` (DlqAction below), so the
 * product page's DLQ panel fills slowly and has something to redrive.
 *
 * Payments Captured goes through the same serializer against the same
 * registry, as the payments domain's producing application would write it: a
 * payment for about 60 % of the placed orders, captured at once (its
 * `capturedAt`, the event time), framed with the schema's id. The demo's
 * derived product Revenue per Minute (prisma/demo-derived.ts) reads both
 * topics on Flink, whose `avro-confluent` format needs that framing.
 *
 * Credentials. Order Events is written as the orders domain's producer
 * account (`orders-producer`), Payments Captured as the payments domain's
 * (`payments-producer`): only they may WRITE their domain's topics (and
 * dead-letter topics), and only the orders producer (and subscribers approved
 * for PII) gets the DEK's key material from the registry. The demo holds
 * those accounts' passwords because `npm start` issued them (demo mode only;
 * scripts/demo-producer.ts): on the first start, before the worker, the
 * launcher issues each credential as the worker would and keeps a sealed copy
 * in the data folder; the owners' one-time pickup stays theirs, no permission
 * check is bypassed, and the passwords are never logged. In production the
 * producers are the domains' own applications, with the password their owners
 * picked up. Without a credential (the owners rotated it, or the data folder
 * predates the copy) the demo writes no records of that product and says why;
 * without Order Events it writes no payments either (a payment is for a
 * placed order).
 *
 * Order Status (JSON) is written as the broker's admin through the platform's
 * producer (@kappa/worker/producer, idempotent, acks=all) — a demo-only
 * shortcut; the consumer and the topic check stay on kafkajs.
 */
import {
  AvroSerializer,
  CelExecutor,
  FieldEncryptionExecutor,
  RuleRegistry,
  SchemaRegistryClient,
  SerdeType,
  SerializationError,
  type Client,
  type RuleAction,
  type RuleContext,
} from "@confluentinc/schemaregistry";
import kafkajs, { type Consumer } from "kafkajs";
import { openProducer, type OutgoingRecord } from "@kappa/worker/producer";

const { Kafka, logLevel } = kafkajs;

export const DEMO_TOPICS = {
  orderEvents: "orders.order-events.v1",
  orderStatus: "orders.order-status.v1",
  paymentsCaptured: "payments.payments-captured.v1",
} as const;

/** The demo consumer's group: under the payments-reconciliation account's prefix, so the portal shows it as that subscription's lag. */
export const DEMO_CONSUMER_GROUP = "payments-reconciliation.dashboard";

/** How far behind the demo consumer reads (by record timestamp). */
export const DEMO_CONSUMER_DELAY_MS = 20_000;

/** About one order in this many has a negative total: the rule `non-negative-total` sends it to the dead-letter topic. */
export const DEMO_NEGATIVE_TOTAL_EVERY = 50;

/** Where and as whom a product is written through the serializer. */
export interface RegistryProducer {
  /** The registry client (the portal's /api/schema-registry, see portalRegistry). */
  registry: Client;
  /** The domain's producer account (scripts/demo-producer.ts). */
  username: string;
  password: string;
}

export interface DemoTrafficOptions {
  brokers: string[];
  /** The broker's admin: Order Status, and the lagging consumer. */
  username: string;
  password: string;
  /** Order Events through the serializer as the orders producer; null: no Order Events records (`orderEventsOff` says why in the log). */
  orderEvents: RegistryProducer | null;
  orderEventsOff?: string;
  /** Payments Captured through the serializer as the payments producer; null: no payments (`paymentsOff` says why). */
  paymentsCaptured: RegistryProducer | null;
  paymentsOff?: string;
  /** Records per second to Order Events; the other products get a share of it. */
  ratePerSecond?: number;
  consumerDelayMs?: number;
  log?: (line: string) => void;
}

const STATUSES = ["PLACED", "PAID", "SHIPPED", "DELIVERED"] as const;
const CURRENCIES = ["EUR", "EUR", "EUR", "GBP", "USD", "CHF"];

/** An OrderPlaced record as the application hands it to the serializer (Order Events' schema). */
export interface OrderPlaced {
  orderId: string;
  customerId: string;
  totalCents: number;
  currency: string;
  placedAt: number;
}

/** A PaymentCaptured record as the application hands it to the serializer (Payments Captured's schema). */
export interface PaymentCaptured {
  paymentId: string;
  orderId: string;
  amountCents: number;
  cardLast4: string | null;
  /** The capture's event time, epoch milliseconds (timestamp-millis). */
  capturedAt: number;
}

/** Deterministic-enough demo values: orders cycle through a few hundred customers and ids. */
export class DemoRecords {
  private sequence = 0;
  private readonly statusOf = new Map<string, number>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly negativeEvery: number = DEMO_NEGATIVE_TOTAL_EVERY,
  ) {}

  /** The next OrderPlaced record, keyed by order id; every `negativeEvery`-th has a negative total (a broken producer). */
  nextOrder(): { key: string; record: OrderPlaced; order: { orderId: string; totalCents: number } } {
    this.sequence += 1;
    const orderId = `ord-${(100000 + this.sequence).toString(36)}`;
    const totalCents = this.sequence % this.negativeEvery === 0 ? -(1 + Math.floor(Math.random() * 5_000)) : 500 + Math.floor(Math.random() * 25_000);
    const record: OrderPlaced = {
      orderId,
      customerId: `cust-${1 + Math.floor(Math.random() * 400)}`,
      totalCents,
      currency: CURRENCIES[Math.floor(Math.random() * CURRENCIES.length)]!,
      placedAt: this.now(),
    };
    if (totalCents >= 0) this.statusOf.set(orderId, 0);
    return { key: orderId, record, order: { orderId, totalCents } };
  }

  /** A PaymentCaptured record for an order, captured now, keyed by order id. */
  paymentFor(order: { orderId: string; totalCents: number }): { key: string; record: PaymentCaptured } {
    const record: PaymentCaptured = {
      paymentId: `pay-${order.orderId.slice(4)}`,
      orderId: order.orderId,
      amountCents: order.totalCents,
      cardLast4: Math.random() < 0.8 ? String(1000 + Math.floor(Math.random() * 9000)) : null,
      capturedAt: this.now(),
    };
    return { key: order.orderId, record };
  }

  /**
   * The next status of some open order (JSON, keyed by order id, on the
   * compacted topic); delivered orders leave the working set, so the
   * latest-state view keeps growing slowly rather than churning forever.
   */
  nextStatus(): { key: string; value: Buffer } | null {
    const open = [...this.statusOf.keys()];
    if (open.length === 0) return null;
    const orderId = open[Math.floor(Math.random() * open.length)]!;
    const step = (this.statusOf.get(orderId) ?? 0) + 1;
    if (step >= STATUSES.length - 1) this.statusOf.delete(orderId);
    else this.statusOf.set(orderId, step);
    const status = STATUSES[Math.min(step, STATUSES.length - 1)];
    return { key: orderId, value: Buffer.from(JSON.stringify({ orderId, status, updatedAt: new Date(this.now()).toISOString() })) };
  }
}

/** Where DlqAction and ProductWriter write: the platform's producer, or any client's send (e.g. kafkajs, record by record). */
export interface RecordSink {
  send(records: OutgoingRecord[]): Promise<unknown>;
}

/** Thrown by DlqAction after it wrote the dead letter: the serializer's caller learns the record did not go to the topic. */
export class DeadLettered extends SerializationError {
  constructor(
    readonly rule: string,
    readonly topic: string,
  ) {
    super(`rule ${rule} failed: the record went to ${topic}`);
  }
}

/**
 * Confluent's DLQ rule action for the JavaScript client, which ships none (the
 * Java client's DlqAction is the model): the record goes to the rule's
 * `dlq.topic` with the rule's name, mode, subject, topic and error in
 * `__rule.*` headers — what the portal's DLQ panel shows — and the serializer
 * then fails with DeadLettered. The dead letter is the record serialized as on
 * the product topic (wire format, the PII fields encrypted: the conditions are
 * switched off for it by a rule override), so the dead-letter topic holds no
 * clear PII either and a redrive puts it back unchanged.
 */
export class DlqAction implements RuleAction {
  private readonly deadLetters: AvroSerializer;

  constructor(
    registry: Client,
    private readonly producer: RecordSink,
  ) {
    const rules = new RuleRegistry();
    rules.registerExecutor(new FieldEncryptionExecutor());
    rules.registerOverride({ type: "CEL", disabled: true });
    rules.registerOverride({ type: "CEL_FIELD", disabled: true });
    this.deadLetters = new AvroSerializer(registry, SerdeType.VALUE, { useLatestVersion: true, autoRegisterSchemas: false }, rules);
  }

  configure(): void {}
  type(): string {
    return "DLQ";
  }
  async run(ctx: RuleContext, msg: unknown, err: Error | null): Promise<void> {
    const topic = ctx.getParameter("dlq.topic");
    if (!topic) throw new SerializationError(`rule ${ctx.rule.name} has no dlq.topic`);
    try {
      const key = typeof msg === "object" && msg !== null && "orderId" in msg ? String(msg.orderId) : null;
      const value = await this.deadLetters.serialize(ctx.topic, msg);
      const headers = { "__rule.name": ctx.rule.name, "__rule.mode": String(ctx.ruleMode), "__rule.subject": ctx.subject, "__rule.topic": ctx.topic, "__rule.exception": err?.message ?? "condition failed" };
      await this.producer.send([{ topic, key, value, headers }]);
    } catch (error) {
      // Never on to the product topic: a failed dead-letter write refuses the record.
      throw new SerializationError(`rule ${ctx.rule.name} failed and its dead letter could not be written to ${topic}: ${error instanceof Error ? error.message : String(error)}`);
    }
    throw new DeadLettered(ctx.rule.name, topic);
  }
  close(): void {}
}

/**
 * Writes a product's records through the serializer as its domain's producer account: the newest approved schema
 * (never registering one), the rules the registry serves with it (CEL checks, a DLQ action, PII encryption).
 */
export class ProductWriter<T extends object> {
  private readonly serializer: AvroSerializer;

  constructor(
    registry: Client,
    private readonly producer: RecordSink,
    private readonly topic: string,
  ) {
    // Each serializer its own executors: the encryption executor is bound to the client it was first configured with.
    const rules = new RuleRegistry();
    rules.registerExecutor(new CelExecutor());
    rules.registerExecutor(new FieldEncryptionExecutor());
    rules.registerAction(new DlqAction(registry, producer));
    this.serializer = new AvroSerializer(registry, SerdeType.VALUE, { useLatestVersion: true, autoRegisterSchemas: false }, rules);
  }

  /** "written" to the topic, or "dead-lettered" by a DLQ rule; rejects when neither happened. */
  async write(key: string, record: T): Promise<"written" | "dead-lettered"> {
    let value: Buffer;
    try {
      // A copy: the serializer encrypts the object it is given in place.
      value = await this.serializer.serialize(this.topic, { ...record });
    } catch (error) {
      if (error instanceof DeadLettered) return "dead-lettered";
      throw error;
    }
    await this.producer.send([{ topic: this.topic, key, value }]);
    return "written";
  }
}

/** Order Events' writer (the README's producer example uses it): a ProductWriter of OrderPlaced records on orders.order-events.v1. */
export class OrderEventsWriter extends ProductWriter<OrderPlaced> {
  constructor(registry: Client, producer: RecordSink, topic: string = DEMO_TOPICS.orderEvents) {
    super(registry, producer, topic);
  }
}

/** A registry client for the portal's /api/schema-registry as a service account (HTTP Basic, as Confluent's clients send it). */
export function portalRegistry(registryUrl: string, username: string, password: string): Client {
  // The newest version (with its rules) is asked again every five minutes, so a rule changed in the portal reaches the demo.
  return new SchemaRegistryClient({ baseURLs: [registryUrl], basicAuthCredentials: { credentialsSource: "USER_INFO", userInfo: `${username}:${password}` }, cacheLatestTtlSecs: 300 });
}

export interface DemoTraffic {
  stop(): Promise<void>;
  /** Records written so far (for tests and the log). */
  produced(): number;
  /** Records a rule sent to a dead-letter topic (Order Events' non-negative-total). */
  deadLettered(): number;
}

/**
 * Starts the producer and the lagging consumer. Failures (a topic not yet
 * created by the worker, the broker restarting) are logged and retried on the
 * next tick; the demo never stops the product.
 */
export async function startDemoTraffic(options: DemoTrafficOptions): Promise<DemoTraffic> {
  const log = options.log ?? (() => {});
  const rate = options.ratePerSecond ?? 3;
  const delay = options.consumerDelayMs ?? DEMO_CONSUMER_DELAY_MS;
  const kafka = new Kafka({
    clientId: "kappa-demo-traffic",
    brokers: options.brokers,
    sasl: { mechanism: "scram-sha-512", username: options.username, password: options.password },
    logLevel: logLevel.NOTHING,
    retry: { retries: 3 },
  });
  const records = new DemoRecords();
  const producer = openProducer({ clientId: "kappa-demo-traffic", brokers: options.brokers, sasl: { mechanism: "SCRAM-SHA-512", username: options.username, password: options.password }, retries: 5 });
  // Each product through its domain's producer account, on that account's own connection (its ACLs: the domain's
  // topics and dead-letter topics).
  const connect = (clientId: string, account: RegistryProducer) =>
    openProducer({ clientId, brokers: options.brokers, sasl: { mechanism: "SCRAM-SHA-512", username: account.username, password: account.password }, retries: 5 });
  const orderProducer = options.orderEvents ? connect("kappa-demo-shop", options.orderEvents) : null;
  const orders = options.orderEvents && orderProducer ? new OrderEventsWriter(options.orderEvents.registry, orderProducer) : null;
  if (!orders) log(`demo traffic: no Order Events records: ${options.orderEventsOff ?? "no producer credential"}`);
  const paymentProducer = options.paymentsCaptured ? connect("kappa-demo-payments", options.paymentsCaptured) : null;
  const payments = options.paymentsCaptured && paymentProducer ? new ProductWriter<PaymentCaptured>(options.paymentsCaptured.registry, paymentProducer, DEMO_TOPICS.paymentsCaptured) : null;
  if (!payments) log(`demo traffic: no Payments Captured records: ${options.paymentsOff ?? "no producer credential"}`);
  else if (!orders) log("demo traffic: no Payments Captured records either: a payment is captured for a placed order");
  const consumer: Consumer = kafka.consumer({ groupId: DEMO_CONSUMER_GROUP, allowAutoTopicCreation: false });
  let produced = 0;
  let deadLettered = 0;
  let stopped = false;
  const lastError = new Map<string, string>();
  // Once per distinct error and path: the worker may still be creating the topics, the portal still starting.
  const failed = (path: string, error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    if (lastError.get(path) !== message) log(`demo ${path}: ${message} (retrying)`);
    lastError.set(path, message);
  };

  let sending = false;
  const tick = async () => {
    // One write at a time: while a send waits (a topic not created yet, a leader election), ticks are skipped, not queued.
    if (sending || stopped) return;
    sending = true;
    const order = records.nextOrder();
    const messages: OutgoingRecord[] = [];
    try {
      let placed = false;
      if (orders) {
        try {
          const outcome = await orders.write(order.key, order.record);
          if (outcome === "dead-lettered") deadLettered += 1;
          else produced += 1;
          placed = outcome === "written";
          lastError.delete("Order Events");
        } catch (error) {
          failed("Order Events", error);
        }
      }
      // A payment only for an order that was placed, captured right after it.
      if (payments && placed && order.order.totalCents >= 0 && Math.random() < 0.6) {
        const payment = records.paymentFor(order.order);
        try {
          if ((await payments.write(payment.key, payment.record)) === "dead-lettered") deadLettered += 1;
          else produced += 1;
          lastError.delete("Payments Captured");
        } catch (error) {
          failed("Payments Captured", error);
        }
      }
      const status = records.nextStatus();
      if (status && Math.random() < 0.5) messages.push({ topic: DEMO_TOPICS.orderStatus, ...status });
      if (messages.length > 0) {
        await producer.send(messages);
        produced += messages.length;
      }
      lastError.delete("producer");
    } catch (error) {
      failed("producer", error);
    } finally {
      sending = false;
    }
  };
  const timer = setInterval(() => void tick(), Math.max(50, Math.round(1000 / rate)));

  // The consumer "processes" each record DEMO_CONSUMER_DELAY_MS after it was
  // written: a steady lag of about that many seconds' worth of records.
  // The worker creates the demo topics a moment after start-up: the consumer
  // joins once Order Events exists, retrying until then.
  const startConsumer = async (): Promise<void> => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      while (!stopped && !(await admin.listTopics()).includes(DEMO_TOPICS.orderEvents)) await new Promise((r) => setTimeout(r, 1_000));
    } finally {
      await admin.disconnect();
    }
    if (stopped) return;
    await consumer.connect();
    await consumer.subscribe({ topic: DEMO_TOPICS.orderEvents, fromBeginning: false });
    await consumer.run({
      autoCommitInterval: 2_000,
      eachMessage: async ({ message }) => {
        const due = Number(message.timestamp) + delay - Date.now();
        if (due > 0 && !stopped) await new Promise((r) => setTimeout(r, Math.min(due, delay)));
      },
    });
  };
  const consumerStarted = (async () => {
    for (let attempt = 1; !stopped; attempt++) {
      try {
        return await startConsumer();
      } catch (error) {
        log(`demo consumer: ${error instanceof Error ? error.message : String(error)} (attempt ${attempt}, retrying)`);
        await consumer.disconnect().catch(() => undefined);
        await new Promise((r) => setTimeout(r, 2_000));
      }
    }
  })();
  log(
    `demo traffic: about ${rate} records/s to ${[orders ? DEMO_TOPICS.orderEvents : null, DEMO_TOPICS.orderStatus, orders && payments ? DEMO_TOPICS.paymentsCaptured : null].filter((t) => t !== null).join(", ")}${orders ? ` (Order Events through the registry's serializer as ${options.orderEvents?.username}: customerId encrypted, about 1 order in ${DEMO_NEGATIVE_TOTAL_EVERY} to ${DEMO_TOPICS.orderEvents}.dlq)` : ""}${orders && payments ? ` (Payments Captured through it as ${options.paymentsCaptured?.username}, for about 60 % of the orders)` : ""}; group ${DEMO_CONSUMER_GROUP} reads Order Events ${delay / 1000} s behind`,
  );

  return {
    produced: () => produced,
    deadLettered: () => deadLettered,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.allSettled([consumerStarted, consumer.disconnect(), producer.close(), orderProducer?.close(), paymentProducer?.close()]);
    },
  };
}
