import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ENGINES_DIR, EngineUnavailableError, engineJvmOptions, enginesCacheDir, ensureArtifacts, findJava, freePort, publishStaged, run, sleep, waitForExit } from "../tools.ts";

/** The pinned release (apache-flink/pyflink.txt and apache-flink/pom.xml name the same). */
export const APACHE_FLINK_VERSION = "2.2.0";
/** The Kafka SQL connector built for it (Maven Central `flink-sql-connector-kafka`). */
export const FLINK_KAFKA_CONNECTOR_VERSION = "5.0.0-2.2";

const FLINK_DIR = path.join(ENGINES_DIR, "apache-flink");
const PYFLINK_REQUIREMENTS = path.join(FLINK_DIR, "pyflink.txt");

export interface ApacheFlinkJars {
  /** The distribution's lib/ (flink-dist, table planner loader and runtime, json, csv, Log4j). */
  libDir: string;
  /** `bash-java-utils.jar` (computes a TaskManager's and JobManager's memory settings). */
  bashJavaUtils: string;
  /** The SQL Gateway, the Kafka SQL connector and the Avro / Confluent Schema Registry SQL format, from Maven Central. */
  extraDir: string;
}

/**
 * Resolves the pinned Apache Flink into the engines cache, once: the
 * distribution's jars from PyPI's `apache-flink-libraries` wheel (pip with
 * `--require-hashes`, the sha256 checked again here), the SQL Gateway, the
 * Kafka SQL connector and the `avro-confluent` format from Maven Central
 * (checksums verified by Maven).
 */
export async function ensureApacheFlink(log: (line: string) => void = () => {}): Promise<ApacheFlinkJars> {
  const distDir = await ensureFlinkDistribution(log);
  const extraDir = await ensureArtifacts(`apache-flink-${APACHE_FLINK_VERSION}-maven`, path.join(FLINK_DIR, "pom.xml"), log);
  return { libDir: path.join(distDir, "lib"), bashJavaUtils: path.join(distDir, "bin", "bash-java-utils.jar"), extraDir };
}

function pinnedWheel(): { requirement: string; sha256: string; key: string } {
  const text = readFileSync(PYFLINK_REQUIREMENTS, "utf8");
  const line = text.split("\n").find((l) => l.trim() && !l.trim().startsWith("#"));
  const match = line && /^(apache-flink-libraries==\S+)\s+--hash=sha256:([0-9a-f]{64})\s*$/.exec(line.trim());
  if (!match) throw new Error(`${PYFLINK_REQUIREMENTS} must pin apache-flink-libraries==<version> --hash=sha256:<hex>`);
  return { requirement: match[1]!, sha256: match[2]!, key: createHash("sha256").update(text).digest("hex").slice(0, 12) };
}

function findPython(): string {
  for (const candidate of ["python3", "python"]) {
    const probe = spawnSyncQuiet(candidate, ["-m", "pip", "--version"]);
    if (probe) return candidate;
  }
  throw new EngineUnavailableError("Fetching Apache Flink needs Python 3 with pip (`python3 -m pip`), which is not installed. Install it (Debian: apt-get install -y python3-pip); it downloads the pinned apache-flink-libraries wheel from PyPI once into the engines cache.");
}

function spawnSyncQuiet(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { encoding: "utf8" });
  return !result.error && result.status === 0;
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

async function ensureFlinkDistribution(log: (line: string) => void): Promise<string> {
  const wheel = pinnedWheel();
  const dir = path.join(enginesCacheDir(), `apache-flink-${APACHE_FLINK_VERSION}-dist-${wheel.key}`);
  if (existsSync(path.join(dir, ".complete"))) return dir;
  const python = findPython();
  mkdirSync(enginesCacheDir(), { recursive: true });
  const staging = `${dir}.fetching-${process.pid}-${randomBytes(3).toString("hex")}`;
  const download = path.join(staging, "download");
  mkdirSync(download, { recursive: true });
  log(`fetching ${wheel.requirement} from PyPI into ${dir} (once, ~300 MB; pip checks its sha256)`);
  const started = Date.now();
  try {
    const pip = await run(python, ["-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--require-hashes", "--disable-pip-version-check", "-r", PYFLINK_REQUIREMENTS, "-d", download]);
    if (pip.code !== 0) throw new EngineUnavailableError(`pip could not download ${wheel.requirement} (exit ${pip.code}):\n${pip.text.slice(-4000)}`);
    const files = readdirSync(download).filter((f) => f.endsWith(".whl"));
    if (files.length !== 1) throw new Error(`pip left ${files.length} wheels in ${download}; expected one`);
    const file = path.join(download, files[0]!);
    const actual = await sha256File(file);
    if (actual !== wheel.sha256) throw new Error(`${files[0]} has sha256 ${actual}; ${path.relative(ENGINES_DIR, PYFLINK_REQUIREMENTS)} pins ${wheel.sha256}`);
    // Only the jars: pyflink/lib/*.jar and pyflink/bin/bash-java-utils.jar, by exact member name (no path from the archive reaches the file system unchecked).
    const unpack = `
import sys, zipfile, os, re
wheel, out = sys.argv[1], sys.argv[2]
n = 0
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        m = re.fullmatch(r"pyflink/(lib|bin)/([A-Za-z0-9._-]+\\.jar)", name)
        if not m or (m.group(1) == "bin" and m.group(2) != "bash-java-utils.jar"):
            continue
        os.makedirs(os.path.join(out, m.group(1)), exist_ok=True)
        with z.open(name) as src, open(os.path.join(out, m.group(1), m.group(2)), "wb") as dst:
            while True:
                b = src.read(1 << 20)
                if not b: break
                dst.write(b)
        n += 1
print(n)
`;
    const unpacked = await run(python, ["-c", unpack, file, staging]);
    if (unpacked.code !== 0) throw new Error(`unpacking ${files[0]} failed (exit ${unpacked.code}): ${unpacked.text.slice(-2000)}`);
    if (!existsSync(path.join(staging, "lib", `flink-dist-${APACHE_FLINK_VERSION}.jar`)) || !existsSync(path.join(staging, "bin", "bash-java-utils.jar"))) {
      throw new Error(`${files[0]} holds no pyflink/lib/flink-dist-${APACHE_FLINK_VERSION}.jar or pyflink/bin/bash-java-utils.jar`);
    }
    rmSync(download, { recursive: true, force: true });
    writeFileSync(path.join(staging, ".complete"), `fetched ${new Date().toISOString()} in ${Date.now() - started} ms: ${wheel.requirement} sha256 ${wheel.sha256}\n`);
    publishStaged(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  log(`fetched the Apache Flink distribution in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return dir;
}

export interface ApacheFlinkOptions {
  /** Folder for the cluster's configuration, logs and checkpoints (`checkpoints/`). */
  dataDir: string;
  /** Task slots of the one TaskManager (default 4: that many single-parallelism jobs at once). */
  taskSlots?: number;
  /** Checkpoint interval every job gets unless it sets its own (default 5 s; the Kafka sink commits its transactions on checkpoints). */
  checkpointIntervalMs?: number;
  /** Settings that differ from the defaults this launcher writes (flattened `config.yaml` keys). */
  overrides?: Record<string, string>;
  /**
   * Fixed ports for the JobManager's REST API and the SQL Gateway (free ones
   * when left out): `npm start` hands the addresses to the portal and the
   * worker before the cluster is up.
   */
  ports?: { rest?: number; gateway?: number };
  /** The `java` to run (from findJava()); looked up when left out. */
  java?: string;
  log?: (line: string) => void;
}

export type FlinkComponent = "jobmanager" | "taskmanager" | "sql-gateway";

export interface ApacheFlinkCluster {
  version: string;
  /** The SQL Gateway's REST endpoint, e.g. `http://127.0.0.1:41234` (`/v3/sessions`, …). */
  gatewayUrl: string;
  /** The JobManager's REST API (the web UI's), e.g. `http://127.0.0.1:41235` (`/jobs/overview`, …). */
  restUrl: string;
  dataDir: string;
  /** `file://…/checkpoints` */
  checkpointsDir: string;
  /** `file://…/savepoints`: where a stop with a savepoint writes unless told otherwise (`execution.checkpointing.savepoint-dir`). */
  savepointsDir: string;
  logFile(component: FlinkComponent): string;
  pid(component: FlinkComponent): number | undefined;
  /** Kills one process with SIGKILL (a crash: no shutdown, nothing deregistered) and waits until it has exited. */
  kill(component: FlinkComponent): Promise<void>;
  /**
   * Starts a component again that is not running (after kill): the same
   * configuration, ports and data folder. A TaskManager is waited for until
   * its slots are registered with the JobManager again.
   */
  restart(component: FlinkComponent): Promise<void>;
  /** Stops the gateway, the TaskManager and the JobManager (SIGTERM; SIGKILL after 30 s). */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

const MAIN_CLASSES: Record<FlinkComponent, string> = {
  jobmanager: "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
  taskmanager: "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
  "sql-gateway": "org.apache.flink.table.gateway.SqlGateway",
};

/**
 * Starts an Apache Flink session cluster from the pinned jars without Docker
 * or the distribution's scripts: a JobManager (StandaloneSessionClusterEntrypoint),
 * one TaskManager and the SQL Gateway, on 127.0.0.1 with free ports — the
 * production set-up (a session cluster the worker deploys statements to
 * through the gateway's REST API) on one machine, ~1.1 GiB in all. The Kafka
 * SQL connector is on every process's classpath, as in the distribution's lib/.
 */
export async function startFlink(options: ApacheFlinkOptions): Promise<ApacheFlinkCluster> {
  const log = options.log ?? (() => {});
  const java = options.java ?? findJava();
  const extraJvm = engineJvmOptions();
  const jars = await ensureApacheFlink(log);
  const dataDir = path.resolve(options.dataDir);
  const confDir = path.join(dataDir, "conf");
  const logDir = path.join(dataDir, "log");
  const checkpointsDir = path.join(dataDir, "checkpoints");
  const savepointsDir = path.join(dataDir, "savepoints");
  for (const d of [confDir, logDir, checkpointsDir, savepointsDir]) mkdirSync(d, { recursive: true });
  killLeftovers(dataDir);

  const [rpcPort, restPort, gatewayPort] = [await freePort(), options.ports?.rest ?? (await freePort()), options.ports?.gateway ?? (await freePort())];
  const settings: Record<string, string> = {
    "jobmanager.rpc.address": "127.0.0.1",
    "jobmanager.rpc.port": String(rpcPort),
    "jobmanager.bind-host": "127.0.0.1",
    "jobmanager.memory.process.size": "768m",
    "jobmanager.execution.failover-strategy": "region",
    "taskmanager.bind-host": "127.0.0.1",
    "taskmanager.host": "127.0.0.1",
    "taskmanager.numberOfTaskSlots": String(options.taskSlots ?? 4),
    "taskmanager.memory.process.size": "1024m",
    // Streaming SQL with the hashmap state backend needs no managed memory; what is left goes to the task heap.
    "taskmanager.memory.managed.size": "64m",
    "parallelism.default": "1",
    // A TaskManager that starts before the JobManager retries after 1 s, not the default 10 s.
    "cluster.registration.error-delay": "1000ms",
    "rest.address": "127.0.0.1",
    "rest.bind-address": "127.0.0.1",
    "rest.port": String(restPort),
    "blob.server.port": "0",
    "state.backend.type": "hashmap",
    "execution.checkpointing.dir": `file://${checkpointsDir}`,
    // A paused derived product's job is stopped with a savepoint here (the worker names no directory of its own).
    "execution.checkpointing.savepoint-dir": `file://${savepointsDir}`,
    "execution.checkpointing.interval": `${options.checkpointIntervalMs ?? 5000}ms`,
    // A restart of this cluster (no HA) forgets its jobs: the worker redeploys them from their last checkpoint, which must outlive the job.
    "execution.checkpointing.externalized-checkpoint-retention": "RETAIN_ON_CANCELLATION",
    "execution.target": "remote",
    "sql-gateway.endpoint.rest.address": "127.0.0.1",
    "sql-gateway.endpoint.rest.bind-address": "127.0.0.1",
    "sql-gateway.endpoint.rest.port": String(gatewayPort),
    ...options.overrides,
  };
  writeFileSync(path.join(confDir, "config.yaml"), `# Written by packages/engines/src/apache-flink/cluster.ts\n${Object.entries(settings).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join("\n")}\n`);
  writeFileSync(path.join(confDir, "log4j.properties"), LOG4J2);

  const libJars = readdirSync(jars.libDir).filter((f) => f.endsWith(".jar")).sort();
  // As the distribution's scripts: lib/ in name order with flink-dist last; here the Maven jars (the connector, the gateway) before it.
  const dist = libJars.filter((f) => f.startsWith("flink-dist"));
  const classpath = (withGateway: boolean) =>
    [
      ...libJars.filter((f) => !f.startsWith("flink-dist")).map((f) => path.join(jars.libDir, f)),
      ...readdirSync(jars.extraDir)
        .filter((f) => f.endsWith(".jar") && (withGateway || !f.startsWith("flink-sql-gateway")))
        .sort()
        .map((f) => path.join(jars.extraDir, f)),
      ...dist.map((f) => path.join(jars.libDir, f)),
    ].join(path.delimiter);
  const env = { ...process.env, FLINK_CONF_DIR: confDir, FLINK_LIB_DIR: jars.libDir, FLINK_PLUGINS_DIR: path.join(dataDir, "plugins"), FLINK_OPT_DIR: path.join(dataDir, "opt"), FLINK_LOG_DIR: logDir };
  mkdirSync(env.FLINK_PLUGINS_DIR, { recursive: true });
  mkdirSync(env.FLINK_OPT_DIR, { recursive: true });

  // The JVM and dynamic settings the distribution's scripts get from BashJavaUtils (heap, direct and metaspace limits; the TaskManager's memory and cpu).
  const resourceParams = async (command: "GET_JM_RESOURCE_PARAMS" | "GET_TM_RESOURCE_PARAMS") => {
    const result = await run(java, ["-Xmx64m", ...extraJvm, "-cp", [jars.bashJavaUtils, ...dist.map((f) => path.join(jars.libDir, f))].join(path.delimiter), "org.apache.flink.runtime.util.bash.BashJavaUtils", command, "--configDir", confDir], { env, timeoutMs: 120_000 });
    const lines = result.text.split("\n").filter((l) => l.startsWith("BASH_JAVA_UTILS_EXEC_RESULT:")).map((l) => l.slice("BASH_JAVA_UTILS_EXEC_RESULT:".length).trim());
    if (result.code !== 0 || lines.length < 2) throw new Error(`BashJavaUtils ${command} failed (exit ${result.code}): ${result.text.slice(-2000)}`);
    return { jvm: lines[0]!.split(/\s+/).filter(Boolean), dynamic: lines[1]!.split(/\s+/).filter(Boolean) };
  };
  const [jm, tm] = await Promise.all([resourceParams("GET_JM_RESOURCE_PARAMS"), resourceParams("GET_TM_RESOURCE_PARAMS")]);

  const processes = new Map<FlinkComponent, ChildProcess>();
  const logFile = (c: FlinkComponent) => path.join(logDir, `${c}.log`);
  const start = (component: FlinkComponent, jvm: string[], args: string[]) => {
    const out = createWriteStream(path.join(logDir, `${component}.out`), { flags: "a" });
    const child = spawn(java, [...jvm, ...JAVA_17_OPTS, ...extraJvm, "-XX:+UseG1GC", "-Djava.awt.headless=true", `-Dlog.file=${logFile(component)}`, `-Dlog4j.configurationFile=file:${path.join(confDir, "log4j.properties")}`, `-Dkappa.flink.dir=${dataDir}`, "-cp", classpath(component === "sql-gateway"), MAIN_CLASSES[component], ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
    live.add(child);
    child.once("exit", () => live.delete(child));
    processes.set(component, child);
    writeFileSync(path.join(dataDir, `${component}.pid`), String(child.pid));
  };

  const launch = (component: FlinkComponent) => {
    if (component === "jobmanager") start("jobmanager", jm.jvm, ["--configDir", confDir, ...jm.dynamic]);
    else if (component === "taskmanager") start("taskmanager", tm.jvm, ["--configDir", confDir, ...tm.dynamic]);
    else start("sql-gateway", ["-Xms128m", "-Xmx320m"], ["--configDir", confDir]);
  };
  const running = (child: ChildProcess | undefined): child is ChildProcess => !!child && child.exitCode === null && child.signalCode === null;

  const started = Date.now();
  log(`starting Apache Flink ${APACHE_FLINK_VERSION}: JobManager, TaskManager and SQL Gateway in ${dataDir}`);
  launch("jobmanager");
  launch("taskmanager");
  launch("sql-gateway");

  const restUrl = `http://127.0.0.1:${restPort}`;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const stop = async () => {
    // The gateway first (it closes its sessions), then the TaskManager, then the JobManager.
    for (const component of ["sql-gateway", "taskmanager", "jobmanager"] as const) {
      const child = processes.get(component);
      if (!child || child.exitCode !== null || child.signalCode !== null) continue;
      child.kill("SIGTERM");
      if (!(await waitForExit(child, 30_000))) {
        child.kill("SIGKILL");
        await waitForExit(child, 10_000);
      }
    }
  };

  try {
    const deadline = Date.now() + 240_000;
    let ready = { slots: false, gateway: false };
    while (!(ready.slots && ready.gateway)) {
      for (const [component, child] of processes) {
        if (child.exitCode !== null || child.signalCode !== null) {
          const file = logFile(component);
          const tail = existsSync(file) ? readFileSync(file, "utf8").slice(-3000) : readFileSync(path.join(logDir, `${component}.out`), "utf8").slice(-3000);
          throw new Error(`Apache Flink's ${component} exited (code ${child.exitCode ?? child.signalCode}) while starting; its log ${file} ends:\n${tail}`);
        }
      }
      if (Date.now() > deadline) throw new Error(`Apache Flink did not start within 240 s (TaskManager slots registered: ${ready.slots}, SQL Gateway answering: ${ready.gateway}); logs in ${logDir}`);
      ready = {
        slots: ready.slots || (await getJson<{ "slots-total"?: number }>(`${restUrl}/overview`).then((o) => (o?.["slots-total"] ?? 0) >= (options.taskSlots ?? 4))),
        gateway: ready.gateway || (await getJson<{ version?: string }>(`${gatewayUrl}/v3/info`).then((i) => !!i?.version)),
      };
      if (!(ready.slots && ready.gateway)) await sleep(500);
    }
  } catch (error) {
    for (const child of processes.values()) child.kill("SIGKILL");
    throw error;
  }
  log(`Apache Flink up in ${((Date.now() - started) / 1000).toFixed(1)} s: SQL Gateway ${gatewayUrl}, REST API ${restUrl}`);

  return {
    version: APACHE_FLINK_VERSION,
    gatewayUrl,
    restUrl,
    dataDir,
    checkpointsDir: `file://${checkpointsDir}`,
    savepointsDir: `file://${savepointsDir}`,
    logFile,
    pid: (c) => processes.get(c)?.pid,
    kill: async (component) => {
      const child = processes.get(component);
      if (!running(child)) return;
      child.kill("SIGKILL");
      if (!(await waitForExit(child, 30_000))) throw new Error(`Apache Flink's ${component} (pid ${child.pid}) did not exit within 30 s of SIGKILL`);
    },
    restart: async (component) => {
      if (running(processes.get(component))) throw new Error(`Apache Flink's ${component} is running; kill it before starting it again`);
      const slotsBefore = component === "taskmanager" ? await getJson<{ taskmanagers?: { id: string }[] }>(`${restUrl}/taskmanagers`) : null;
      const known = new Set((slotsBefore?.taskmanagers ?? []).map((t) => t.id));
      launch(component);
      const child = processes.get(component)!;
      const deadline = Date.now() + 240_000;
      for (;;) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`Apache Flink's ${component} exited (code ${child.exitCode ?? child.signalCode}) while starting again; see ${logFile(component)}`);
        if (component === "taskmanager") {
          // Registered: a TaskManager the JobManager did not list before (the killed one may still be listed until its heartbeat times out).
          const now = await getJson<{ taskmanagers?: { id: string; slotsNumber?: number }[] }>(`${restUrl}/taskmanagers`);
          if ((now?.taskmanagers ?? []).some((t) => !known.has(t.id))) return;
        } else if (component === "sql-gateway") {
          if ((await getJson<{ version?: string }>(`${gatewayUrl}/v3/info`))?.version) return;
        } else if (await getJson(`${restUrl}/overview`)) return;
        if (Date.now() > deadline) throw new Error(`Apache Flink's ${component} did not come back within 240 s; see ${logFile(component)}`);
        await sleep(500);
      }
    },
    stop,
  };
}

async function getJson<T>(url: string): Promise<T | null> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    if (!response.ok) return null;
    return (await response.json()) as T;
  } catch {
    return null;
  }
}

/** Processes a killed launcher left running on the same data folder are killed before a new start. */
function killLeftovers(dataDir: string): void {
  for (const component of Object.keys(MAIN_CLASSES) as FlinkComponent[]) {
    const pidFile = path.join(dataDir, `${component}.pid`);
    if (!existsSync(pidFile)) continue;
    const pid = Number(readFileSync(pidFile, "utf8"));
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (cmdline.includes(MAIN_CLASSES[component]) && cmdline.includes(`-Dkappa.flink.dir=${dataDir}`)) process.kill(pid, "SIGKILL");
    } catch {
      // not running
    }
    rmSync(pidFile, { force: true });
  }
}

/** The distribution's `env.java.opts.all` (flink-dist's default config.yaml): Flink on Java 17 needs these modules opened. */
const JAVA_17_OPTS = [
  "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
  "--add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED",
  "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
  "--add-exports=jdk.compiler/com.sun.tools.javac.parser=ALL-UNNAMED",
  "--add-exports=jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED",
  "--add-exports=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED",
  "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
  "--add-opens=java.base/java.lang=ALL-UNNAMED",
  "--add-opens=java.base/java.net=ALL-UNNAMED",
  "--add-opens=java.base/java.io=ALL-UNNAMED",
  "--add-opens=java.base/java.nio=ALL-UNNAMED",
  "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
  "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
  "--add-opens=java.base/java.text=ALL-UNNAMED",
  "--add-opens=java.base/java.time=ALL-UNNAMED",
  "--add-opens=java.base/java.util=ALL-UNNAMED",
  "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
  "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
  "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED",
];

const LOG4J2 = `# Written by packages/engines: each Flink process logs to log/<component>.log in the cluster's folder.
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
appender.file.type = RollingFile
appender.file.name = file
appender.file.fileName = \${sys:log.file}
appender.file.filePattern = \${sys:log.file}.%i
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n
appender.file.policies.type = Policies
appender.file.policies.size.type = SizeBasedTriggeringPolicy
appender.file.policies.size.size = 20MB
appender.file.strategy.type = DefaultRolloverStrategy
appender.file.strategy.max = 2
logger.kafka.name = org.apache.kafka
logger.kafka.level = WARN
logger.akka.name = org.apache.pekko
logger.akka.level = WARN
`;
