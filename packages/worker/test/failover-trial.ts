/*
 * One failover trial (issue 35), shared by the failover test and
 * `npm run bench:failover`: a client produces numbered records with
 * acks=all to a fresh topic whose partitions all have the same leader; once
 * about a third of them are in the log, that leader is killed with SIGKILL and
 * started again; then everything is read back and compared with what the
 * client reported as acknowledged. A kafkajs group consumer reads the topic
 * through the same failover, and its committed offsets are compared with
 * what it processed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import kafkajs, { type Admin, type Consumer } from "kafkajs";
import { engineJvmOptions, ensureApacheKafka, findJava, type ApacheKafkaCluster } from "@kappa/engines";
import { BENCH_SASL, startChildBroker } from "../bench/child-broker.ts";
import { openProducer } from "../src/kafka/producer.ts";

const { Kafka, logLevel } = kafkajs;

/** The producers a trial can drive: the platform's module, kafkajs 2.2.4 as the issue used it, Kafka's Java producer. */
export type FailoverClient = "platform" | "kafkajs" | "java";

export interface FailoverTarget {
  /** What the trial prints (e.g. "Apache Kafka 4.1.2, 3 nodes"). */
  name: string;
  brokers: () => string[];
  sasl?: { mechanism: "SCRAM-SHA-512"; username: string; password: string };
  /** Replica assignment for a topic all of whose partitions the node to kill leads (none for a single node). */
  assignment?: (leader: number, partitions: number) => { partition: number; replicas: number[] }[];
  /** Node ids to take turns killing. */
  nodes: number[];
  kill(node: number): Promise<void>;
  restart(node: number): Promise<void>;
  /** Kafka's Java tools (for the Java producer); absent where there is no JVM cluster. */
  cluster?: ApacheKafkaCluster;
}

export interface FailoverOptions {
  client: FailoverClient;
  /** Records in the log before the kill (default 5,000). */
  killAfter?: number;
  /** Records per second the client is offered (default 2,000). */
  rate?: number;
  /** How long the client goes on after the killed node is back (default 15 s). */
  settleMs?: number;
  partitions?: number;
  /** Records per send (JavaScript clients). */
  batch?: number;
  /** Concurrent send loops (JavaScript clients). */
  concurrency?: number;
  /** Which node of `target.nodes` to kill (by index). */
  round?: number;
  /** Run the kafkajs group consumer through the failover and check its commits. */
  groupConsumer?: boolean;
  log?: (line: string) => void;
}

export interface FailoverResult {
  client: FailoverClient;
  /** For the platform producer: the client it chose. */
  via?: string;
  topic: string;
  killed: number;
  attempted: number;
  /** Records the client reported as acknowledged. */
  acknowledged: number;
  /** Records whose send the client reported as failed (their outcome is unknown). */
  failed: number;
  /** Acknowledged records not in the log. */
  lost: number;
  lostSample: number[];
  /** Extra copies in the log (a record present twice counts 1). */
  duplicated: number;
  /** Records in the log that were never sent (must be 0). */
  foreign: number;
  /** Records in the log (read back) and the sum of the partitions' offset ranges: equal unless the reader skipped. */
  inLog: number;
  offsetRange: number;
  group?: GroupCheck;
}

export interface GroupCheck {
  /** Partitions whose committed offset is past what the group consumer had processed. */
  committedPastProcessed: string[];
  /** Acknowledged records the group consumer never processed. */
  missed: number;
  processed: number;
}

function kafkaFor(target: FailoverTarget, clientId: string) {
  return new Kafka({
    clientId,
    brokers: target.brokers(),
    ...(target.sasl ? { sasl: { mechanism: "scram-sha-512", username: target.sasl.username, password: target.sasl.password } } : {}),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 5_000,
    requestTimeout: 30_000,
    retry: { retries: 10, initialRetryTime: 300, maxRetryTime: 3_000 },
  });
}

async function endOffsets(admin: Admin, topic: string): Promise<{ partition: number; low: bigint; high: bigint }[]> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return offsets.map((o) => ({ partition: o.partition, low: BigInt(o.low), high: BigInt(o.high) }));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(check: () => Promise<T | false | undefined>, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v) return v;
    } catch (error) {
      last = error;
    }
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what}${last instanceof Error ? ` (${last.message})` : ""}`);
}

interface ProduceOutcome {
  acked: number[];
  failed: number;
  attempted: number;
  /** The platform producer's choice of client. */
  via?: string;
}

/** A client producing until told to stop. */
interface Production {
  outcome: Promise<ProduceOutcome>;
  stop(): void;
}

/** JavaScript clients: `concurrency` loops take the next `batch` numbers and send them, at about `rate` records/s; a resolved send acknowledges them. */
function produceJs(target: FailoverTarget, topic: string, options: { client: "platform" | "kafkajs"; rate: number; batch: number; concurrency: number }): Production {
  let stopped = false;
  const outcome = (async () => {
    const acked: number[] = [];
    let failed = 0;
    let next = 0;
    let send: (values: number[]) => Promise<unknown>;
    let close: () => Promise<void>;
    let via: () => string | undefined = () => undefined;
    if (options.client === "platform") {
      const producer = openProducer({ clientId: "failover-platform", brokers: target.brokers(), ...(target.sasl ? { sasl: target.sasl } : {}) });
      send = (values) => producer.send(values.map((v) => ({ topic, key: String(v), value: String(v) })));
      close = () => producer.close();
      via = () => producer.client() ?? undefined;
    } else {
      // As the issue ran it: idempotent, one request in flight, retries on.
      const producer = kafkaFor(target, "failover-kafkajs").producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
      await producer.connect();
      send = (values) => producer.send({ topic, acks: -1, messages: values.map((v) => ({ key: String(v), value: String(v) })) });
      close = () => producer.disconnect();
    }
    const started = Date.now();
    const loop = async () => {
      while (!stopped) {
        const due = started + (next / options.rate) * 1000;
        if (due > Date.now()) await sleep(due - Date.now());
        if (stopped) break;
        const values = Array.from({ length: options.batch }, (_, i) => next + i);
        next += values.length;
        try {
          await send(values);
          acked.push(...values);
        } catch {
          failed += values.length;
          await sleep(200);
        }
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, loop));
    await close().catch(() => undefined);
    return { acked, failed, attempted: next, via: via() };
  })();
  return { outcome, stop: () => void (stopped = true) };
}

/**
 * Kafka's Java producer: VerifiableProducer (idempotent, acks=all) from the
 * pinned release prints one JSON line per acknowledged or failed record;
 * values are 0, 1, 2, … SIGTERM makes it close the producer (waiting for
 * what is in flight) and exit.
 */
function produceJava(target: FailoverTarget, topic: string, rate: number): Production {
  const cluster = target.cluster;
  if (!cluster) throw new Error(`${target.name} has no Java tools`);
  const config = path.join(cluster.dataDir, `verifiable-producer-${topic}.properties`);
  writeFileSync(config, `${readFileSync(cluster.adminClientConfig, "utf8")}\nenable.idempotence=true\nacks=all\nretries=2147483647\nlinger.ms=5\n`, { mode: 0o600 });
  let child: ChildProcess | undefined;
  let stopRequested = false;
  const outcome = (async () => {
    const libs = await ensureApacheKafka();
    const proc = spawn(findJava(), ["-Xmx256m", ...engineJvmOptions(), "-cp", path.join(libs, "*"), "org.apache.kafka.tools.VerifiableProducer", "--bootstrap-server", cluster.bootstrap, "--topic", topic, "--throughput", String(rate), "--acks", "-1", "--producer.config", config], { cwd: cluster.dataDir, stdio: ["ignore", "pipe", "pipe"] });
    child = proc;
    if (stopRequested) proc.kill("SIGTERM");
    const acked: number[] = [];
    let failed = 0;
    let tail = "";
    let errTail = "";
    proc.stderr.on("data", (d: Buffer) => (errTail = (errTail + d.toString()).slice(-2000)));
    proc.stdout.on("data", (d: Buffer) => {
      const lines = (tail + d.toString()).split("\n");
      tail = lines.pop() ?? "";
      for (const line of lines) {
        if (!line.startsWith("{")) continue;
        const event = JSON.parse(line) as { name?: string; value?: string };
        if (event.name === "producer_send_success") acked.push(Number(event.value));
        else if (event.name === "producer_send_error") failed += 1;
      }
    });
    const code = await new Promise<number | null>((resolve) => proc.once("close", (c) => resolve(c)));
    if (acked.length === 0) throw new Error(`VerifiableProducer acknowledged nothing (exit ${code}): ${errTail}`);
    return { acked, failed, attempted: acked.length + failed };
  })();
  return {
    outcome,
    stop: () => {
      stopRequested = true;
      child?.kill("SIGTERM");
    },
  };
}

/** Reads the whole topic with a fresh group from the beginning until every partition's end offset. */
async function readAll(target: FailoverTarget, topic: string, ends: { partition: number; high: bigint }[]): Promise<{ value: number; partition: number; offset: bigint }[]> {
  const consumer = kafkaFor(target, "failover-reader").consumer({ groupId: `failover-reader-${topic}`, allowAutoTopicCreation: false });
  const seen: { value: number; partition: number; offset: bigint }[] = [];
  const reached = new Map<number, bigint>();
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        seen.push({ value: Number(message.value?.toString()), partition, offset: BigInt(message.offset) });
        reached.set(partition, BigInt(message.offset) + 1n);
      },
    });
    await until(async () => ends.every((e) => e.high === 0n || (reached.get(e.partition) ?? 0n) >= e.high), 180_000, `the reader to reach the end of ${topic}`);
  } finally {
    await consumer.disconnect();
  }
  return seen;
}

export async function failoverTrial(target: FailoverTarget, options: FailoverOptions): Promise<FailoverResult> {
  const log = options.log ?? (() => {});
  const partitions = options.partitions ?? 3;
  const killed = target.nodes[(options.round ?? 0) % target.nodes.length]!;
  const topic = `failover-${options.client}-${Date.now().toString(36)}`;
  const kafka = kafkaFor(target, "failover-admin");
  const admin = kafka.admin();
  await admin.connect();
  let group: { consumer: Consumer; processed: Map<number, Set<bigint>>; values: Set<number>; groupId: string } | undefined;
  try {
    await admin.createTopics({
      topics: [{ topic, ...(target.assignment ? { replicaAssignment: target.assignment(killed, partitions) } : { numPartitions: partitions }) }],
      waitForLeaders: false,
    });
    await until(async () => {
      const meta = await admin.fetchTopicMetadata({ topics: [topic] });
      const parts = meta.topics[0]?.partitions ?? [];
      return parts.length === partitions && parts.every((p) => p.leader >= 0 && (!target.assignment || (p.leader === killed && p.isr.length === target.nodes.length)));
    }, 60_000, `leaders for ${topic}`);
    if (options.groupConsumer) {
      const groupId = `failover-group-${topic}`;
      const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false, sessionTimeout: 10_000, heartbeatInterval: 1_000 });
      const processed = new Map<number, Set<bigint>>();
      const values = new Set<number>();
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          let set = processed.get(partition);
          if (!set) processed.set(partition, (set = new Set()));
          set.add(BigInt(message.offset));
          values.add(Number(message.value?.toString()));
        },
      });
      group = { consumer, processed, values, groupId };
    }

    const started = Date.now();
    const rate = options.rate ?? 2_000;
    const production = options.client === "java" ? produceJava(target, topic, rate) : produceJs(target, topic, { client: options.client, rate, batch: options.batch ?? 50, concurrency: options.concurrency ?? 4 });
    let done = false;
    void production.outcome.finally(() => (done = true)).catch(() => undefined);
    let outcome: ProduceOutcome;
    try {
      // Kill the leader once `killAfter` records are in the log; start it again while the client goes on.
      const killAfter = BigInt(options.killAfter ?? 5_000);
      await until(async () => done || (await endOffsets(admin, topic)).reduce((s, o) => s + o.high, 0n) >= killAfter, 300_000, `${killAfter} records in ${topic}`);
      if (done) await production.outcome;
      if (done) throw new Error(`the ${options.client} client stopped before the kill`);
      log(`${options.client}: killing node ${killed} (leader of ${topic}) after ${((Date.now() - started) / 1000).toFixed(1)} s`);
      await target.kill(killed);
      await target.restart(killed);
      log(`${options.client}: node ${killed} back after ${((Date.now() - started) / 1000).toFixed(1)} s`);
      // Long enough for the controller to hand the partitions back to their preferred leader (a second leader change).
      await sleep(options.settleMs ?? 15_000);
    } finally {
      production.stop();
      outcome = await production.outcome;
    }
    log(`${options.client}: ${outcome.acked.length} acknowledged, ${outcome.failed} failed in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const ends = await until(async () => endOffsets(admin, topic), 60_000, "end offsets");
    const seen = await readAll(target, topic, ends);
    const counts = new Map<number, number>();
    for (const s of seen) counts.set(s.value, (counts.get(s.value) ?? 0) + 1);
    const lostValues = outcome.acked.filter((v) => !counts.has(v));
    const duplicated = [...counts.values()].reduce((s, c) => s + (c - 1), 0);
    const foreign = [...counts.keys()].filter((v) => !Number.isInteger(v) || v < 0 || v >= outcome.attempted).length;
    const result: FailoverResult = {
      client: options.client,
      ...(outcome.via ? { via: outcome.via } : {}),
      topic,
      killed,
      attempted: outcome.attempted,
      acknowledged: outcome.acked.length,
      failed: outcome.failed,
      lost: lostValues.length,
      lostSample: lostValues.slice(0, 10),
      duplicated,
      foreign,
      inLog: seen.length,
      offsetRange: Number(ends.reduce((s, e) => s + (e.high - e.low), 0n)),
    };

    if (group) {
      const g = group;
      await until(async () => ends.every((e) => e.high === 0n || g.processed.get(e.partition)?.has(e.high - 1n)), 180_000, "the group consumer to reach the end");
      await g.consumer.disconnect();
      const committed = await admin.fetchOffsets({ groupId: g.groupId, topics: [topic] });
      const committedPastProcessed: string[] = [];
      for (const p of committed[0]?.partitions ?? []) {
        const upTo = BigInt(p.offset);
        const done = g.processed.get(p.partition) ?? new Set<bigint>();
        const low = ends.find((e) => e.partition === p.partition)?.low ?? 0n;
        for (let o = low; o < upTo; o++) {
          if (!done.has(o)) {
            committedPastProcessed.push(`${topic}-${p.partition}: committed ${upTo}, offset ${o} never processed`);
            break;
          }
        }
      }
      result.group = { committedPastProcessed, missed: outcome.acked.filter((v) => !g.values.has(v)).length, processed: [...g.processed.values()].reduce((s, set) => s + set.size, 0) };
      group = undefined;
    }
    return result;
  } finally {
    await group?.consumer.disconnect().catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
  }
}

/** Broker settings of a failover cluster: groups start at once; leader balance is checked every 5 s, so a restarted node leads its partitions again within the trial. */
export const FAILOVER_OVERRIDES = { "group.initial.rebalance.delay.ms": "0", "leader.imbalance.check.interval.seconds": "5" };

/** The 3-node Apache Kafka cluster as a target: every partition of a trial's topic led by the node to kill. */
export function apacheKafkaTarget(cluster: ApacheKafkaCluster): FailoverTarget {
  return {
    name: `Apache Kafka ${cluster.version}, ${cluster.nodes.length} KRaft nodes`,
    brokers: () => cluster.brokers,
    sasl: { mechanism: "SCRAM-SHA-512", username: cluster.adminUser, password: cluster.adminPassword },
    assignment: (leader, partitions) => {
      const others = cluster.nodes.map((n) => n.id).filter((id) => id !== leader);
      return Array.from({ length: partitions }, (_, partition) => ({ partition, replicas: [leader, ...(partition % 2 === 0 ? others : [...others].reverse())] }));
    },
    nodes: cluster.nodes.map((n) => n.id),
    kill: (node) => cluster.kill(node),
    restart: (node) => cluster.restart(node),
    cluster,
  };
}

/** The project's embedded broker (one node, in its own process) as a target: kill -9, then a restart on the same data folder and port. */
export async function embeddedBrokerTarget(dataDir: string): Promise<FailoverTarget & { stop(): Promise<void> }> {
  let broker = await startChildBroker(dataDir);
  const port = broker.port;
  return {
    name: "the embedded broker, one node",
    brokers: () => [`127.0.0.1:${port}`],
    sasl: BENCH_SASL,
    nodes: [1],
    kill: () => broker.kill(),
    restart: async () => {
      broker = await startChildBroker(dataDir, {}, port);
    },
    stop: () => broker.stop(),
  };
}
