// Benchmark: `npm run bench -w packages/broker`. Environment:
//   BENCH_RECORDS (300000): records per kcat produce run (1 KiB each)
//   BENCH_RUNS (5): kcat produce runs against each of the mock and the broker,
//     alternating; the median is reported (one run of 100 MB lasts ~0.1 s
//     against the mock, too short to compare on its own)
//   BENCH_KAFKAJS_RECORDS (100000): records for the kafkajs produce/consume runs
//   BENCH_PRODUCE_ONLY=1: only the kcat produce comparison (and the disk speed it is compared with)
//   BENCH_CPU=0: leave out the CPU lines of the kcat produce runs (CPU seconds per GB produced of the broker
//     process, of its main thread alone, and of kcat against each side; Linux /proc); printed by default
//   BENCH_BROKER_PROF=<dir>: run the broker child with `--cpu-prof` writing its profile into <dir>
//   BENCH_BROKER_NODE_FLAGS="--trace-gc ...": extra node flags for the broker child (its stdout then goes to stderr)
//   BENCH_BROKER_OVERRIDES="k=v k=v": extra broker settings (`--override k=v` each), for A/B runs
//   BENCH_LATENCY_ONLY=1: only the latency runs (kafkajs at 200 and 5,000 records/s, kcat at 5,000)
//
// For 1 KiB records it measures, against the broker running as a child process
// with its default durability (acks=all is fsync'd before it is acknowledged):
//  - produce throughput with kcat (-X acks=all) and with kafkajs (acks=-1)
//  - the same bytes from a light client (raw-produce.ts: Produce requests encoded
//    before the clock starts, 8 in flight), i.e. what the broker takes when the
//    client's own CPU does not share the 2 cores with it; with the broker's minor
//    page faults per GB beside each (this VM prices a fault into memory the host
//    took back at several times a copy)
//  - consume throughput from beginning to end with kcat and with kafkajs
//  - produce latency p50/p99 at fixed rates, 200 and 5,000 records/s (kafkajs,
//    one record per send, acks=-1), and at 5,000 records/s with kcat/librdkafka
//    (linger.ms=0, acks=all; librdkafka's own request round trips from its
//    protocol debug log)
//  - beside each produce figure, the broker's own request timing for the same
//    requests (frame complete → response written, from net/request-metrics.ts,
//    read over IPC from bench/broker-child.ts) and the CPU the client used
// and, in the same run, for comparison:
//  - the same kcat produce and consume against librdkafka's in-memory mock
//    cluster (`kcat -X test.mock.num.brokers=1`), reached over TCP like the broker
//  - this machine's fsync'd sequential write speed (1 MiB writes, fdatasync each).
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Kafka, logLevel, type Admin } from "kafkajs";
import { rawProduce, type RawProduceResult } from "./raw-produce.ts";

const RECORDS = Number(process.env.BENCH_RECORDS ?? 300_000);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 5));
const KAFKAJS_RECORDS = Math.min(RECORDS, Number(process.env.BENCH_KAFKAJS_RECORDS ?? 100_000));
const PRODUCE_ONLY = process.env.BENCH_PRODUCE_ONLY === "1";
const LATENCY_ONLY = process.env.BENCH_LATENCY_ONLY === "1";
const RECORD_BYTES = 1024;
const PARTITIONS = 4; // what librdkafka's mock cluster auto-creates, so both sides match
const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");

interface Timed {
  ms: number;
  stdout: string;
  stderr: string;
  /** The child's CPU seconds (all its threads), sampled every 20 ms while it ran (Linux; 0 elsewhere). */
  cpu: number;
}

function run(cmd: string, args: string[], stdinFile?: string): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    // The records file is the child's stdin directly (no pipe through this process).
    const stdin = stdinFile ? openSync(stdinFile, "r") : "ignore";
    const child = spawn(cmd, args, { stdio: [stdin, "pipe", "pipe"] });
    let cpu = 0;
    const sampler = setInterval(() => (cpu = cpuSeconds(child.pid) ?? cpu), 20);
    if (typeof stdin === "number") closeSync(stdin);
    let stderr = "";
    child.stdout?.on("data", (d: Buffer) => {
      // Consume output counts lines only; do not keep 100 MB of records in memory.
      lines += countNewlines(d);
    });
    let lines = 0;
    child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      clearInterval(sampler);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`${cmd} ${args.join(" ")} exited with ${code}: ${stderr}`));
      else resolve({ ms, stdout: `${lines}`, stderr, cpu });
    });
  });
}

function countNewlines(b: Buffer): number {
  let n = 0;
  let i = -1;
  while ((i = b.indexOf(10, i + 1)) !== -1) n++;
  return n;
}

async function startBrokerProcess(dataDir: string): Promise<{ proc: ChildProcess; bootstrap: string }> {
  const overrides = (process.env.BENCH_BROKER_OVERRIDES ?? "").split(/\s+/).filter(Boolean).flatMap((kv) => ["--override", kv]);
  const prof = process.env.BENCH_BROKER_PROF ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_BROKER_PROF] : [];
  const nodeFlags = (process.env.BENCH_BROKER_NODE_FLAGS ?? "").split(/\s+/).filter(Boolean);
  const proc = spawn(process.execPath, [...prof, ...nodeFlags, "--import", "tsx", "bench/broker-child.ts", "--port", "0", "--data-dir", dataDir, "--override", "group.initial.rebalance.delay.ms=0", ...overrides], {
    cwd: packageDir,
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const bootstrap = await new Promise<string>((resolve, reject) => {
    let out = "";
    proc.stdout?.on("data", (d: Buffer) => {
      if (nodeFlags.length > 0) process.stderr.write(d);
      out += d.toString();
      const m = /ready on (\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    proc.on("exit", (code) => reject(new Error(`broker exited with ${code}`)));
  });
  return { proc, bootstrap };
}

interface Summary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}
interface Timing {
  apis: Record<string, { count: number; phases: Record<"queue" | "local" | "responseQueue" | "send" | "total", Summary> }>;
  /** The broker's fsyncs of active segments in the same span. */
  flush: Summary | null;
}

/** Asks the broker child for its request timing ("metrics") or to start counting afresh ("reset-metrics"). */
function brokerTiming(proc: ChildProcess, what: "metrics" | "reset-metrics"): Promise<Timing> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      if (typeof m !== "object" || m === null) return;
      proc.off("message", onMessage);
      resolve("metrics" in m && "flush" in m ? { apis: m.metrics as Timing["apis"], flush: m.flush as Summary } : { apis: {}, flush: null });
    };
    proc.on("message", onMessage);
    proc.send(what);
  });
}

/** "total p50 0.41 / p99 3.10 ms (local p99 2.9, queue p99 0.01, response queue p99 0.2 ms; 1,234 requests)" for Produce. */
function describeProduceTiming(t: Timing): string {
  const p = t.apis.Produce;
  if (!p) return "no Produce requests";
  const f = (n: number) => n.toFixed(2);
  const flush = t.flush && t.flush.count > 0 ? `; fsyncs p50 ${f(t.flush.p50)} / p99 ${f(t.flush.p99)} ms (${t.flush.count.toLocaleString("en-US")})` : "";
  return `total p50 ${f(p.phases.total.p50)} / p99 ${f(p.phases.total.p99)} ms (handler p50 ${f(p.phases.local.p50)} / p99 ${f(p.phases.local.p99)}, queue p99 ${f(p.phases.queue.p99)}, behind earlier response p99 ${f(p.phases.responseQueue.p99)}, send p99 ${f(p.phases.send.p99)} ms; ${p.count.toLocaleString("en-US")} requests${flush})`;
}

function brokerCpuLine(before: number | null, after: number | null, seconds: number): string {
  if (before === null || after === null) return "unknown";
  const s = after - before;
  return `${s.toFixed(2)} s over ${seconds} s (${((s / seconds) * 100).toFixed(0)} % of one core)`;
}

const loadNow = () => `load ${loadavg().map((l) => l.toFixed(1)).join(" ")}`;

/**
 * kcat (librdkafka) producing `rate` records a second for `seconds`, fed on
 * stdin by this process, with linger.ms=0 and acks=all. Returns librdkafka's
 * round-trip time of each ProduceRequest (its protocol debug log: request sent
 * → response received), sorted, and the records per request.
 */
async function kcatLatency(bootstrap: string, topic: string, rate: number, seconds: number, lines: string[]): Promise<{ rtts: number[]; recordsPerRequest: number; kcatCpu: number | null }> {
  const child = spawn("kcat", ["-b", bootstrap, "-P", "-t", topic, "-X", "acks=all", "-X", "linger.ms=0", "-d", "protocol"], { stdio: ["pipe", "ignore", "pipe"] });
  const rtts: number[] = [];
  let tail = "";
  child.stderr.on("data", (d: Buffer) => {
    const text = tail + d.toString();
    const cut = text.lastIndexOf("\n");
    tail = text.slice(cut + 1);
    for (const m of text.slice(0, cut + 1).matchAll(/Received ProduceResponse \(.*rtt ([\d.]+)ms\)/g)) rtts.push(Number(m[1]));
  });
  const exited = new Promise<number | null>((r) => child.once("close", r));
  const total = rate * seconds;
  const start = performance.now();
  let i = 0;
  while (i < total) {
    const now = performance.now();
    let out = "";
    while (i < total && start + (i * 1000) / rate <= now) out += lines[i++ % lines.length];
    if (out) child.stdin.write(out);
    const wait = start + (i * 1000) / rate - performance.now();
    await new Promise((r) => (wait >= 1 ? setTimeout(r, Math.floor(wait)) : setImmediate(r)));
  }
  const kcatCpu = cpuSeconds(child.pid);
  child.stdin.end();
  const code = await exited;
  if (code !== 0) throw new Error(`kcat latency run exited with ${code}`);
  return { rtts: rtts.sort((a, b) => a - b), recordsPerRequest: total / Math.max(1, rtts.length), kcatCpu };
}

/** A kcat process whose only job is to keep librdkafka's mock cluster alive; returns its bootstrap address. */
async function startMockCluster(): Promise<{ proc: ChildProcess; bootstrap: string }> {
  const proc = spawn("kcat", ["-X", "test.mock.num.brokers=1", "-P", "-t", "holder", "-b", "unused:1"], { stdio: ["pipe", "ignore", "pipe"] });
  const bootstrap = await new Promise<string>((resolve, reject) => {
    let err = "";
    proc.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /replaced with (127\.0\.0\.1:\d+)/.exec(err);
      if (m?.[1]) resolve(m[1]);
    });
    proc.on("exit", (code) => reject(new Error(`mock kcat exited with ${code}: ${err}`)));
  });
  return { proc, bootstrap };
}

/**
 * MB/s of `mib` sequential 1 MiB writes with an fdatasync each, and the CPU
 * seconds per GB they cost this process (all threads). With `files` > 1 the
 * MiBs are spread over that many files written side by side, each with its
 * own write + fdatasync loop: the pattern of a produce to that many partitions
 * (one log file and one fsync per partition).
 */
async function fsyncWriteSpeed(dir: string, mib: number, files = 1): Promise<{ mbs: number; cpuPerGb: number }> {
  const chunk = randomBytes(1024 * 1024);
  const per = Math.ceil(mib / files);
  const handles = await Promise.all(Array.from({ length: files }, (_, f) => open(join(dir, `fsync-test-${f}`), "w")));
  const cpu0 = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(
    handles.map(async (h) => {
      for (let i = 0; i < per; i++) {
        await h.write(chunk, 0, chunk.length, i * chunk.length);
        await h.datasync();
      }
    }),
  );
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  for (const h of handles) await h.close();
  for (let f = 0; f < files; f++) await rm(join(dir, `fsync-test-${f}`));
  const total = per * files;
  return { mbs: total / (ms / 1000), cpuPerGb: (cpu.user + cpu.system) / 1e6 / ((total * 1024 * 1024) / 1e9) };
}

/**
 * The disk's floor for acks=all latency: one small append (`bytes`) and an
 * fdatasync of it, back to back for `ms`; returns each append+fsync's time, sorted.
 */
async function fsyncLatencies(dir: string, bytes: number, ms: number): Promise<number[]> {
  const path = join(dir, "fsync-latency-test");
  const h = await open(path, "w");
  const chunk = randomBytes(bytes);
  const out: number[] = [];
  const until = performance.now() + ms;
  for (let pos = 0; performance.now() < until; pos += bytes) {
    const t0 = performance.now();
    await h.write(chunk, 0, bytes, pos);
    await h.datasync();
    out.push(performance.now() - t0);
  }
  await h.close();
  await rm(path);
  return out.sort((a, b) => a - b);
}

/**
 * User + system CPU seconds of a process so far (Linux /proc; null elsewhere);
 * with `mainThread`, of its main thread only (the one JavaScript event loop,
 * without libuv's file threads, GC helpers and worker threads).
 */
function cpuSeconds(pid: number | undefined, mainThread = false): number | null {
  if (pid === undefined) return null;
  try {
    const fields = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    // utime and stime are fields 14 and 15 of stat, i.e. 12 and 13 after the command name.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** The process's minor page faults so far (Linux /proc; null elsewhere): on this VM each fault into memory the host took back is priced at several times a copy. */
function minorFaults(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // minflt is field 10 of stat, i.e. 7 after the command name.
    return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[7]);
  } catch {
    return null;
  }
}

function mbps(records: number, ms: number): string {
  return `${((records * RECORD_BYTES) / 1024 / 1024 / (ms / 1000)).toFixed(1)} MB/s, ${Math.round(records / (ms / 1000)).toLocaleString("en-US")} rec/s`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Median throughput with the spread of the runs, e.g. "350.1 MB/s, ... (runs 330.0–360.2 MB/s)". */
function mbpsRuns(records: number, runsMs: number[]): string {
  const rate = (ms: number) => (records * RECORD_BYTES) / 1024 / 1024 / (ms / 1000);
  const rates = runsMs.map(rate);
  return `${mbps(records, median(runsMs))} (median of ${runsMs.length}; runs ${Math.min(...rates).toFixed(0)}–${Math.max(...rates).toFixed(0)} MB/s)`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** kcat's produce of `file`: wall ms and kcat's own CPU seconds. */
async function kcatProduce(bootstrap: string, topic: string, file: string): Promise<{ ms: number; cpu: number }> {
  const r = await run("kcat", ["-b", bootstrap, "-P", "-t", topic, "-X", "acks=all"], file);
  return { ms: r.ms, cpu: r.cpu };
}

/** Consumes from the beginning to the end (or `limit` records); returns time and count. */
async function kcatConsume(bootstrap: string, topic: string, limit?: number): Promise<{ ms: number; count: number }> {
  const args = ["-b", bootstrap, "-C", "-t", topic, "-o", "beginning", "-e", "-q", "-f", "%s\n"];
  if (limit !== undefined) args.push("-c", String(limit));
  const r = await run("kcat", args);
  return { ms: r.ms, count: Number(r.stdout) };
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "kappa-bench-"));
  try {
    await runIn(work);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function runIn(work: string): Promise<void> {
  const dataDir = join(work, "data");
  const file = join(work, "records.txt");
  const line = (i: number) => `${String(i).padStart(10, "0")}-${randomBytes(760).toString("base64").slice(0, RECORD_BYTES - 12)}\n`;
  const lines: string[] = [];
  // Written in chunks: 300 MB in one string is close to V8's string length limit.
  const out = await open(file, "w");
  let chunk: string[] = [];
  for (let i = 0; i < RECORDS; i++) {
    const l = line(i);
    if (i < KAFKAJS_RECORDS) lines.push(l);
    chunk.push(l);
    if (chunk.length === 10_000 || i === RECORDS - 1) {
      await out.write(chunk.join(""));
      chunk = [];
    }
  }
  await out.close();
  const results: Array<[string, string]> = [];
  const note = (k: string, v: string) => {
    results.push([k, v]);
    process.stdout.write(`${k.padEnd(52)} ${v}\n`);
  };
  process.stdout.write(
    `kappa broker benchmark: ${RECORDS.toLocaleString("en-US")} records of ${RECORD_BYTES} bytes per kcat run (${RUNS} runs each), ${PARTITIONS} partitions\n` +
      `machine: load average ${loadavg().map((l) => l.toFixed(2)).join(" ")} at the start (other work on the machine skews every figure)\n` +
      `broker overrides: ${process.env.BENCH_BROKER_OVERRIDES?.trim() || "none"} (log.page.cache.window.bytes is 16 MiB unless overridden; -1 keeps the whole log in the page cache, as Kafka)\n\n`,
  );

  let completed = false;
  const mock = await startMockCluster();
  const broker = await startBrokerProcess(dataDir);
  try {
    const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, clientId: "bench" });
    const admin = kafka.admin();
    await admin.connect();
    const kcatTopics = Array.from({ length: RUNS }, (_, i) => `bench-kcat-${i}`);
    await admin.createTopics({
      topics: [...kcatTopics.map((topic) => ({ topic, numPartitions: PARTITIONS })), { topic: "bench-kafkajs", numPartitions: PARTITIONS }, { topic: "bench-latency" }],
    });

    // Alternating runs, so that a slow spell of the machine hits both sides alike;
    // a fresh topic per run on each side.
    const mockRuns: number[] = [];
    const brokerRuns: number[] = [];
    let brokerCpu = 0;
    let brokerMainCpu = 0;
    await brokerTiming(broker.proc, "reset-metrics");
    let kcatMockCpu = 0;
    let kcatBrokerCpu = 0;
    let brokerFaults = 0;
    for (let i = 0; i < (LATENCY_ONLY ? 0 : RUNS); i++) {
      const onMock = await kcatProduce(mock.bootstrap, `bench-${i}`, file);
      mockRuns.push(onMock.ms);
      kcatMockCpu += onMock.cpu;
      const cpu0 = cpuSeconds(broker.proc.pid);
      const main0 = cpuSeconds(broker.proc.pid, true);
      const faults0 = minorFaults(broker.proc.pid);
      const onBroker = await kcatProduce(broker.bootstrap, kcatTopics[i]!, file);
      const faults1 = minorFaults(broker.proc.pid);
      if (faults0 !== null && faults1 !== null) brokerFaults += faults1 - faults0;
      brokerRuns.push(onBroker.ms);
      kcatBrokerCpu += onBroker.cpu;
      const cpu1 = cpuSeconds(broker.proc.pid);
      const main1 = cpuSeconds(broker.proc.pid, true);
      if (cpu0 !== null && cpu1 !== null) brokerCpu += cpu1 - cpu0;
      if (main0 !== null && main1 !== null) brokerMainCpu += main1 - main0;
    }
    if (LATENCY_ONLY) {
      await latencyRuns(kafka, broker, lines, note);
      await admin.disconnect();
      completed = true;
      return;
    }
    const mockProduce = median(mockRuns);
    const brokerProduce = median(brokerRuns);
    const kcatTiming = await brokerTiming(broker.proc, "metrics");
    note("mock cluster: kcat produce acks=all", mbpsRuns(RECORDS, mockRuns));
    note("broker: kcat produce acks=all (fsync'd)", mbpsRuns(RECORDS, brokerRuns));
    note("  produce vs mock, medians (target ≥ 60 %)", `${((mockProduce / brokerProduce) * 100).toFixed(0)} %`);
    note("  broker side, Produce requests of those runs", describeProduceTiming(kcatTiming));
    if (process.env.BENCH_CPU !== "0") {
      const wall = brokerRuns.reduce((a, b) => a + b, 0) / 1000;
      const gb = (RUNS * RECORDS * RECORD_BYTES) / 1e9;
      note("  broker process CPU during its kcat runs", `${brokerCpu.toFixed(2)} s over ${wall.toFixed(2)} s wall (${((brokerCpu / wall) * 100).toFixed(0)} % of one core; ${(brokerCpu / gb).toFixed(2)} CPU-s per GB)`);
      note("  of which its main (event loop) thread", `${brokerMainCpu.toFixed(2)} s (${((brokerMainCpu / wall) * 100).toFixed(0)} % of one core; ${(brokerMainCpu / gb).toFixed(2)} CPU-s per GB)`);
      note("  of which its other threads (libuv pool, V8)", `${(brokerCpu - brokerMainCpu).toFixed(2)} s (${((brokerCpu - brokerMainCpu) / gb).toFixed(2)} CPU-s per GB; the pool does the log writes and fdatasyncs)`);
      note("  broker page faults (minor)", `${Math.round(brokerFaults / gb).toLocaleString("en-US")} per GB`);
      note("  kcat's own CPU (client + librdkafka)", `${(kcatMockCpu / gb).toFixed(2)} CPU-s per GB against the mock (the mock cluster runs inside kcat), ${(kcatBrokerCpu / gb).toFixed(2)} against the broker`);
    }
    brokerProduceMedianMs = brokerProduce;
    if (!LATENCY_ONLY) await lightClientRuns(admin, broker, note);
    if (PRODUCE_ONLY) {
      await admin.disconnect();
      completed = true;
      return;
    }
    // The mock keeps only the newest ~5 MB per partition, so its consume run reads
    // fewer records; the broker's comparable run reads the same count (-c).
    const mockConsume = await kcatConsume(mock.bootstrap, "bench-0");
    note(`mock cluster: kcat consume beginning→end (${mockConsume.count} kept)`, mbps(mockConsume.count, mockConsume.ms));

    const brokerConsume = await kcatConsume(broker.bootstrap, "bench-kcat-0");
    if (brokerConsume.count !== RECORDS) throw new Error(`kcat consumed ${brokerConsume.count} records from the broker, expected ${RECORDS}`);
    note("broker: kcat consume beginning→end", mbps(RECORDS, brokerConsume.ms));
    const brokerConsumeSame = await kcatConsume(broker.bootstrap, "bench-kcat-0", mockConsume.count);
    note(`broker: kcat consume first ${mockConsume.count} (same count as mock)`, mbps(brokerConsumeSame.count, brokerConsumeSame.ms));
    note("  consume vs mock, same count (target ≥ 80 %)", `${((mockConsume.ms / brokerConsumeSame.ms) * 100).toFixed(0)} %`);

    // kafkajs produce: batches of 500 records, 4 sends in flight (one per partition).
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const payloads = lines.map((l) => ({ value: Buffer.from(l.slice(0, RECORD_BYTES)) }));
    const kjStart = process.hrtime.bigint();
    const per = 500;
    let next = 0;
    await Promise.all(
      Array.from({ length: PARTITIONS }, async (_, partition) => {
        for (;;) {
          const from = next;
          next += per;
          if (from >= KAFKAJS_RECORDS) return;
          await producer.send({ topic: "bench-kafkajs", acks: -1, messages: payloads.slice(from, Math.min(KAFKAJS_RECORDS, from + per)).map((m) => ({ ...m, partition })) });
        }
      }),
    );
    note("broker: kafkajs produce acks=-1 (fsync'd)", mbps(KAFKAJS_RECORDS, Number(process.hrtime.bigint() - kjStart) / 1e6));

    const consumer = kafka.consumer({ groupId: "bench", maxBytes: 50 * 1024 * 1024, maxBytesPerPartition: 10 * 1024 * 1024, maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic: "bench-kafkajs", fromBeginning: true });
    let consumed = 0;
    let consumeStart = 0n;
    const consumeMs = await new Promise<number>((resolve) => {
      consumer.on(consumer.events.GROUP_JOIN, () => {
        consumeStart = process.hrtime.bigint();
      });
      void consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          consumed += batch.messages.length;
          if (consumed >= KAFKAJS_RECORDS) resolve(Number(process.hrtime.bigint() - consumeStart) / 1e6);
        },
      });
    });
    await consumer.disconnect();
    note("broker: kafkajs consume beginning→end (after join)", mbps(KAFKAJS_RECORDS, consumeMs));

    await producer.disconnect();
    await latencyRuns(kafka, broker, lines, note);
    await admin.disconnect();
    completed = true;
  } finally {
    broker.proc.kill("SIGTERM");
    // `kcat -P` holding the mock flushes and waits for stdin's end on SIGTERM:
    // close stdin, and kill it outright if it still lingers, or the bench never exits.
    const mockGone = new Promise((r) => (mock.proc.exitCode !== null ? r(null) : mock.proc.once("exit", r)));
    mock.proc.stdin?.end();
    mock.proc.kill("SIGTERM");
    const lingering = setTimeout(() => mock.proc.kill("SIGKILL"), 2000);
    await Promise.all([new Promise((r) => broker.proc.once("exit", r)), mockGone]);
    clearTimeout(lingering);
    if (completed) await diskAndSummary(work, note);
  }
}

let brokerProduceMedianMs = 0;
/** MB/s of the light client's runs (median), for the comparison with the disk. */
let lightClientMBs = 0;

/**
 * The same bytes produced by a client that costs almost nothing (raw-produce.ts: requests
 * encoded before the clock starts), RUNS runs of RECORDS records each to fresh topics: what
 * the broker takes when kcat's own CPU is not sharing the 2 cores with it.
 */
async function lightClientRuns(admin: Admin, broker: { proc: ChildProcess; bootstrap: string }, note: (k: string, v: string) => void): Promise<void> {
  const topics = Array.from({ length: RUNS }, (_, i) => `bench-raw-${i}`);
  await admin.createTopics({ topics: topics.map((topic) => ({ topic, numPartitions: PARTITIONS })) });
  const [host, port] = splitHostPort(broker.bootstrap);
  const runs: RawProduceResult[] = [];
  let brokerCpu = 0;
  let brokerMainCpu = 0;
  const faults0 = minorFaults(broker.proc.pid);
  await brokerTiming(broker.proc, "reset-metrics");
  for (const topic of topics) {
    const cpu0 = cpuSeconds(broker.proc.pid);
    const main0 = cpuSeconds(broker.proc.pid, true);
    runs.push(await rawProduce({ host, port, topic, partitions: PARTITIONS, bytes: RECORDS * RECORD_BYTES, recordBytes: RECORD_BYTES }));
    const cpu1 = cpuSeconds(broker.proc.pid);
    const main1 = cpuSeconds(broker.proc.pid, true);
    if (cpu0 !== null && cpu1 !== null) brokerCpu += cpu1 - cpu0;
    if (main0 !== null && main1 !== null) brokerMainCpu += main1 - main0;
  }
  const rates = runs.map((r) => r.bytes / 1024 / 1024 / (r.ms / 1000));
  lightClientMBs = median(rates);
  const gb = runs.reduce((n, r) => n + r.bytes, 0) / 1e9;
  const clientCpu = runs.reduce((n, r) => n + r.clientCpu, 0);
  note(
    "broker: light client produce acks=-1 (fsync'd)",
    `${lightClientMBs.toFixed(1)} MB/s (median of ${runs.length}; runs ${Math.min(...rates).toFixed(0)}–${Math.max(...rates).toFixed(0)} MB/s; ${runs[0]!.requests} requests of ~1 MiB each, 8 in flight)`,
  );
  note("  broker side, Produce requests of those runs", describeProduceTiming(await brokerTiming(broker.proc, "metrics")));
  if (process.env.BENCH_CPU !== "0") {
    note("  broker process CPU (main thread / others)", `${(brokerCpu / gb).toFixed(2)} CPU-s per GB (${(brokerMainCpu / gb).toFixed(2)} / ${((brokerCpu - brokerMainCpu) / gb).toFixed(2)})`);
    note("  the light client's own CPU", `${(clientCpu / gb).toFixed(2)} CPU-s per GB`);
    const faults1 = minorFaults(broker.proc.pid);
    if (faults0 !== null && faults1 !== null) note("  broker page faults (minor)", `${Math.round((faults1 - faults0) / gb).toLocaleString("en-US")} per GB`);
  }
}

function splitHostPort(bootstrap: string): [string, number] {
  const at = bootstrap.lastIndexOf(":");
  return [bootstrap.slice(0, at), Number(bootstrap.slice(at + 1))];
}

/**
 * Latency at fixed rates, one 1 KiB record per send, acks=all: kafkajs at 200/s
 * for 5 s and 5,000/s for 4 s, then kcat (librdkafka) at 5,000/s for 4 s; each
 * with the broker's own timing of the same Produce requests and the client's CPU.
 */
async function latencyRuns(kafka: Kafka, broker: { proc: ChildProcess; bootstrap: string }, lines: string[], note: (k: string, v: string) => void): Promise<void> {
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const payloads = lines.map((l) => ({ value: Buffer.from(l.slice(0, RECORD_BYTES)) }));
  // Warm-up: connections, metadata, JIT.
  for (let i = 0; i < 50; i++) await producer.send({ topic: "bench-latency", acks: -1, messages: [payloads[i]!] });
  for (const [rate, seconds, target] of [
    [200, 5, ""],
    [5000, 4, " (target p99 ≤ 5 ms)"],
  ] as const) {
    await brokerTiming(broker.proc, "reset-metrics");
    const brokerCpu0 = cpuSeconds(broker.proc.pid);
    const cpu0 = process.cpuUsage();
    const load = loadNow();
    const latencies = await fixedRateLatencies(rate, seconds, (i) =>
      producer.send({ topic: "bench-latency", acks: -1, messages: [payloads[i % payloads.length]!] }).then(() => undefined),
    );
    const cpu = process.cpuUsage(cpu0);
    const timing = await brokerTiming(broker.proc, "metrics");
    note(
      `broker: kafkajs produce latency @${rate.toLocaleString("en-US")} rec/s acks=-1${target}`,
      `p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms, max ${latencies[latencies.length - 1]!.toFixed(2)} ms (${latencies.length} sends; ${load})`,
    );
    note("  broker side, the same Produce requests", describeProduceTiming(timing));
    note("  broker process CPU", brokerCpuLine(brokerCpu0, cpuSeconds(broker.proc.pid), seconds));
    const cpuS = (cpu.user + cpu.system) / 1e6;
    note("  kafkajs client process CPU", `${cpuS.toFixed(2)} s over ${seconds} s (${((cpuS / seconds) * 100).toFixed(0)} % of one core, ${((cpuS * 1e6) / (rate * seconds)).toFixed(0)} µs per send)`);
  }
  await producer.disconnect();
  const rate = 5000;
  const seconds = 4;
  await brokerTiming(broker.proc, "reset-metrics");
  const load = loadNow();
  const brokerCpu0 = cpuSeconds(broker.proc.pid);
  const k = await kcatLatency(broker.bootstrap, "bench-latency", rate, seconds, lines);
  const timing = await brokerTiming(broker.proc, "metrics");
  note(
    `broker: kcat produce request RTT @${rate.toLocaleString("en-US")} rec/s acks=all linger.ms=0`,
    `p50 ${percentile(k.rtts, 50).toFixed(2)} ms, p99 ${percentile(k.rtts, 99).toFixed(2)} ms, max ${(k.rtts[k.rtts.length - 1] ?? NaN).toFixed(2)} ms (${k.rtts.length} requests, ${k.recordsPerRequest.toFixed(1)} records each; ${load})`,
  );
  note("  broker side, the same Produce requests", describeProduceTiming(timing));
  note("  broker process CPU", brokerCpuLine(brokerCpu0, cpuSeconds(broker.proc.pid), seconds));
  if (k.kcatCpu !== null) note("  kcat client process CPU", `${k.kcatCpu.toFixed(2)} s over ${seconds} s (${((k.kcatCpu / seconds) * 100).toFixed(0)} % of one core)`);
}

/** The disk's fsync'd write speed (after the broker stopped, so its writeback does not slow the broker runs) and the ratio to it. */
async function diskAndSummary(work: string, note: (k: string, v: string) => void): Promise<void> {
  const disk = await fsyncWriteSpeed(work, 256);
  const fsyncMBs = disk.mbs;
  note("disk: sequential 1 MiB writes, fdatasync each", `${fsyncMBs.toFixed(1)} MB/s, ${disk.cpuPerGb.toFixed(2)} CPU-s per GB (${loadNow()})`);
  // The broker's produce writes PARTITIONS log files, each fsync'd on its own: the same writes spread over as many files, for comparison (the goal's ratio stays the one above).
  const spread = await fsyncWriteSpeed(work, 256, PARTITIONS);
  note(`disk: the same over ${PARTITIONS} files side by side`, `${spread.mbs.toFixed(1)} MB/s, ${spread.cpuPerGb.toFixed(2)} CPU-s per GB (${loadNow()}; the broker's pattern for ${PARTITIONS} partitions)`);
  // The same again with as many bytes as the broker wrote in its kcat runs, the files kept until the end: the page
  // cache then grows as it does under a log that keeps its segments. The 256 MiB lines above mostly land in memory the
  // runs before just freed; on a VM that hands freed memory back to its host (free page reporting), the first write into
  // memory not recently freed costs several times the copy (see the README), and the broker's segments pay that.
  const logMiB = Math.ceil((RUNS * RECORDS * RECORD_BYTES) / 1024 / 1024);
  const grown = await fsyncWriteSpeed(work, logMiB, PARTITIONS);
  note(`disk: ${logMiB} MiB over ${PARTITIONS} files (the broker's bytes)`, `${grown.mbs.toFixed(1)} MB/s, ${grown.cpuPerGb.toFixed(2)} CPU-s per GB (${loadNow()}; files kept until the end, as a log's segments are)`);
  const small = await fsyncLatencies(work, 5 * RECORD_BYTES, 3000);
  note("disk: 5 KiB append + fdatasync, back to back for 3 s", `p50 ${percentile(small, 50).toFixed(2)} ms, p99 ${percentile(small, 99).toFixed(2)} ms (${small.length} fsyncs; the floor of an acks=all answer)`);
  if (brokerProduceMedianMs > 0) {
    const brokerMBs = (RECORDS * RECORD_BYTES) / 1024 / 1024 / (brokerProduceMedianMs / 1000);
    note("  broker produce vs fsync'd disk (target ≥ 90 %)", `${((brokerMBs / fsyncMBs) * 100).toFixed(0)} %`);
    note(`  broker produce vs the ${PARTITIONS}-file disk figure`, `${((brokerMBs / spread.mbs) * 100).toFixed(0)} %`);
    note(`  broker produce vs the ${logMiB} MiB disk figure`, `${((brokerMBs / grown.mbs) * 100).toFixed(0)} %`);
  }
  if (lightClientMBs > 0) {
    note("  light-client produce vs fsync'd disk", `${((lightClientMBs / fsyncMBs) * 100).toFixed(0)} %`);
    note(`  light-client produce vs the ${logMiB} MiB disk figure`, `${((lightClientMBs / grown.mbs) * 100).toFixed(0)} %`);
  }
  process.stdout.write(`\nmachine: load average ${loadavg().map((l) => l.toFixed(2)).join(" ")} at the end\n`);
}

/**
 * Sends `rate` times a second for `seconds` (one call per due time; a late
 * timer sends the overdue ones at once, as a real producer would) and
 * returns each send's latency in ms, sorted.
 */
async function fixedRateLatencies(rate: number, seconds: number, send: (i: number) => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  const total = rate * seconds;
  const start = performance.now();
  const inflight: Array<Promise<void>> = [];
  let i = 0;
  while (i < total) {
    const now = performance.now();
    while (i < total && start + (i * 1000) / rate <= now) {
      const t0 = performance.now();
      inflight.push(send(i).then(() => void latencies.push(performance.now() - t0)));
      i++;
    }
    const wait = start + (i * 1000) / rate - performance.now();
    await new Promise((r) => (wait >= 1 ? setTimeout(r, Math.floor(wait)) : setImmediate(r)));
  }
  await Promise.all(inflight);
  return latencies.sort((a, b) => a - b);
}

main().catch((err: unknown) => {
  process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
