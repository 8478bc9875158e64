/*
 * Live traffic for the demo (`npm start` in demo mode, unless
 * KAPPA_DEMO_TRAFFIC=0): a producer writes schema-valid records to the demo
 * products at a few records per second, and a consumer of the payments
 * domain reads Order Events about 20 seconds behind, so the portal shows
 * throughput, a non-zero lag (in records and in seconds) and, on the tiered
 * product, bytes moving to the object store.
 *
 * It logs in as the broker's admin: the demo has no other way to hold a
 * producer's password without taking the owner's one-time pickup. That is a
 * demo-only shortcut — in production, producers are the domains' own
 * applications with their own accounts.
 *
 * It writes through the platform's producer (@kappa/worker/producer,
 * idempotent, acks=all: a record it counts as produced is in the log even if
 * a partition leader dies); the consumer and the topic check stay on kafkajs.
 */
import avsc from "avsc";
import kafkajs, { type Consumer } from "kafkajs";
import { openProducer, type OutgoingRecord } from "@kappa/worker/producer";
import { DEMO_SCHEMAS } from "../prisma/demo-data.ts";

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

export interface DemoTrafficOptions {
  brokers: string[];
  username: string;
  password: string;
  /** Records per second to Order Events; the other products get a share of it. */
  ratePerSecond?: number;
  consumerDelayMs?: number;
  log?: (line: string) => void;
}

const STATUSES = ["PLACED", "PAID", "SHIPPED", "DELIVERED"] as const;
const CURRENCIES = ["EUR", "EUR", "EUR", "GBP", "USD", "CHF"];

/** Deterministic-enough demo values: orders cycle through a few hundred customers and ids. */
export class DemoRecords {
  private sequence = 0;
  private readonly statusOf = new Map<string, number>();
  private readonly orderEvent = avsc.Type.forSchema(JSON.parse(DEMO_SCHEMAS.orderEvent) as avsc.Schema);
  private readonly payment = avsc.Type.forSchema(JSON.parse(DEMO_SCHEMAS.payment) as avsc.Schema);

  constructor(private readonly now: () => number = Date.now) {}

  /** An OrderPlaced record (Avro binary, the product's schema), keyed by order id. */
  nextOrder(): { key: string; value: Buffer; order: { orderId: string; totalCents: number } } {
    this.sequence += 1;
    const orderId = `ord-${(100000 + this.sequence).toString(36)}`;
    const totalCents = 500 + Math.floor(Math.random() * 25_000);
    const value = this.orderEvent.toBuffer({
      orderId,
      customerId: `cust-${1 + Math.floor(Math.random() * 400)}`,
      totalCents,
      currency: CURRENCIES[Math.floor(Math.random() * CURRENCIES.length)],
      placedAt: this.now(),
    });
    this.statusOf.set(orderId, 0);
    return { key: orderId, value, order: { orderId, totalCents } };
  }

  /** A PaymentCaptured record for an order (Avro binary). */
  paymentFor(order: { orderId: string; totalCents: number }): { key: string; value: Buffer } {
    const value = this.payment.toBuffer({
      paymentId: `pay-${order.orderId.slice(4)}`,
      orderId: order.orderId,
      amountCents: order.totalCents,
      cardLast4: Math.random() < 0.8 ? String(1000 + Math.floor(Math.random() * 9000)) : null,
    });
    return { key: order.orderId, value };
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

export interface DemoTraffic {
  stop(): Promise<void>;
  /** Records written so far (for tests and the log). */
  produced(): number;
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
  const consumer: Consumer = kafka.consumer({ groupId: DEMO_CONSUMER_GROUP, allowAutoTopicCreation: false });
  let produced = 0;
  let stopped = false;
  let lastError = "";

  let sending = false;
  const tick = async () => {
    // One write at a time: while a send waits (a topic not created yet, a leader election), ticks are skipped, not queued.
    if (sending || stopped) return;
    sending = true;
    const order = records.nextOrder();
    const messages: OutgoingRecord[] = [{ topic: DEMO_TOPICS.orderEvents, key: order.key, value: order.value }];
    if (Math.random() < 0.6) messages.push({ topic: DEMO_TOPICS.paymentsCaptured, ...records.paymentFor(order.order) });
    const status = records.nextStatus();
    if (status && Math.random() < 0.5) messages.push({ topic: DEMO_TOPICS.orderStatus, ...status });
    try {
      await producer.send(messages);
      produced += messages.length;
      lastError = "";
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // Once per distinct error: the worker may still be creating the topics.
      if (message !== lastError) log(`demo producer: ${message} (retrying)`);
      lastError = message;
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
  log(`demo traffic: about ${rate} records/s to ${Object.values(DEMO_TOPICS).join(", ")}; group ${DEMO_CONSUMER_GROUP} reads Order Events ${delay / 1000} s behind`);

  return {
    produced: () => produced,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.allSettled([consumerStarted, consumer.disconnect(), producer.close()]);
    },
  };
}
