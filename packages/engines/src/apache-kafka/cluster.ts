import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import path from "node:path";
import { ENGINES_DIR, engineJvmOptions, ensureArtifacts, findJava, freePort, run, sleep, waitForExit } from "../tools.ts";

/** The pinned release (apache-kafka/pom.xml); the README and docker-compose.yml name the same. */
export const APACHE_KAFKA_VERSION = "4.1.2";

const KAFKA_DIR = path.join(ENGINES_DIR, "apache-kafka");
const COMMON_PROPERTIES = path.join(KAFKA_DIR, "cluster.properties");

/** Resolves the pinned Apache Kafka release into the engines cache (once) and answers its folder of jars. */
export function ensureApacheKafka(log?: (line: string) => void): Promise<string> {
  return ensureArtifacts(`apache-kafka-${APACHE_KAFKA_VERSION}`, path.join(KAFKA_DIR, "pom.xml"), log);
}

export interface ApacheKafkaOptions {
  /** 1 (a combined broker/controller) or 3 (a quorum of 3 combined nodes). */
  nodes: 1 | 3;
  /** Folder for the cluster's logs, metadata, tiered storage and node logs; kept between starts of the same cluster. */
  dataDir: string;
  adminUser?: string;
  adminPassword?: string;
  /** Client ports per node (default: free ports; a kept cluster reuses the ports of its first start). */
  ports?: number[];
  /** Broker settings that differ from apache-kafka/cluster.properties (e.g. `flush.messages=1` for the benchmark). */
  overrides?: Record<string, string>;
  /** The JVM heap per node (default 512 MiB). */
  heapMb?: number;
  /**
   * Oracle and benchmark runs only, never the product: one more listener per
   * node without authentication (`OPEN`, PLAINTEXT), whose ANONYMOUS
   * principal is a super user — so that tests written for an unsecured broker
   * and clients that cannot do SCRAM with Kafka 4.x reach the same cluster.
   */
  openListener?: boolean;
  /** With `openListener`: whether its ANONYMOUS principal is a super user (default true). */
  openListenerSuperUser?: boolean;
  /**
   * Oracle runs only: more users beside the admin, each created at format time
   * with SCRAM-SHA-512 and SCRAM-SHA-256 credentials and a static PLAIN entry
   * on the client listener. Not super users.
   */
  users?: ReadonlyArray<{ name: string; password: string }>;
  log?: (line: string) => void;
}

export interface ApacheKafkaNode {
  id: number;
  port: number;
  controllerPort: number;
  /** The node's server log (Log4j 2). */
  logFile: string;
  pid(): number | undefined;
  running(): boolean;
}

export interface ApacheKafkaCluster {
  version: string;
  /** `127.0.0.1:p1,127.0.0.1:p2,…` */
  bootstrap: string;
  /** The unauthenticated listener's bootstrap, with `openListener` (else null). */
  openBootstrap: string | null;
  brokers: string[];
  adminUser: string;
  adminPassword: string;
  nodes: ApacheKafkaNode[];
  dataDir: string;
  /** The folder LocalTieredStorage writes remote segments to. */
  remoteDir: string;
  /** Kills one node (`SIGKILL` by default: a crash) and waits for its process to end. */
  kill(nodeId: number, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a stopped node again and waits until it serves clients. */
  restart(nodeId: number): Promise<void>;
  /** Runs one of Kafka's command-line tools (a main class from the pinned jars) logged in as the admin; answers its exit code and output. */
  tool(mainClass: string, args: string[], timeoutMs?: number): Promise<{ code: number; text: string }>;
  /** A client properties file that logs in as the admin (for `--command-config` and the like). */
  adminClientConfig: string;
  /** The node that leads the KRaft quorum (from `kafka-metadata-quorum describe --status`). */
  quorumLeader(): Promise<number>;
  /** Stops every node (SIGTERM: a controlled shutdown), waiting for each to exit. */
  stop(): Promise<void>;
}

interface ClusterLayout {
  clusterId: string;
  ports: number[];
  controllerPorts: number[];
  openPorts?: number[];
}

const live = new Set<ChildProcess>();
process.once("exit", () => {
  // A test runner or launcher that dies must not leave JVMs behind.
  for (const child of live) child.kill("SIGKILL");
});

/**
 * Starts Apache Kafka from the pinned release on 127.0.0.1 without Docker:
 * combined KRaft nodes (1 or a quorum of 3), SASL_PLAINTEXT with
 * SCRAM-SHA-512 (the admin created at format time with `--add-scram`),
 * StandardAuthorizer with the admin as the only super user, tiered storage
 * (KIP-405) into a folder with Kafka's own LocalTieredStorage. The data folder
 * is formatted once and kept: a second start of the same folder is a restart
 * of the same cluster.
 */
export async function startApacheKafka(options: ApacheKafkaOptions): Promise<ApacheKafkaCluster> {
  const log = options.log ?? (() => {});
  const java = findJava();
  const libs = await ensureApacheKafka(log);
  const classpath = path.join(libs, "*");
  const adminUser = options.adminUser ?? "kappa-admin";
  const adminPassword = options.adminPassword ?? randomBytes(18).toString("base64url");
  assertJaasSafe("admin user", adminUser);
  assertJaasSafe("admin password", adminPassword);
  const users = options.users ?? [];
  for (const u of users) {
    assertJaasSafe("user name", u.name);
    assertJaasSafe("user password", u.password);
  }
  const dataDir = path.resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  killLeftovers(dataDir);

  const layoutFile = path.join(dataDir, "cluster.json");
  let layout: ClusterLayout;
  if (existsSync(layoutFile)) {
    layout = JSON.parse(readFileSync(layoutFile, "utf8")) as ClusterLayout;
    if (layout.ports.length !== options.nodes) throw new Error(`${dataDir} holds a ${layout.ports.length}-node cluster; asked for ${options.nodes} nodes (use another data folder)`);
  } else {
    const ports = options.ports ?? (await Promise.all(Array.from({ length: options.nodes }, () => freePort())));
    const controllerPorts = await Promise.all(Array.from({ length: options.nodes }, () => freePort()));
    layout = { clusterId: kafkaUuid(), ports, controllerPorts };
  }
  if (options.openListener && !layout.openPorts) layout.openPorts = await Promise.all(Array.from({ length: options.nodes }, () => freePort()));
  const open = options.openListener ? layout.openPorts! : null;
  const remoteDir = path.join(dataDir, "remote-storage");
  mkdirSync(remoteDir, { recursive: true });
  const log4jFile = path.join(dataDir, "log4j2.properties");
  writeFileSync(log4jFile, LOG4J2);
  const adminClientConfig = path.join(dataDir, "admin-client.properties");
  writeFileSync(adminClientConfig, [`security.protocol=SASL_PLAINTEXT`, `sasl.mechanism=SCRAM-SHA-512`, `sasl.jaas.config=${scramJaas(adminUser, adminPassword)}`, ""].join("\n"), { mode: 0o600 });

  const nodeIds = layout.ports.map((_, i) => i + 1);
  const voters = nodeIds.map((id, i) => `${id}@127.0.0.1:${layout.controllerPorts[i]}`).join(",");
  const single = options.nodes === 1;
  const propertiesFor = (id: number, i: number) => {
    const nodeDir = path.join(dataDir, `node-${id}`);
    const settings: Record<string, string> = {
      "node.id": String(id),
      "controller.quorum.voters": voters,
      listeners: `CLIENTS://127.0.0.1:${layout.ports[i]},CONTROLLER://127.0.0.1:${layout.controllerPorts[i]}${open ? `,OPEN://127.0.0.1:${open[i]}` : ""}`,
      "advertised.listeners": `CLIENTS://127.0.0.1:${layout.ports[i]}${open ? `,OPEN://127.0.0.1:${open[i]}` : ""}`,
      "log.dirs": path.join(nodeDir, "data"),
      "super.users": `User:${adminUser}${open && options.openListenerSuperUser !== false ? ";User:ANONYMOUS" : ""}`,
      ...(open ? { "listener.security.protocol.map": "CLIENTS:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT,OPEN:PLAINTEXT" } : {}),
      "listener.name.clients.scram-sha-512.sasl.jaas.config": scramJaas(adminUser, adminPassword),
      "listener.name.clients.scram-sha-256.sasl.jaas.config": scramJaas(adminUser, adminPassword),
      "listener.name.clients.plain.sasl.jaas.config": plainJaas(adminUser, adminPassword, users),
      "listener.name.controller.sasl.enabled.mechanisms": "PLAIN",
      "listener.name.controller.plain.sasl.jaas.config": plainJaas(adminUser, adminPassword),
      "rsm.config.dir": remoteDir,
      "rlmm.config.remote.log.metadata.common.client.sasl.jaas.config": scramJaas(adminUser, adminPassword),
      ...(single
        ? {
            "default.replication.factor": "1",
            "min.insync.replicas": "1",
            "offsets.topic.replication.factor": "1",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
            "rlmm.config.remote.log.metadata.topic.replication.factor": "1",
          }
        : {}),
      ...options.overrides,
    };
    const file = path.join(nodeDir, "server.properties");
    mkdirSync(nodeDir, { recursive: true });
    const common = readFileSync(COMMON_PROPERTIES, "utf8");
    writeFileSync(file, `${common}\n# Per node (written by packages/engines/src/apache-kafka/cluster.ts)\n${Object.entries(settings).map(([k, v]) => `${k}=${escapeProperty(v)}`).join("\n")}\n`, { mode: 0o600 });
    return { id, nodeDir, file };
  };
  const nodeFiles = nodeIds.map((id, i) => propertiesFor(id, i));
  const tiered = (options.overrides?.["remote.log.storage.system.enable"] ?? "true") === "true";

  const env = { ...process.env, KAFKA_HEAP_OPTS: "" };
  // Tools and the formatter log into the data folder's tools/ (nodes override kafka.logs.dir with their own folder).
  const extraJvm = engineJvmOptions();
  const jvm = (heapMb: number) => [`-Xms${Math.min(heapMb, 256)}m`, `-Xmx${heapMb}m`, "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-Djava.awt.headless=true", `-Dlog4j2.configurationFile=${log4jFile}`, `-Dkafka.logs.dir=${path.join(dataDir, "tools")}`, ...extraJvm];

  // Format each node's storage once, with the admin's SCRAM credential in the bootstrap metadata.
  const unformatted = nodeFiles.filter((n) => !existsSync(path.join(n.nodeDir, "data", "meta.properties")));
  if (unformatted.length > 0) {
    log(`formatting ${unformatted.length} Apache Kafka node(s) in ${dataDir}`);
    await Promise.all(
      unformatted.map(async (n) => {
        const result = await run(java, [...jvm(256), "-cp", classpath, "kafka.tools.StorageTool", "format", "-t", layout.clusterId, "-c", n.file, "--add-scram", `SCRAM-SHA-512=[name=${adminUser},password=${adminPassword}]`, ...users.flatMap((u) => ["SCRAM-SHA-512", "SCRAM-SHA-256"].flatMap((m) => ["--add-scram", `${m}=[name=${u.name},password=${u.password}]`])), "--ignore-formatted"], { env, timeoutMs: 120_000 });
        if (result.code !== 0) throw new Error(`formatting Apache Kafka node ${n.id} failed (exit ${result.code}): ${redact(result.text, adminPassword).slice(-2000)}`);
      }),
    );
  }
  writeFileSync(layoutFile, JSON.stringify(layout, null, 2) + "\n");

  const processes = new Map<number, ChildProcess>();
  const startNode = (id: number) => {
    const n = nodeFiles[id - 1]!;
    const out = createWriteStream(path.join(n.nodeDir, "stdout.log"), { flags: "a" });
    const child = spawn(java, [...jvm(options.heapMb ?? 512), `-Dkafka.logs.dir=${n.nodeDir}`, "-cp", classpath, "kafka.Kafka", n.file], { env, stdio: ["ignore", "pipe", "pipe"], detached: false });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
    live.add(child);
    child.once("exit", () => live.delete(child));
    processes.set(id, child);
    writeFileSync(path.join(n.nodeDir, "pid"), String(child.pid));
    return child;
  };

  const nodes: ApacheKafkaNode[] = nodeIds.map((id, i) => ({
    id,
    port: layout.ports[i]!,
    controllerPort: layout.controllerPorts[i]!,
    logFile: path.join(dataDir, `node-${id}`, "server.log"),
    pid: () => processes.get(id)?.pid,
    running: () => {
      const c = processes.get(id);
      return !!c && c.exitCode === null && c.signalCode === null;
    },
  }));

  const started = Date.now();
  log(`starting Apache Kafka ${APACHE_KAFKA_VERSION}: ${options.nodes} node(s) in ${dataDir}`);
  for (const id of nodeIds) startNode(id);
  try {
    await Promise.all(nodeIds.map((id) => waitUntilServing(nodes[id - 1]!, processes.get(id)!, 180_000, tiered)));
  } catch (error) {
    for (const child of processes.values()) child.kill("SIGKILL");
    throw error;
  }
  log(`Apache Kafka up in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const brokers = layout.ports.map((p) => `127.0.0.1:${p}`);
  const bootstrap = brokers.join(",");

  const cluster: ApacheKafkaCluster = {
    version: APACHE_KAFKA_VERSION,
    bootstrap,
    openBootstrap: open ? open.map((p) => `127.0.0.1:${p}`).join(",") : null,
    brokers,
    adminUser,
    adminPassword,
    nodes,
    dataDir,
    remoteDir,
    adminClientConfig,
    async kill(nodeId, signal = "SIGKILL") {
      const child = processes.get(nodeId);
      if (!child) throw new Error(`no Apache Kafka node ${nodeId}`);
      child.kill(signal);
      if (!(await waitForExit(child, signal === "SIGKILL" ? 10_000 : 60_000))) {
        child.kill("SIGKILL");
        await waitForExit(child, 10_000);
      }
    },
    async restart(nodeId) {
      const old = processes.get(nodeId);
      if (old && old.exitCode === null && old.signalCode === null) throw new Error(`Apache Kafka node ${nodeId} is still running`);
      const child = startNode(nodeId);
      await waitUntilServing(nodes[nodeId - 1]!, child, 180_000, tiered);
    },
    tool(mainClass, args, timeoutMs = 120_000) {
      return run(java, [...jvm(256), "-cp", classpath, mainClass, ...args], { env, timeoutMs });
    },
    async quorumLeader() {
      const result = await cluster.tool("org.apache.kafka.tools.MetadataQuorumCommand", ["--bootstrap-server", bootstrap, "--command-config", adminClientConfig, "describe", "--status"]);
      const match = /LeaderId:\s*(\d+)/.exec(result.text);
      if (result.code !== 0 || !match) throw new Error(`kafka-metadata-quorum failed (exit ${result.code}): ${redact(result.text, adminPassword).slice(-1000)}`);
      return Number(match[1]);
    },
    async stop() {
      const children = [...processes.values()].filter((c) => c.exitCode === null && c.signalCode === null);
      for (const child of children) child.kill("SIGTERM");
      await Promise.all(
        children.map(async (child) => {
          if (!(await waitForExit(child, 60_000))) {
            child.kill("SIGKILL");
            await waitForExit(child, 10_000);
          }
        }),
      );
    },
  };
  return cluster;
}

/**
 * A node serves once its server log says it started (the broker is
 * registered and unfenced by then), its tiered-storage metadata manager has
 * initialised (until then a stop waits a minute for the manager's own
 * client, and tiered topics cannot copy), and its client port accepts
 * connections.
 */
async function waitUntilServing(node: ApacheKafkaNode, child: ChildProcess, timeoutMs: number, tiered: boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const logFile = node.logFile;
  const offset = existsSync(logFile) ? readFileSync(logFile).length : 0;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const tail = existsSync(logFile) ? readFileSync(logFile, "utf8").slice(-3000) : "";
      throw new Error(`Apache Kafka node ${node.id} exited (code ${child.exitCode ?? child.signalCode}) while starting; its log ${logFile} ends:\n${tail}`);
    }
    if (existsSync(logFile)) {
      const fresh = readFileSync(logFile).subarray(offset);
      if (fresh.includes("Kafka Server started") && (!tiered || fresh.includes("Initialized topic-based RLMM resources successfully")) && (await portOpen(node.port))) return;
    }
    await sleep(200);
  }
  throw new Error(`Apache Kafka node ${node.id} did not start within ${timeoutMs / 1000} s; see ${logFile}`);
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Nodes a killed launcher left running on the same data folder are stopped before a new start. */
function killLeftovers(dataDir: string): void {
  for (let id = 1; id <= 3; id++) {
    const pidFile = path.join(dataDir, `node-${id}`, "pid");
    if (!existsSync(pidFile)) continue;
    const pid = Number(readFileSync(pidFile, "utf8"));
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (cmdline.includes("kafka.Kafka") && cmdline.includes(dataDir)) process.kill(pid, "SIGKILL");
    } catch {
      // not running
    }
    rmSync(pidFile, { force: true });
  }
}

/**
 * A Kafka UUID as `kafka-storage random-uuid` prints it: 16 random bytes, base64url without padding — never
 * one starting with "-", which Kafka's own Uuid.randomUuid also avoids (the formatter's `-t` would read it as an
 * option: one start in 64 failed that way).
 */
export function kafkaUuid(): string {
  for (;;) {
    const id = randomBytes(16).toString("base64url");
    if (!id.startsWith("-")) return id;
  }
}

function scramJaas(user: string, password: string): string {
  return `org.apache.kafka.common.security.scram.ScramLoginModule required username="${user}" password="${password}";`;
}

/** PLAIN with Kafka's built-in callback: the admin (and in oracle runs the `users`) are its static users (`user_<name>`). */
function plainJaas(user: string, password: string, others: ReadonlyArray<{ name: string; password: string }> = []): string {
  const extra = others.map((u) => ` user_${u.name}="${u.password}"`).join("");
  return `org.apache.kafka.common.security.plain.PlainLoginModule required username="${user}" password="${password}" user_${user}="${password}"${extra};`;
}

/** Names and passwords go into JAAS strings and the `--add-scram` argument: refuse what would break out of them. */
function assertJaasSafe(what: string, value: string): void {
  if (!/^[A-Za-z0-9._~+\-@!#$%^&*()=]{1,200}$/.test(value) || value.includes("]") || value.includes(",")) {
    throw new Error(`the Apache Kafka ${what} may hold only letters, digits and ._~+-@!#$%^&*()= (it goes into JAAS and --add-scram strings)`);
  }
}

function escapeProperty(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function redact(text: string, secret: string): string {
  return secret ? text.split(secret).join("<redacted>") : text;
}

const LOG4J2 = `# Written by packages/engines: each node logs to server.log in its own folder.
status = warn
appender.file.type = RollingFile
appender.file.name = file
appender.file.fileName = \${sys:kafka.logs.dir}/server.log
appender.file.filePattern = \${sys:kafka.logs.dir}/server.log.%i
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
appender.file.policies.type = Policies
appender.file.policies.size.type = SizeBasedTriggeringPolicy
appender.file.policies.size.size = 20MB
appender.file.strategy.type = DefaultRolloverStrategy
appender.file.strategy.max = 2
rootLogger.level = info
logger.clients.name = org.apache.kafka.clients
logger.clients.level = warn
rootLogger.appenderRef.file.ref = file
logger.authorizer.name = kafka.authorizer.logger
logger.authorizer.level = warn
logger.request.name = kafka.request.logger
logger.request.level = warn
`;
