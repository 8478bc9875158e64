// Shared test helpers: an in-process broker on an ephemeral port with its own
// data dir, a raw protocol client, and kafkajs factories with short timeouts.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Kafka, logLevel, type Admin, type KafkaConfig } from "kafkajs";
import { describe, inject, it } from "vitest";
import { ApiKey, ErrorCode, decodeResponse, encodeRequest, type ApiKeyWithBody, type RequestInput, type ResponseBodies } from "@kappa/kafka-protocol";
import type { Logger } from "../src/broker.ts";
import { resolveConfig, startBroker, type BrokerOptions, type RunningBroker } from "../src/index.ts";
import { ORACLE_DEFAULTS } from "./oracle-nodes.ts";

export interface TestBroker extends RunningBroker {
  dataDir: string;
  logLines: string[];
  /** Stop and delete the data dir. */
  cleanup(): Promise<void>;
}

export function memoryLogger(lines: string[]): Logger {
  const push = (level: string) => (m: string) => {
    lines.push(`${level} ${m}`);
    if (process.env.KAPPA_TEST_BROKER_LOG === "1") process.stderr.write(`[broker] ${level} ${m}\n`);
  };
  return { debug: () => {}, info: push("INFO"), warn: push("WARN"), error: push("ERROR") };
}

export async function newDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "kappa-broker-test-"));
}

export async function startTestBroker(options: BrokerOptions = {}, dataDir?: string): Promise<TestBroker> {
  const oracle = inject("brokerOracle");
  if (oracle) return oracleBroker(oracle, options, dataDir);
  const dir = dataDir ?? (await newDataDir());
  const logLines: string[] = [];
  const broker = await startBroker({
    host: "127.0.0.1",
    port: 0,
    "log.dirs": dir,
    "group.initial.rebalance.delay.ms": 50,
    logger: memoryLogger(logLines),
    ...options,
  });
  return {
    ...broker,
    dataDir: dir,
    logLines,
    cleanup: async () => {
      await broker.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Settings a test may give startTestBroker() that are Kafka's own broker
 * settings with the same name and meaning: in an oracle run they go to an
 * Apache Kafka node started with them (test/oracle-nodes.ts).
 */
const KAFKA_SETTINGS = new Set([
  "auto.create.topics.enable",
  "connections.max.idle.ms",
  "connection.failed.authentication.delay.ms",
  "default.replication.factor",
  "delete.topic.enable",
  "group.consumer.heartbeat.interval.ms",
  "group.max.session.timeout.ms",
  "group.min.session.timeout.ms",
  "max.incremental.fetch.session.cache.slots",
  "max.request.partition.size.limit",
  "message.max.bytes",
  "num.partitions",
  "sasl.enabled.mechanisms",
  "transaction.abort.timed.out.transaction.cleanup.interval.ms",
  "transactional.id.expiration.ms",
]);

/** Settings that are no difference on the oracle: its own (host, port, logger), or Kafka's behaviour by another name. */
const NO_DIFFERENCE: Record<string, (v: unknown) => boolean> = {
  host: () => true,
  port: () => true,
  logger: () => true,
  // The oracle nodes run with 50 ms too.
  "group.initial.rebalance.delay.ms": () => true,
  // The embedded broker's brute-force backoff, off: Kafka has none.
  "sasl.failed.authentication.backoff.threshold": (v) => v === 0,
};

/** What an embedded-broker-only setting or inside says in an oracle run. */
export const EMBEDDED_ONLY = "embedded-broker only";

/**
 * In an oracle run (test/oracle-setup.ts) every test broker is an Apache Kafka
 * node: the run's shared one (test/oracle-setup.ts) for a test without
 * settings, else one started with the Kafka equivalents of the test's settings
 * (listeners SASL_PLAINTEXT/PLAINTEXT, SASL users, the standard authorizer and
 * super users, KAFKA_SETTINGS). What only the embedded broker has (its other
 * settings, its data dir, fault control, storage, log lines) throws, saying so.
 */
async function oracleBroker(bootstrap: string, options: BrokerOptions, dataDir: string | undefined): Promise<TestBroker> {
  const given = options as Record<string, unknown>;
  const embeddedOnly: string[] = [];
  const overrides: Record<string, string> = {};
  for (const [key, value] of Object.entries(given)) {
    if (value === undefined || NO_DIFFERENCE[key]?.(value)) continue;
    if (KAFKA_SETTINGS.has(key)) {
      const v = typeof value === "string" ? value : JSON.stringify(value);
      // What every oracle node already runs with needs no node of its own.
      if (ORACLE_DEFAULTS[key] !== v) overrides[key] = v;
    }
    else if (!["listeners", "saslUsers", "authorizer.class.name", "super.users"].includes(key)) embeddedOnly.push(key);
  }
  const listenerSpecs = typeof given.listeners === "string" ? given.listeners.split(",").map((l) => l.trim().split("://")[0] ?? "") : [];
  if (listenerSpecs.some((p) => p !== "PLAINTEXT" && p !== "SASL_PLAINTEXT") || new Set(listenerSpecs).size !== listenerSpecs.length) embeddedOnly.push(`listeners ${String(given.listeners)}`);
  const authorizer = given["authorizer.class.name"];
  if (authorizer !== undefined && authorizer !== null && authorizer !== "standard" && authorizer !== "org.apache.kafka.metadata.authorizer.StandardAuthorizer") embeddedOnly.push(`authorizer.class.name ${JSON.stringify(authorizer)}`);
  if (embeddedOnly.length > 0 || dataDir) throw new Error(`oracle run: this test configures the embedded broker with what the oracle has no Apache Kafka equivalent for (${[...embeddedOnly, ...(dataDir ? ["its data dir"] : [])].join(", ")})` + "; mark it embeddedOnly() if it is about the embedded broker alone");

  let endpoints: Array<{ name: string; port: number }>;
  let config: Record<string, unknown> = { "node.id": 1 };
  if (Object.keys(overrides).length === 0 && listenerSpecs.length === 0 && authorizer == null && !given.saslUsers) {
    const port = Number(bootstrap.slice(bootstrap.lastIndexOf(":") + 1));
    endpoints = [{ name: "PLAINTEXT", port }];
  } else {
    const { oracleNode } = await import("./oracle-nodes.ts");
    const secured = authorizer != null;
    const wantsOpen = listenerSpecs.length === 0 || listenerSpecs.includes("PLAINTEXT");
    const users = ((given.saslUsers as Array<{ name: string; password: string }> | undefined) ?? []).map((u) => ({ name: u.name, password: u.password }));
    const superUsers = typeof given["super.users"] === "string" ? given["super.users"] : "";
    const cluster = await oracleNode({
      overrides: {
        // The embedded broker's default mechanism list (its order is what UNSUPPORTED_SASL_MECHANISM lists), unless the test names one.
        "sasl.enabled.mechanisms": resolveConfig({})["sasl.enabled.mechanisms"],
        ...overrides,
        // Without an authorizer the embedded broker allows everything and its ACL APIs answer SECURITY_DISABLED:
        // so does a Kafka node without one (an empty authorizer.class.name, Kafka's default).
        ...(secured
          ? { "allow.everyone.if.no.acl.found": "false", "super.users": ["User:kappa-admin", ...superUsers.split(";").map((s) => s.trim()).filter((s) => s !== "")].join(";") }
          : { "authorizer.class.name": "" }),
      },
      users,
      openListener: wantsOpen,
      openSuperUser: !secured,
    });
    const saslPort = Number(cluster.bootstrap.slice(cluster.bootstrap.lastIndexOf(":") + 1));
    const openPort = cluster.openBootstrap ? Number(cluster.openBootstrap.slice(cluster.openBootstrap.lastIndexOf(":") + 1)) : 0;
    endpoints = (listenerSpecs.length === 0 ? ["PLAINTEXT"] : listenerSpecs).map((p) => ({ name: p, port: p === "PLAINTEXT" ? openPort : saslPort }));
    config = { ...config, ...given };
  }
  const first = endpoints[0]!;
  const listeners = endpoints.map((e) => ({ name: e.name, securityProtocol: e.name, host: "127.0.0.1", port: e.port, boundPort: e.port, advertisedHost: "127.0.0.1", advertisedPort: e.port }));
  const known = { host: "127.0.0.1", port: first.port, advertised: `127.0.0.1:${first.port}`, bootstrap: `127.0.0.1:${first.port}`, listeners, config, dataDir: "", stop: async () => {}, cleanup: async () => {} };
  return new Proxy(known as unknown as TestBroker, {
    get(target, key, receiver) {
      if (typeof key === "string" && !(key in target) && key !== "then") throw new Error(`oracle run: ${EMBEDDED_ONLY} — the test reads the embedded broker's ${key}, which Apache Kafka does not expose`);
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

/**
 * True in an oracle run. For a Kafka-behaviour test's one check of the
 * embedded broker's insides (a log line): `if (!oracleRun()) expect(…)`, the
 * rest of the test runs on both.
 */
export function oracleRun(): boolean {
  return !!inject("brokerOracle");
}

/**
 * Marks tests about the embedded broker alone (its files, crash recovery,
 * fault control, log lines, settings Kafka does not have). They run as usual
 * in `npm test`; an oracle run lists them, skipped, under a title that says
 * "embedded-broker only" and why — never counted as Kafka behaviour.
 */
export function embeddedOnly(reason: string): { describe: typeof describe; it: typeof it } {
  if (!inject("brokerOracle")) return { describe, it };
  const title = (name: unknown) => `[${EMBEDDED_ONLY}: ${reason}] ${String(name)}`;
  const d = ((name: string, ...rest: unknown[]) => describe.skip(title(name), ...(rest as [])) ) as unknown as typeof describe;
  const t = ((name: string, ...rest: unknown[]) => it.skip(title(name), ...(rest as []))) as unknown as typeof it;
  return { describe: d, it: t };
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString("hex")}`;
}

export function kafkaClient(bootstrap: string, extra: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({
    clientId: "kappa-test",
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    requestTimeout: 15000,
    retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 2000 },
    ...extra,
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/**
 * A minimal raw Kafka client over one socket, for testing the wire behaviour
 * that real clients never exercise (unsupported versions, pipelining, acks=0).
 */
export class RawClient {
  private buf = Buffer.alloc(0);
  private readonly frames: Buffer[] = [];
  private waiters: Array<() => void> = [];
  closed = false;
  private correlation = 1;

  private constructor(readonly socket: Socket) {
    socket.on("data", (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      while (this.buf.length >= 4) {
        const size = this.buf.readInt32BE(0);
        if (this.buf.length < 4 + size) break;
        this.frames.push(this.buf.subarray(4, 4 + size));
        this.buf = this.buf.subarray(4 + size);
      }
      this.wake();
    });
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
    socket.on("error", () => {});
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** `localAddress` (e.g. 127.0.0.2, any loopback address on Linux) is the client address the broker sees. */
  static connect(port: number, host = "127.0.0.1", localAddress?: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = connect({ port, host, ...(localAddress ? { localAddress } : {}) }, () => resolve(new RawClient(s)));
      s.once("error", reject);
    });
  }

  nextCorrelationId(): number {
    return this.correlation++;
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  send<K extends ApiKeyWithBody>(apiKey: K, apiVersion: number, body: RequestInput<K>, correlationId = this.nextCorrelationId()): number {
    this.write(encodeRequest({ apiKey, apiVersion, correlationId, clientId: "raw-test" }, body));
    return correlationId;
  }

  /** Next response frame (without size prefix), or null if the connection closed first. */
  async nextFrame(timeoutMs = 5000): Promise<Buffer | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const f = this.frames.shift();
      if (f) return f;
      if (this.closed) return null;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("timed out waiting for a response frame");
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async request<K extends ApiKeyWithBody>(apiKey: K, apiVersion: number, body: RequestInput<K>): Promise<{ correlationId: number; body: ResponseBodies[K] }> {
    const id = this.send(apiKey, apiVersion, body);
    const frame = await this.nextFrame();
    if (!frame) throw new Error(`connection closed before the response to correlation id ${id}`);
    const decoded = decodeResponse(apiKey, apiVersion, frame);
    if (decoded.correlationId !== id) throw new Error(`expected correlation id ${id}, got ${decoded.correlationId}`);
    return decoded;
  }

  /** Resolves true once the broker has closed the connection. */
  async waitClosed(timeoutMs = 5000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) await sleep(10);
    return this.closed;
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * Waits until Metadata shows `topic` with a leader for every partition. Kafka
 * answers CreateTopics once the controller committed the topic; its broker may
 * host the partitions a moment later (until then Produce gets
 * NOT_LEADER_OR_FOLLOWER), so clients wait as kafkajs' createTopics does.
 */
export async function awaitTopicReady(c: RawClient, topic: string, timeoutMs = 15_000): Promise<void> {
  await waitFor(
    async () => {
      const meta = await c.request(ApiKey.Metadata, 8, { topics: [{ name: topic }], allowAutoTopicCreation: false });
      const t = meta.body.topics[0];
      return !!t && t.errorCode === 0 && t.partitions.length > 0 && t.partitions.every((p) => p.errorCode === 0 && p.leaderId >= 0);
    },
    timeoutMs,
    `topic ${topic} to have leaders`,
  );
}

/**
 * Kafka's broker shows a new partition's leader in Metadata a moment before its
 * replica manager serves the partition (the metadata cache is updated first):
 * until then a Fetch answers it NOT_LEADER_OR_FOLLOWER or
 * UNKNOWN_TOPIC_OR_PARTITION, and a consumer refreshes its metadata and fetches
 * again. This waits, as that consumer does, until a sessionless Fetch of every
 * partition answers NONE (after awaitTopicReady).
 */
export async function awaitFetchable(c: RawClient, topic: string, partitions = 1, timeoutMs = 15_000): Promise<void> {
  await awaitTopicReady(c, topic, timeoutMs);
  await waitFor(
    async () => {
      const r = await c.request(ApiKey.Fetch, 11, {
        replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
        topics: [{ topic, partitions: Array.from({ length: partitions }, (_, partition) => ({ partition, fetchOffset: 0n, partitionMaxBytes: 1, logStartOffset: -1n, currentLeaderEpoch: -1 })) }],
        forgottenTopicsData: [], rackId: "",
      });
      const answered = r.body.responses.flatMap((t) => t.partitions);
      return r.body.errorCode === 0 && answered.length === partitions && answered.every((p) => p.errorCode === 0);
    },
    timeoutMs,
    `every partition of ${topic} to be served by Fetch`,
  );
}

/**
 * kafkajs 2.2.4's `admin.createTopics` waits for leaders but retries only
 * LEADER_NOT_AVAILABLE, while Kafka 4.x answers Metadata for a topic its
 * controller created and its broker has not loaded yet with
 * UNKNOWN_TOPIC_OR_PARTITION, which kafkajs then throws although the topic was
 * created. This creates without kafkajs' wait and waits until Metadata shows a
 * leader for every partition, as the caller of any admin client must.
 */
export async function createTopicsReady(admin: Admin, options: Parameters<Admin["createTopics"]>[0]): Promise<boolean> {
  const created = await admin.createTopics({ ...options, waitForLeaders: false });
  const names = options.topics.map((t) => t.topic);
  await waitFor(
    async () => {
      try {
        const { topics } = await admin.fetchTopicMetadata({ topics: names });
        return topics.length === names.length && topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.partitionErrorCode === 0 && p.leader >= 0));
      } catch {
        return false;
      }
    },
    15_000,
    `topics ${names.join(", ")} to have leaders`,
  );
  return created;
}

/** What a coordinator answers while the partition of its internal topic that holds the key is not loaded yet. */
const COORDINATOR_LOADING: ReadonlySet<number> = new Set([ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR]);

/**
 * Waits until the coordinator of a group (keyType 0) or transactional id (1)
 * serves it. Kafka creates __consumer_offsets / __transaction_state at the
 * first FindCoordinator and answers COORDINATOR_NOT_AVAILABLE until the topic
 * has leaders; the coordinator then answers COORDINATOR_LOAD_IN_PROGRESS or
 * NOT_COORDINATOR until the key's partition is loaded. Clients retry both
 * (kafkajs finds the coordinator again); so does this, asking DescribeGroups
 * or DescribeTransactions for the key, which change nothing.
 */
export async function awaitCoordinator(c: RawClient, key: string, keyType = 0, timeoutMs = 30_000): Promise<void> {
  await waitFor(
    async () => {
      if ((await c.request(ApiKey.FindCoordinator, 2, { key, keyType })).body.errorCode !== ErrorCode.NONE) return false;
      const code =
        keyType === 0
          ? (await c.request(ApiKey.DescribeGroups, 4, { groups: [key], includeAuthorizedOperations: false })).body.groups[0]?.errorCode
          : (await c.request(ApiKey.DescribeTransactions, 0, { transactionalIds: [key] })).body.transactionStates[0]?.errorCode;
      return code !== undefined && !COORDINATOR_LOADING.has(code);
    },
    timeoutMs,
    `the coordinator of ${key}`,
  );
}

/**
 * Repeats a request while it answers that a coordinator is not ready
 * (COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR),
 * as clients retry those. Kafka's InitProducerId, for instance, answers
 * COORDINATOR_LOAD_IN_PROGRESS until its broker holds a block of producer ids
 * from the controller.
 */
export async function retryWhileLoading<T>(call: () => Promise<T>, code: (r: T) => number | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await call();
    const c = code(r);
    if (c === undefined || !COORDINATOR_LOADING.has(c) || Date.now() > deadline) return r;
    await sleep(50);
  }
}

/** A broker running `src/cli.ts` in its own node process, for tests that kill it. */
export interface ChildBroker {
  /** The broker process, or with `parentNeverReaps` the `sleep` that is its parent. */
  proc: ChildProcess;
  port: number;
  /** Bound port of each listener by name (from the ready line). */
  listeners: Record<string, number>;
  stderr: () => string;
}

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Starts `src/cli.ts` with `cliArgs` in its own node process (no tsx wrapper,
 * so SIGKILL hits the broker itself), records it in `children` for cleanup,
 * and resolves with the port from its ready line.
 */
export async function startChildBroker(cliArgs: string[], children: ChildProcess[], opts: { parentNeverReaps?: boolean } = {}): Promise<ChildBroker> {
  const args = ["--import", "tsx", "src/cli.ts", ...cliArgs];
  // parentNeverReaps: the broker runs under `sleep` (sh forks it, then execs sleep), which never calls wait(),
  // so after a SIGKILL the broker stays a zombie (state Z) until the sleep is killed.
  const proc = opts.parentNeverReaps
    ? spawn("sh", ["-c", '"$@" & exec sleep 600', "sh", process.execPath, ...args], { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"] })
    : spawn(process.execPath, args, { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"] });
  children.push(proc);
  let out = "";
  let err = "";
  proc.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const listeners: Record<string, number> = {};
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`broker did not become ready:\n${err}`)), 20_000);
    proc.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /kappa-broker ready on 127\.0\.0\.1:(\d+) \(listening on ([^)]*?), node/.exec(out);
      if (m) {
        clearTimeout(timer);
        for (const l of (m[2] ?? "").split(", ")) {
          const lm = /^([A-Z_]+):\/\/.*:(\d+)$/.exec(l);
          if (lm) listeners[lm[1]!] = Number(lm[2]);
        }
        resolve(Number(m[1]));
      }
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`broker exited with ${code} before becoming ready:\n${err}`));
    });
  });
  return { proc, port, listeners, stderr: () => err };
}

/** SIGKILL, resolved once the process is gone (at once if it already is). */
export function killHard(c: ChildBroker): Promise<void> {
  return new Promise((resolve) => {
    if (c.proc.exitCode !== null || c.proc.signalCode !== null) return resolve();
    c.proc.once("exit", () => resolve());
    c.proc.kill("SIGKILL");
  });
}
