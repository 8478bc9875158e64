// Benchmark of topic creation: `npx tsx bench/create-topics.ts`. Starts the
// broker as a child process (bench/broker-child.ts, the same flags as
// src/cli.ts) on an empty data directory and creates N topics × P partitions
// over TCP with CreateTopics requests of B topics each, C requests in flight
// (the worker's reconcile sends one request per batch of new products). Prints
// topics/s, partitions/s, the broker's CPU seconds (all threads, Linux /proc)
// and the machine's load; then stops the broker cleanly and times a restart
// on the same directory (opening every partition).
// Environment:
//   BENCH_TOPICS (2000), BENCH_PARTITIONS (6), BENCH_BATCH (100 topics per request),
//   BENCH_CONCURRENCY (2 requests in flight), BENCH_DIR (a data dir to use; default a fresh temp dir, removed after)
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ApiKey } from "@kappa/kafka-protocol";
import { KafkaConnection } from "@kappa/kafka-protocol/client";

const TOPICS = Number(process.env.BENCH_TOPICS ?? 2000);
const PARTITIONS = Number(process.env.BENCH_PARTITIONS ?? 6);
const BATCH = Math.max(1, Number(process.env.BENCH_BATCH ?? 100));
const CONCURRENCY = Math.max(1, Number(process.env.BENCH_CONCURRENCY ?? 2));
const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");

/** CPU seconds (user + system, all threads) of a process so far; null off Linux. */
function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    // utime and stime are fields 14 and 15 of stat, i.e. 12 and 13 after the command name.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(" ");

async function startBroker(dataDir: string): Promise<{ proc: ChildProcess; bootstrap: string; readyMs: number }> {
  const started = performance.now();
  const proc = spawn(process.execPath, ["--import", "tsx", "bench/broker-child.ts", "--port", "0", "--data-dir", dataDir], {
    cwd: packageDir,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  // The broker logs every created topic: keep only the tail, for a failure.
  let err = "";
  proc.stderr?.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const bootstrap = await new Promise<string>((resolve, reject) => {
    let out = "";
    proc.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /ready on (\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    proc.on("exit", (code) => reject(new Error(`broker exited with ${code}: ${err}`)));
  });
  return { proc, bootstrap, readyMs: performance.now() - started };
}

function stopBroker(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    proc.removeAllListeners("exit");
    proc.once("exit", () => resolve());
    proc.kill("SIGTERM");
  });
}

async function main(): Promise<void> {
  const dataDir = process.env.BENCH_DIR ?? (await mkdtemp(join(tmpdir(), "kappa-create-topics-")));
  process.stdout.write(`create-topics bench: ${TOPICS} topics × ${PARTITIONS} partitions, ${BATCH} topics per CreateTopics, ${CONCURRENCY} in flight; data dir ${dataDir}\n`);
  process.stdout.write(`machine: load average ${load()} at the start\n`);
  const broker = await startBroker(dataDir);
  try {
    const [host, port] = broker.bootstrap.split(":");
    const conn = await KafkaConnection.open({ host: host!, port: Number(port), clientId: "create-topics-bench", sasl: null, tls: null, connectTimeoutMs: 3000, requestTimeoutMs: 120_000 });
    const version = conn.pickVersion(ApiKey.CreateTopics, 4, 7);
    const batches: string[][] = [];
    for (let i = 0; i < TOPICS; i += BATCH) {
      batches.push(Array.from({ length: Math.min(BATCH, TOPICS - i) }, (_, j) => `bench.topic-${String(i + j).padStart(6, "0")}`));
    }
    const requestMs: number[] = [];
    let next = 0;
    const cpuBefore = cpuSeconds(broker.proc.pid);
    const started = performance.now();
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, batches.length) }, async () => {
        while (next < batches.length) {
          const names = batches[next++]!;
          const t0 = performance.now();
          const res = await conn.request(
            ApiKey.CreateTopics,
            { timeoutMs: 120_000, validateOnly: false, topics: names.map((name) => ({ name, numPartitions: PARTITIONS, replicationFactor: -1, assignments: [], configs: [] })) },
            version,
          );
          requestMs.push(performance.now() - t0);
          const failed = res.topics.find((t) => t.errorCode !== 0);
          if (failed) throw new Error(`CreateTopics ${failed.name}: error ${failed.errorCode} ${failed.errorMessage ?? ""}`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpuSeconds(broker.proc.pid);
    conn.close();
    requestMs.sort((a, b) => a - b);
    const pct = (q: number): string => requestMs[Math.min(requestMs.length - 1, Math.floor(q * requestMs.length))]!.toFixed(0);
    process.stdout.write(
      `create: ${seconds.toFixed(2)} s — ${(TOPICS / seconds).toFixed(0)} topics/s, ${((TOPICS * PARTITIONS) / seconds).toFixed(0)} partitions/s; ` +
        `CreateTopics p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms (${requestMs.length} requests)\n`,
    );
    if (cpuBefore !== null && cpuAfter !== null) {
      const cpu = cpuAfter - cpuBefore;
      process.stdout.write(`broker CPU: ${cpu.toFixed(2)} s (${((cpu / seconds) * 100).toFixed(0)} % of one core; ${((cpu * 1e6) / (TOPICS * PARTITIONS)).toFixed(0)} µs per partition)\n`);
    }
    process.stdout.write(`machine: load average ${load()} after the create\n`);
    await stopBroker(broker.proc);
    const again = await startBroker(dataDir);
    process.stdout.write(`restart (clean) on ${TOPICS * PARTITIONS} partitions: ready after ${(again.readyMs / 1000).toFixed(2)} s\n`);
    await stopBroker(again.proc);
  } finally {
    if (broker.proc.exitCode === null && broker.proc.signalCode === null) broker.proc.kill("SIGKILL");
    if (!process.env.BENCH_DIR) await rm(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(`machine: load average ${load()} at the end\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`create-topics bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
