import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";

/** Where the engines' pinned artifacts are kept between runs (`KAPPA_ENGINES_CACHE`, default ~/.cache/kappa-mesh/engines). */
export function enginesCacheDir(): string {
  return process.env.KAPPA_ENGINES_CACHE || path.join(os.homedir(), ".cache", "kappa-mesh", "engines");
}

export const ENGINES_DIR = path.resolve(import.meta.dirname, "..");

export class EngineUnavailableError extends Error {
  override name = "EngineUnavailableError";
}

/** The `java` to run engines with: `JAVA_HOME/bin/java` or the one on PATH, version 17 or later. */
export function findJava(): string {
  const java = process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, "bin", "java") : "java";
  const probe = spawnSync(java, ["-version"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) {
    throw new EngineUnavailableError(`Apache Kafka and Apache Flink need Java 17 or later, and no \`${java}\` runs here. Install it (Debian: apt-get install -y openjdk-17-jre-headless) or set JAVA_HOME.`);
  }
  const match = /version "(\d+)/.exec(probe.stderr);
  const major = match ? Number(match[1]) : 0;
  if (major < 17) throw new EngineUnavailableError(`Apache Kafka 4 needs Java 17 or later; ${java} is version ${major || "unknown"}. Install Java 17 (Debian: apt-get install -y openjdk-17-jre-headless) or set JAVA_HOME.`);
  return java;
}

/**
 * Extra JVM options for every engine JVM this package starts (Apache Kafka's
 * nodes and tools, Apache Flink's processes): `KAPPA_ENGINE_JVM_OPTS`,
 * whitespace-separated, each starting with `-`. `npm test` sets
 * `-XX:TieredStopAtLevel=1` (scripts/test-all.ts): a test cluster lives for
 * minutes, and the C2 compiler's work costs more CPU there than its faster code
 * saves. Benchmarks and production leave it unset.
 */
export function engineJvmOptions(env: NodeJS.ProcessEnv = process.env): string[] {
  const options = (env.KAPPA_ENGINE_JVM_OPTS ?? "").split(/\s+/).filter(Boolean);
  const bad = options.find((o) => !/^-[\w:+=.,/-]+$/.test(o));
  if (bad !== undefined) throw new Error(`KAPPA_ENGINE_JVM_OPTS: ${JSON.stringify(bad)} is not a JVM option (each starts with "-", no quotes or spaces)`);
  return options;
}

function findMaven(): string {
  const probe = spawnSync("mvn", ["-v"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) {
    throw new EngineUnavailableError("Fetching Apache Kafka needs Maven (`mvn`), which is not installed. Install it (Debian: apt-get install -y maven); it fetches the pinned release from Maven Central once into the engines cache.");
  }
  return "mvn";
}

/**
 * Resolves the artifacts a pom lists (with their runtime dependencies) into a
 * folder of jars in the engines cache, once per pom content: Maven fetches
 * from Maven Central and verifies each checksum (`--strict-checksums`). A
 * second call with the same pom answers from the cache without Maven.
 */
export async function ensureArtifacts(name: string, pomFile: string, log: (line: string) => void = () => {}): Promise<string> {
  const pom = readFileSync(pomFile);
  const key = createHash("sha256").update(pom).digest("hex").slice(0, 12);
  const dir = path.join(enginesCacheDir(), `${name}-${key}`);
  if (existsSync(path.join(dir, ".complete"))) return path.join(dir, "libs");
  const mvn = findMaven();
  mkdirSync(enginesCacheDir(), { recursive: true });
  const staging = `${dir}.fetching-${process.pid}-${randomBytes(3).toString("hex")}`;
  mkdirSync(staging, { recursive: true });
  log(`fetching ${name} from Maven Central into ${dir} (once; Maven verifies checksums)`);
  const started = Date.now();
  try {
    const output = await run(mvn, ["-B", "-q", "--strict-checksums", "-f", pomFile, "dependency:copy-dependencies", `-DoutputDirectory=${path.join(staging, "libs")}`, "-DincludeScope=runtime"]);
    if (output.code !== 0) throw new EngineUnavailableError(`Maven could not fetch ${name} (exit ${output.code}):\n${output.text.slice(-4000)}`);
    writeFileSync(path.join(staging, ".complete"), `fetched ${new Date().toISOString()} in ${Date.now() - started} ms from ${path.relative(ENGINES_DIR, pomFile)}\n`);
    publishStaged(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  log(`fetched ${name} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return path.join(dir, "libs");
}

/**
 * Moves a finished fetch's staging folder (holding `.complete`) to its place in
 * the cache. Another process that finished the same fetch first keeps its copy.
 */
export function publishStaged(staging: string, dir: string): void {
  try {
    renameSync(staging, dir);
  } catch (error) {
    if (!existsSync(path.join(dir, ".complete"))) throw error;
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Resolves true once the child has exited (at once if it already has), false after `ms` without an exit. */
export function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<{ code: number; text: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env ?? process.env, cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout.on("data", (d: Buffer) => (text += d.toString()));
    child.stderr.on("data", (d: Buffer) => (text += d.toString()));
    const timer = options.timeoutMs ? setTimeout(() => child.kill("SIGKILL"), options.timeoutMs) : undefined;
    child.on("error", reject);
    child.on("close", (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code: code ?? -1, text });
    });
  });
}

/** Ports this process has handed out: the OS may give a port that was just closed again to the next bind(0). */
const handedOut = new Set<number>();

/**
 * A port that was free a moment ago and that this process has not handed out
 * before. A cluster's nodes each take several ports (clients, controller, …)
 * before any of them listens; without the memory, two of them could get the
 * same one (seen in CI: "two listeners on the same port").
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await anyFreePort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error("no free port that was not handed out already after 50 attempts");
}

function anyFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
