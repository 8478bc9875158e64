// Shared test helpers: an in-process broker on an ephemeral port with its own
// data dir, a raw protocol client, and kafkajs factories with short timeouts.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Kafka, logLevel, type KafkaConfig } from "kafkajs";
import { inject } from "vitest";
import { decodeResponse, encodeRequest, type ApiKeyWithBody, type RequestInput, type ResponseBodies } from "@kappa/kafka-protocol";
import type { Logger } from "../src/broker.ts";
import { startBroker, type BrokerOptions, type RunningBroker } from "../src/index.ts";

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
 * In an oracle run (test/oracle-setup.ts) every test broker is the one Apache
 * Kafka node. What only the embedded broker has (its settings, fault control,
 * storage, log lines) throws, so a test that needs it fails saying why.
 */
function oracleBroker(bootstrap: string, options: BrokerOptions, dataDir: string | undefined): TestBroker {
  // What the oracle node was started with (test/oracle-setup.ts) is no difference.
  const same: Record<string, unknown> = { "auto.create.topics.enable": true, "group.consumer.heartbeat.interval.ms": 1000 };
  const settings = Object.keys(options).filter((k) => !["host", "port", "logger", "group.initial.rebalance.delay.ms"].includes(k) && same[k] !== (options as Record<string, unknown>)[k]);
  if (settings.length > 0 || dataDir) throw new Error(`oracle run: this test configures the embedded broker (${[...settings, ...(dataDir ? ["its data dir"] : [])].join(", ")}), which Apache Kafka's node does not take`);
  const [host, port] = [bootstrap.slice(0, bootstrap.lastIndexOf(":")), Number(bootstrap.slice(bootstrap.lastIndexOf(":") + 1))];
  const known = { host, port, advertised: bootstrap, bootstrap, dataDir: "", stop: async () => {}, cleanup: async () => {} };
  return new Proxy(known as unknown as TestBroker, {
    get(target, key, receiver) {
      if (typeof key === "string" && !(key in target) && key !== "then") throw new Error(`oracle run: the test reads the embedded broker's ${key}, which Apache Kafka does not expose`);
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
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
