/*
 * `npm run bench -w packages/worker` (part of the root `npm run bench`): a
 * derived product's join on Apache Flink over the project's broker (issue 34).
 * The local Flink session cluster as `npm start` runs it (packages/engines:
 * one TaskManager, parallelism 1, checkpoints every 5 s — the exactly-once
 * Kafka sink commits its transaction on each checkpoint) and the broker in a
 * child process with SASL/SCRAM, as `npm start` runs it. The job is the
 * worker's (startDerivedJob: the catalog's input and output tables, the
 * exactly-once sink), its statement planned by Flink's planner: an interval
 * join of order events with captured payments, as the demo's "Revenue per
 * Minute" would join them.
 *  1. Catch-up: BENCH_JOIN_BACKLOG order/payment pairs are in the inputs
 *     before the job starts; the job reads them from the earliest offsets.
 *     Records per second through the join = input records / the time between
 *     the first and the last join result a READ_COMMITTED consumer sees (the
 *     first checkpoint's results left out of the count, so neither the job's
 *     start nor the wait for its first commit is in the figure).
 *  2. Steady: BENCH_JOIN_RATE pairs per second for BENCH_JOIN_SECONDS, each
 *     record carrying the wall-clock time it was handed to the producer
 *     (`producedAtMs`); end-to-end latency of a result = when the
 *     READ_COMMITTED consumer receives it − the later of its two inputs'
 *     `producedAtMs` (a result cannot exist before both). p50/p99/max.
 * Every result is checked to be there exactly once (one per pair). The
 * consumer asks with a 100 ms maximum fetch wait, so polling adds ≤ 100 ms.
 * BENCH_JOIN_CHECKPOINT_MS changes the checkpoint interval (the latency is
 * mostly the wait for the commit). Prints the figures with the load average
 * (the machine is shared); without Java 17 it says it did not run.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import kafkajs from "kafkajs";
import { cancelDerivedJob, planDerivedStatement, startDerivedJob, type DerivedInput } from "@kappa/catalog";
import { EngineUnavailableError, findJava, startFlink, type ApacheFlinkCluster } from "@kappa/engines";
import { SASL_ADMIN, startChildBroker, type ChildBroker } from "./child-broker.ts";

const BACKLOG = Number(process.env.BENCH_JOIN_BACKLOG ?? 100_000);
const RATE = Number(process.env.BENCH_JOIN_RATE ?? 250);
const SECONDS = Number(process.env.BENCH_JOIN_SECONDS ?? 30);
const CHECKPOINT_MS = Number(process.env.BENCH_JOIN_CHECKPOINT_MS ?? 5_000);
/** How long the results may take to appear before the bench gives up (the machine is shared and may be slow). */
const PATIENCE_MS = Number(process.env.BENCH_JOIN_PATIENCE_MS ?? 600_000);
const TICK_MS = 50;

const ORDERS = "orders.order-events.v1";
const PAYMENTS = "payments.payments-captured.v1";
const OUTPUT = "payments.paid-orders.v1";

const ORDER_SCHEMA = JSON.stringify({
  type: "object",
  properties: { orderId: { type: "string" }, merchant: { type: "string" }, amount: { type: "number" }, placedAt: { type: "string", format: "date-time" }, producedAtMs: { type: "integer" } },
  required: ["orderId", "merchant", "amount", "placedAt", "producedAtMs"],
});
const PAYMENT_SCHEMA = JSON.stringify({
  type: "object",
  properties: { orderId: { type: "string" }, amount: { type: "number" }, capturedAt: { type: "string", format: "date-time" }, producedAtMs: { type: "integer" } },
  required: ["orderId", "amount", "capturedAt", "producedAtMs"],
});

/** Each order joined with its payment captured within a minute of it (an interval join: results are emitted on match, not at a window's end). */
const STATEMENT = `SELECT o.orderId, o.merchant, p.amount, o.placedAt, o.producedAtMs AS orderProducedAtMs, p.producedAtMs AS paymentProducedAtMs
FROM \`${ORDERS}\` o
JOIN \`${PAYMENTS}\` p
  ON o.orderId = p.orderId AND p.capturedAt BETWEEN o.placedAt AND o.placedAt + INTERVAL '1' MINUTE`;

interface Result {
  orderId: string;
  orderProducedAtMs: number;
  paymentProducedAtMs: number;
}

const SASL = { mechanism: "scram-sha-512" as const, username: SASL_ADMIN.user, password: SASL_ADMIN.password };
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ");
const log = (line: string) => console.log(`[derived-join] ${line}`);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

function input(topicName: string, definition: string): DerivedInput {
  return { productId: topicName, topicName, name: topicName, domainId: "bench", format: "JSON_SCHEMA", definition, classification: "INTERNAL" };
}

/** One pair: the order, then its payment a second later in event time; both stamped with the time they are handed to the producer. */
function pair(id: string, now: number) {
  const placedAt = new Date(now).toISOString();
  const order = { orderId: id, merchant: `m${id.length % 7}`, amount: 10, placedAt, producedAtMs: Date.now() };
  const payment = { orderId: id, amount: 10, capturedAt: new Date(now + 1_000).toISOString(), producedAtMs: Date.now() };
  return { order: { key: id, value: JSON.stringify(order) }, payment: { key: id, value: JSON.stringify(payment) } };
}

async function main(): Promise<number> {
  try {
    findJava();
  } catch (error) {
    if (!(error instanceof EngineUnavailableError)) throw error;
    log(`NOT RUN: ${error.message} (the join runs on Apache Flink, which needs Java 17).`);
    return 0;
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "kappa-bench-join-"));
  let broker: ChildBroker | undefined;
  let flink: ApacheFlinkCluster | undefined;
  let jobId: string | undefined;
  const cleanup = async () => {
    if (flink && jobId) await cancelDerivedJob(flink.restUrl, jobId).catch(() => undefined);
    await flink?.stop().catch(() => undefined);
    await broker?.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("SIGINT", () => void cleanup().then(() => process.exit(130)));
  const loadAtStart = load();
  try {
    const started = Date.now();
    [broker, flink] = await Promise.all([
      startChildBroker(path.join(dir, "broker")),
      startFlink({ dataDir: path.join(dir, "flink"), checkpointIntervalMs: CHECKPOINT_MS, log: (line) => log(`flink: ${line}`) }),
    ]);
    log(`broker and Flink up in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const kafka = new kafkajs.Kafka({ clientId: "bench-join", brokers: [broker.bootstrap], sasl: SASL, logLevel: kafkajs.logLevel.NOTHING, retry: { retries: 8 } });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [ORDERS, PAYMENTS, OUTPUT].map((topic) => ({ topic, numPartitions: 1 })), waitForLeaders: true });
    await admin.disconnect();

    // Flink's planner derives the output columns, as validation does for a derived product.
    const inputs = [input(ORDERS, ORDER_SCHEMA), input(PAYMENTS, PAYMENT_SCHEMA)];
    const { columns, plan } = await planDerivedStatement({ gatewayUrl: flink.gatewayUrl, bootstrap: broker.bootstrap }, STATEMENT, inputs, OUTPUT);
    if (!/IntervalJoin/.test(plan)) throw new Error(`Flink did not plan an interval join:\n${plan}`);

    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    // 1. The backlog, before the job starts.
    const producing = Date.now();
    const CHUNK = 1_000;
    for (let i = 0; i < BACKLOG; i += CHUNK) {
      const pairs = Array.from({ length: Math.min(CHUNK, BACKLOG - i) }, (_, k) => pair(`b${i + k}`, Date.now()));
      await producer.sendBatch({ topicMessages: [{ topic: ORDERS, messages: pairs.map((p) => p.order) }, { topic: PAYMENTS, messages: pairs.map((p) => p.payment) }] });
    }
    log(`${BACKLOG} pairs (${2 * BACKLOG} input records) produced in ${((Date.now() - producing) / 1000).toFixed(1)} s`);

    // The consumer of the output, READ_COMMITTED: a result is visible once the checkpoint that holds it commits the sink's transaction.
    const seen = new Map<string, number>();
    const backlogArrivals: { at: number; count: number }[] = [];
    const steady: { latencyMs: number; at: number }[] = [];
    let duplicates = 0;
    const consumer = kafka.consumer({ groupId: `bench-reader-${randomBytes(3).toString("hex")}`, readUncommitted: false, maxWaitTimeInMs: 100, maxBytes: 50 * 1024 * 1024 });
    await consumer.connect();
    await consumer.subscribe({ topic: OUTPUT, fromBeginning: true });
    await consumer.run({
      eachBatch: async ({ batch }) => {
        const at = Date.now();
        let backlogCount = 0;
        for (const message of batch.messages) {
          const result = JSON.parse(message.value?.toString() ?? "{}") as Result;
          seen.set(result.orderId, (seen.get(result.orderId) ?? 0) + 1);
          if (seen.get(result.orderId) !== 1) {
            duplicates++;
            continue;
          }
          if (result.orderId.startsWith("b")) backlogCount++;
          else steady.push({ latencyMs: at - Math.max(result.orderProducedAtMs, result.paymentProducedAtMs), at });
        }
        if (backlogCount > 0) backlogArrivals.push({ at, count: backlogCount });
      },
    });

    const submitted = Date.now();
    jobId = await startDerivedJob({
      gatewayUrl: flink.gatewayUrl,
      connection: { bootstrap: broker.bootstrap, sasl: { username: SASL_ADMIN.user, password: SASL_ADMIN.password } },
      statement: STATEMENT,
      inputs: inputs.map((i) => ({ topicName: i.topicName, format: i.format, definition: i.definition })),
      outputTopic: OUTPUT,
      outputColumns: columns,
      groupId: `bench-join-${randomBytes(3).toString("hex")}`,
      transactionalIdPrefix: `bench-join-${randomBytes(3).toString("hex")}`,
      jobName: "kappa-bench:derived-join",
    });
    log(`job ${jobId} submitted in ${((Date.now() - submitted) / 1000).toFixed(1)} s; catching up on the backlog`);
    const backlogSeen = () => backlogArrivals.reduce((n, a) => n + a.count, 0);
    await until(() => backlogSeen() >= BACKLOG, `${BACKLOG} backlog results`);

    // 2. Steady rate, on the running job.
    // Every TICK_MS the pairs due by then: RATE per second exactly, evenly spread.
    const ticks = Math.round((SECONDS * 1000) / TICK_MS);
    const dueBy = (t: number) => Math.floor((RATE * t * TICK_MS) / 1000);
    const steadyStart = Date.now();
    for (let t = 0; t < ticks; t++) {
      const wait = steadyStart + t * TICK_MS - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const pairs = Array.from({ length: dueBy(t + 1) - dueBy(t) }, (_, k) => pair(`s${dueBy(t) + k}`, Date.now()));
      if (pairs.length > 0) await producer.sendBatch({ topicMessages: [{ topic: ORDERS, messages: pairs.map((p) => p.order) }, { topic: PAYMENTS, messages: pairs.map((p) => p.payment) }] });
    }
    const steadyProducedMs = Date.now() - steadyStart;
    const steadyPairs = dueBy(ticks);
    await until(() => steady.length >= steadyPairs, `${steadyPairs} steady-rate results`);
    await producer.disconnect();
    // A moment for anything duplicated to show up before the count is final.
    await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_MS + 1_000));
    await consumer.disconnect();

    // Figures.
    const first = backlogArrivals[0];
    const last = backlogArrivals.at(-1);
    const catchUpMs = first && last ? last.at - first.at : 0;
    const counted = BACKLOG - (first?.count ?? 0);
    const latencies = steady.map((s) => s.latencyMs).sort((a, b) => a - b);
    const steadySpanMs = (steady.at(-1)?.at ?? 0) - (steady[0]?.at ?? 0);
    const missing = BACKLOG + steadyPairs - seen.size;
    console.log("");
    console.log(`derived join on Apache Flink (interval join of ${ORDERS} with ${PAYMENTS}, exactly-once into ${OUTPUT})`);
    console.log(`  machine: ${os.cpus().length} cores, load average (1/5/15 min) ${loadAtStart} at start, ${load()} at end — shared with other work`);
    console.log(`  Flink: local session cluster, parallelism 1, checkpoints every ${CHECKPOINT_MS} ms; broker: embedded, child process, SASL/SCRAM`);
    if (catchUpMs > 0 && counted > 0) {
      console.log(`  catch-up: ${BACKLOG} pairs; results visible from ${new Date(first?.at ?? 0).toISOString()} for ${(catchUpMs / 1000).toFixed(1)} s (${backlogArrivals.length} fetches)`);
      console.log(`    records/s through the join: ${Math.round((2 * counted) / (catchUpMs / 1000))} input records/s = ${Math.round(counted / (catchUpMs / 1000))} results/s (first fetch's ${first?.count ?? 0} left out)`);
    } else {
      console.log(`  catch-up: all ${BACKLOG} results became visible at once (one commit): no rate to compute; raise BENCH_JOIN_BACKLOG`);
    }
    console.log(`    job submitted → last backlog result visible: ${(((last?.at ?? submitted) - submitted) / 1000).toFixed(1)} s`);
    console.log(`  steady: ${RATE} pairs/s (${2 * RATE} input records/s) offered for ${(steadyProducedMs / 1000).toFixed(1)} s, ${steadyPairs} results`);
    console.log(`    results/s seen (first to last result visible): ${steadySpanMs > 0 ? Math.round(steady.length / (steadySpanMs / 1000)) : "n/a"}`);
    console.log(`    end-to-end latency (later input produced → result visible, READ_COMMITTED): p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${latencies.at(-1) ?? "n/a"} ms`);
    console.log(`  exactly once: ${duplicates} duplicates, ${missing} missing of ${BACKLOG + steadyPairs} results`);
    return duplicates === 0 && missing === 0 ? 0 : 1;
  } catch (error) {
    if (error instanceof EngineUnavailableError) {
      log(`NOT RUN: ${error.message}`);
      return 0;
    }
    throw error;
  } finally {
    await cleanup();
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + PATIENCE_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Gave up waiting ${PATIENCE_MS / 1000} s for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
