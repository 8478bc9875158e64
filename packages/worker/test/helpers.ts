// Shared integration-test helpers: a real PostgreSQL database per file, the
// project's broker over TCP, catalog people and products created through the
// catalog's own actions, and a worker wired to both.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Kafka, logLevel, type KafkaConfig } from "kafkajs";
import { inject } from "vitest";
import { startBroker, type BrokerOptions, type RunningBroker } from "@kappa/broker";
import { approveProduct, createServiceAccount, registerProduct, requestSubscription, approveSubscription, submitForReview, type Db } from "@kappa/catalog";
import { createTestDatabase } from "@kappa/catalog/testing";
import type {} from "@kappa/engines/testing";
import { KafkaJsCluster, type KafkaConnectionSettings } from "../src/kafka/kafkajs-cluster.ts";
import { jsonLogger, silentLogger, type Logger } from "../src/log.ts";
import { Worker, type WorkerOptions } from "../src/worker.ts";

export const SECRETS_KEY = randomBytes(32);

export async function openTestDatabase() {
  return createTestDatabase(inject("pgAdminUrl"));
}

export const testLogger: Logger = process.env.KAPPA_TEST_WORKER_LOG === "1" ? jsonLogger({ level: "debug" }) : silentLogger;

export interface TestBroker extends RunningBroker {
  dataDir: string;
  cleanup(): Promise<void>;
}

const quietBroker = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

export async function startTestBroker(options: BrokerOptions = {}, dataDir?: string): Promise<TestBroker> {
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), "kappa-worker-broker-")));
  const broker = await startBroker({ host: "127.0.0.1", port: 0, "log.dirs": dir, "group.initial.rebalance.delay.ms": 50, logger: quietBroker, ...options });
  return {
    ...broker,
    dataDir: dir,
    cleanup: async () => {
      await broker.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** `bootstrap` may list several brokers (`host:port,host:port`), as Apache Kafka's does. */
export function clusterFor(bootstrap: string, sasl: KafkaConnectionSettings["sasl"] = null): KafkaJsCluster {
  const brokers = bootstrap.split(",");
  // A 3-node cluster creates topics and moves ACLs through its quorum: more room than one process needs.
  return new KafkaJsCluster({ brokers, sasl, ssl: false, clientId: "kappa-worker-test", connectionTimeoutMs: 1_000, requestTimeoutMs: brokers.length > 1 ? 15_000 : 5_000 }, testLogger);
}

export function kafkaClient(bootstrap: string, extra: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({ clientId: "kappa-test", brokers: bootstrap.split(","), logLevel: logLevel.NOTHING, connectionTimeout: 2000, requestTimeout: 10000, retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 }, ...extra });
}

/**
 * The Kafka clusters the worker's key integration tests run against: the
 * embedded broker (one per test file, SASL/SCRAM with the standard
 * authorizer) and the suite's shared 3-node Apache Kafka cluster
 * (test/global-setup.ts). On the shared cluster every name a test makes
 * (domains, products, accounts, hence topics and principals) carries a random
 * suffix, and nothing may kill its nodes.
 */
export type KafkaTargetKind = "embedded" | "apache";
export const KAFKA_TARGETS: readonly KafkaTargetKind[] = ["embedded", "apache"];

export interface KafkaTarget {
  kind: KafkaTargetKind;
  /** `host:port[,host:port…]` */
  bootstrap: string;
  brokers: string[];
  admin: { name: string; password: string };
  /** The worker's login (SCRAM-SHA-512 as the admin, a super user). */
  sasl: NonNullable<KafkaConnectionSettings["sasl"]>;
  /** A kafkajs client logged in as the admin (or as `extra.sasl`). */
  client(extra?: Partial<KafkaConfig>): Kafka;
  /** A kafkajs client logged in with these SCRAM-SHA-512 credentials. */
  clientAs(creds: { username: string; password: string }, extra?: Partial<KafkaConfig>): Kafka;
  /** A SCRAM-SHA-512 user the catalog knows nothing of (an intruder, an operator's tool). */
  createUser(name: string, password: string): Promise<void>;
  cleanup(): Promise<void>;
}

const EMBEDDED_ADMIN = { name: "kappa-admin", password: "admin-secret-for-tests" };

export async function startKafkaTarget(kind: KafkaTargetKind, brokerOptions: BrokerOptions = {}): Promise<KafkaTarget> {
  let bootstrap: string;
  let admin: { name: string; password: string };
  let cleanup: () => Promise<void>;
  if (kind === "embedded") {
    const broker = await startTestBroker({ listeners: "SASL_PLAINTEXT://127.0.0.1:0", "authorizer.class.name": "standard", "super.users": `User:${EMBEDDED_ADMIN.name}`, saslUsers: [EMBEDDED_ADMIN], ...brokerOptions });
    bootstrap = broker.bootstrap;
    admin = EMBEDDED_ADMIN;
    cleanup = () => broker.cleanup();
  } else {
    const shared = inject("apacheKafka") as ReturnType<typeof inject<"apacheKafka">> | undefined;
    if (!shared) throw new Error("the suite's shared Apache Kafka cluster was not started (KAPPA_WORKER_APACHE_KAFKA=off): run without it to test on Apache Kafka");
    bootstrap = shared.bootstrap;
    admin = { name: shared.adminUser, password: shared.adminPassword };
    // Shared by every file of the suite: nothing to stop here.
    cleanup = async () => {};
  }
  const sasl = { mechanism: "SCRAM-SHA-512" as const, username: admin.name, password: admin.password };
  const clientAs = (creds: { username: string; password: string }, extra: Partial<KafkaConfig> = {}) => kafkaClient(bootstrap, { sasl: { mechanism: "scram-sha-512", username: creds.username, password: creds.password }, ...extra });
  return {
    kind,
    bootstrap,
    brokers: bootstrap.split(","),
    admin,
    sasl,
    client: (extra = {}) => clientAs({ username: admin.name, password: admin.password }, extra),
    clientAs,
    createUser: async (name, password) => {
      const cluster = clusterFor(bootstrap, sasl);
      try {
        await cluster.upsertScramUser(name, "SCRAM-SHA-512", password);
      } finally {
        await cluster.close();
      }
      // Apache Kafka's brokers learn a credential from the metadata log a moment after the controller commits it.
      await waitFor(async () => {
        const c = clientAs({ username: name, password }).admin();
        await c.connect();
        await c.disconnect();
        return true;
      }, 10_000, `${name} to log in`);
    },
    cleanup,
  };
}

/** A catalog with the test people and a started worker on `target`, logged in as its admin. */
export async function startTargetStack(target: KafkaTarget, overrides: Partial<WorkerOptions> = {}, logger: Logger = testLogger) {
  const database = await openTestDatabase();
  const db = database.db;
  const people = await seedPeople(db);
  const running = startWorker(db, target.bootstrap, overrides, target.sasl, logger);
  await running.start();
  return { database, db, people, running };
}

export function workerOptions(overrides: Partial<WorkerOptions> = {}): WorkerOptions {
  return {
    workerId: `test-${randomBytes(3).toString("hex")}`,
    concurrency: 4,
    batchSize: 20,
    pollMs: 100,
    leaseMs: 5_000,
    maxAttempts: 10,
    backoffBaseMs: 200,
    backoffMaxMs: 2_000,
    reconcileIntervalMs: 3_600_000,
    observeIntervalMs: 3_600_000,
    historyHours: 48,
    retiredTopics: "delete",
    secretsKey: SECRETS_KEY,
    healthPort: 0,
    shutdownGraceMs: 2_000,
    ...overrides,
  };
}

export function startWorker(db: Db, bootstrap: string, overrides: Partial<WorkerOptions> = {}, sasl: KafkaConnectionSettings["sasl"] = null, logger: Logger = testLogger) {
  const cluster = clusterFor(bootstrap, sasl);
  const worker = new Worker(db, cluster, workerOptions(overrides), logger);
  return {
    worker,
    cluster,
    start: () => worker.start(),
    stop: async () => {
      await worker.stop();
      await cluster.close();
    },
  };
}

const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The worker as its own process (`src/main.ts`, configured by `env` as in
 * production), for tests that kill it with SIGKILL: an in-process worker
 * cannot die mid-request. Its output is drained, not shown.
 */
export function spawnWorker(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.resume();
  child.stderr?.resume();
  return child;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * How much longer than its nominal time a wait may take: these are conditions
 * to reach, not speed targets (those live in the benchmark), and CI's two cores
 * are shared with a portal build and a browser. KAPPA_TEST_WAIT_SCALE tunes it.
 */
const WAIT_SCALE = Number(process.env.KAPPA_TEST_WAIT_SCALE ?? 4);

export async function waitFor<T>(check: () => Promise<T | null | undefined | false> | T | null | undefined | false, nominalMs: number, what: string): Promise<T> {
  const timeoutMs = nominalMs * WAIT_SCALE;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v) return v;
    } catch (error) {
      lastError = error;
    }
    await sleep(50);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${lastError instanceof Error ? lastError.message : JSON.stringify(lastError)})` : ""}`);
}

/**
 * Connects a new kafkajs client per attempt until one logs in, and returns it. Not connect() again on a failed one: kafkajs
 * retries on that client's socket, and a login that timed out half-way (a slow node, one just restarted) leaves the socket
 * past its SaslHandshake, so every retry on it is ILLEGAL_SASL_STATE ("Request is not valid given the current SASL state").
 */
export async function connectFresh<C extends { connect(): Promise<void>; disconnect(): Promise<void> }>(make: () => C, nominalMs: number, what: string): Promise<C> {
  return waitFor(
    async () => {
      const client = make();
      try {
        await client.connect();
        return client;
      } catch (error) {
        await client.disconnect().catch(() => undefined);
        throw error;
      }
    },
    nominalMs,
    what,
  );
}

const avro = JSON.stringify({ type: "record", name: "Event", fields: [{ name: "id", type: "string" }] });

/** Two domains with owners and a reviewer, created directly (the catalog's own tests cover those rules). */
export async function seedPeople(db: Db) {
  const suffix = randomBytes(3).toString("hex");
  const orders = await db.domain.create({ data: { slug: `orders${suffix}`, name: "Orders" } });
  const payments = await db.domain.create({ data: { slug: `payments${suffix}`, name: "Payments" } });
  const user = (email: string, globalRole: "USER" | "GOVERNANCE" | "ADMIN" = "USER") => db.user.create({ data: { email, name: email.split("@")[0] ?? email, globalRole } });
  const ordersOwner = await user(`owner@orders-${suffix}.test`);
  const paymentsOwner = await user(`owner@payments-${suffix}.test`);
  const reviewer = await user(`reviewer@gov-${suffix}.test`, "GOVERNANCE");
  const outsider = await user(`someone@else-${suffix}.test`);
  await db.membership.createMany({
    data: [
      { userId: ordersOwner.id, domainId: orders.id, role: "OWNER" },
      { userId: paymentsOwner.id, domainId: payments.id, role: "OWNER" },
    ],
  });
  return {
    orders,
    payments,
    as: { ordersOwner: { userId: ordersOwner.id }, paymentsOwner: { userId: paymentsOwner.id }, reviewer: { userId: reviewer.id }, outsider: { userId: outsider.id } },
  };
}

/** Registers, submits and approves a product through the catalog: the provisioning tasks are queued as in the portal. */
export async function approvedProduct(db: Db, people: Awaited<ReturnType<typeof seedPeople>>, overrides: Record<string, unknown> = {}) {
  const name = (overrides.name as string | undefined) ?? `Events ${randomBytes(3).toString("hex")}`;
  const product = await registerProduct(db, people.as.ordersOwner, {
    domainId: people.orders.id,
    name,
    description: "Test events for the worker integration tests.",
    classification: "INTERNAL",
    tags: ["test"],
    freshnessSeconds: 60,
    availabilityPct: 99.9,
    partitions: 3,
    contactEmail: "owner@orders.test",
    schema: { format: "AVRO", definition: avro },
    ...overrides,
  });
  await submitForReview(db, people.as.ordersOwner, product.id);
  return approveProduct(db, people.as.reviewer, product.id);
}

/** A subscription of a payments account; `accountName` gets the domain's prefix (`<slug>-`) when it lacks it. */
export async function approvedSubscription(db: Db, people: Awaited<ReturnType<typeof seedPeople>>, productId: string, accountName: string) {
  const prefix = `${people.payments.slug}-`;
  const name = accountName.startsWith(prefix) ? accountName : `${prefix}${accountName}`;
  const account = await createServiceAccount(db, people.as.paymentsOwner, { domainId: people.payments.id, name, description: "reader" });
  const sub = await requestSubscription(db, people.as.paymentsOwner, { productId, serviceAccountId: account.id, purpose: "Reconciliation of payments against orders." });
  await approveSubscription(db, people.as.ordersOwner, sub.id);
  return { account, subscription: sub };
}

/**
 * The stack most worker integration tests run on: a SASL/SCRAM broker with the
 * ACL authorizer on and `admin` as its super user, a fresh catalog with the
 * test people, and a started worker that connects as that admin.
 */
export async function startSaslStack(admin: { name: string; password: string }, overrides: Partial<WorkerOptions> = {}) {
  const broker = await startTestBroker({ listeners: "SASL_PLAINTEXT://127.0.0.1:0", "authorizer.class.name": "standard", "super.users": `User:${admin.name}`, saslUsers: [admin] });
  const database = await openTestDatabase();
  const db = database.db;
  const people = await seedPeople(db);
  const running = startWorker(db, broker.bootstrap, overrides, { mechanism: "SCRAM-SHA-512", username: admin.name, password: admin.password });
  await running.start();
  return { broker, database, db, people, running };
}

/** Stops what startSaslStack started (each part may be missing when the start failed part-way). */
export async function stopSaslStack(stack: { running?: { stop(): Promise<void> }; database?: { dispose(): Promise<void> }; broker?: { cleanup(): Promise<void> } }): Promise<void> {
  await stack.running?.stop();
  await stack.database?.dispose();
  await stack.broker?.cleanup();
}
