// The embedded broker beside Apache Kafka (the reference), same machine, same run, same client commands:
// `npm run bench -w packages/broker` runs it after bench/broker.ts; alone: `npx tsx bench/apache-kafka.ts`.
// Environment:
//   BENCH_APACHE_ROUNDS (3): interleaved rounds (embedded, Kafka default, Kafka flush.messages=1 in turn)
//   BENCH_APACHE_RECORDS (500000): records per Java producer/consumer run (200 B)
//   BENCH_APACHE_KCAT_RECORDS (200000): records per kcat run (1 KiB)
//   BENCH_APACHE_CTP_RECORDS (500000): records through the consume-transform-produce chain (200 B)
//   BENCH_APACHE_CTP_RECORD_SIZE (200): bytes per record of the chain
//   BENCH_APACHE_CTP_FLUSH (poll): "poll" — members flush their producer before each commit (every committed
//     record acknowledged: at-least-once); "end" — they commit each poll's offsets once its records are sent
//     and flush the producer at the end
//   BENCH_APACHE_CTP_MEMBERS (3), BENCH_APACHE_CTP_PARTITIONS (6): the chain's group members, and partitions
//     of its source and sink topics
//   BENCH_APACHE_TARGETS (all): which sides to run, a comma list of embedded, kafka, kafka-flush (for profiling
//     one side; the ratios need all three)
//   BENCH_BROKER_OVERRIDES="k=v k=v": extra settings of the embedded broker (`--override k=v` each), for A/B
//     runs — e.g. log.page.cache.window.bytes=-1 keeps every written byte in the page cache, as Kafka does
//   BENCH_BROKER_PROF=<dir>: run the embedded broker with `--cpu-prof` writing its profile into <dir>
//     (bench/profile-top.ts reads it)
//   BENCH_APACHE_FIGURES (all): which figures to run, a comma list of java, latency, kcat, kafkajs, ctp
//
// Apache Kafka runs as one node from packages/engines (the release the product is tested on), with two
// topics: one with Kafka's default durability (acks=all is answered once the record is in the page
// cache; Kafka relies on replication) and one with `flush.messages=1` (an fsync per write: the embedded
// broker's guarantee on acks=all). Clients: Kafka's own ProducerPerformance / ConsumerPerformance
// (the Java client), Debian's kcat (librdkafka 2.0.2 — over PLAIN, since it cannot do SCRAM with
// Kafka 4.x), and kafkajs. Ratios are embedded ÷ Kafka for throughput, Kafka ÷ embedded for latency
// (> 1 is the embedded broker ahead).
//
// The consume-transform-produce chain (issue 28): bench/CtpChain.java, compiled with the release's `javac`-able
// jars into the run's folder, runs BENCH_APACHE_CTP_MEMBERS members of one consumer group, each with its own
// idempotent acks=all producer; per poll they produce every record to a sink topic, flush (BENCH_APACHE_CTP_FLUSH), and commit the
// poll's offsets (commitSync). The source topic is filled beforehand with ProducerPerformance (not timed); the
// figure is records/s from the consumers' start to the last commit, and the run is checked afterwards: the
// group's committed offsets equal the source's end offsets, and the sink holds at least every record.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Kafka, logLevel } from "kafkajs";
import { ensureApacheKafka, findJava, startApacheKafka, type ApacheKafkaCluster } from "@kappa/engines";

const ROUNDS = Math.max(1, Number(process.env.BENCH_APACHE_ROUNDS ?? 3));
const RECORDS = Number(process.env.BENCH_APACHE_RECORDS ?? 500_000);
const KCAT_RECORDS = Number(process.env.BENCH_APACHE_KCAT_RECORDS ?? 200_000);
const CTP_RECORDS = Number(process.env.BENCH_APACHE_CTP_RECORDS ?? 500_000);
const CTP_MEMBERS = Math.max(1, Number(process.env.BENCH_APACHE_CTP_MEMBERS ?? 3));
const CTP_PARTITIONS = Math.max(1, Number(process.env.BENCH_APACHE_CTP_PARTITIONS ?? 6));
const CTP_RECORD_SIZE = Math.max(1, Number(process.env.BENCH_APACHE_CTP_RECORD_SIZE ?? 200));
const CTP_FLUSH = process.env.BENCH_APACHE_CTP_FLUSH ?? "poll";
if (CTP_FLUSH !== "end" && CTP_FLUSH !== "poll") throw new Error(`BENCH_APACHE_CTP_FLUSH: "end" or "poll", not "${CTP_FLUSH}"`);
const FIGURE_NAMES = ["java", "latency", "kcat", "kafkajs", "ctp"] as const;
const FIGURES = new Set((process.env.BENCH_APACHE_FIGURES ?? FIGURE_NAMES.join(",")).split(",").map((f) => f.trim()));
for (const f of FIGURES) if (!(FIGURE_NAMES as readonly string[]).includes(f)) throw new Error(`BENCH_APACHE_FIGURES: unknown figure "${f}" (known: ${FIGURE_NAMES.join(", ")})`);
const PARTITIONS = 4;
const packageDir = join(import.meta.dirname, "..");

type Target = "embedded" | "kafka" | "kafka-flush";
const ALL_TARGETS: Target[] = ["embedded", "kafka", "kafka-flush"];
const TARGETS = (process.env.BENCH_APACHE_TARGETS ?? ALL_TARGETS.join(",")).split(",").map((t) => t.trim()) as Target[];
for (const t of TARGETS) if (!ALL_TARGETS.includes(t)) throw new Error(`BENCH_APACHE_TARGETS: unknown target "${t}" (known: ${ALL_TARGETS.join(", ")})`);

interface Side {
  bootstrap: string;
  /** Java client properties (SASL for Kafka, none for the embedded broker). */
  clientConfig: string;
  kcatArgs: string[];
  kafkajs: Kafka;
  topic: (name: string) => string;
}

async function startEmbedded(dataDir: string): Promise<{ proc: ChildProcess; bootstrap: string }> {
  const prof = process.env.BENCH_BROKER_PROF ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_BROKER_PROF] : [];
  const overrides = (process.env.BENCH_BROKER_OVERRIDES ?? "").split(/\s+/).filter(Boolean).flatMap((kv) => ["--override", kv]);
  const proc = spawn(process.execPath, [...prof, "--import", "tsx", "bench/broker-child.ts", "--port", "0", "--data-dir", dataDir, "--override", "group.initial.rebalance.delay.ms=0", ...overrides], {
    cwd: packageDir,
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const bootstrap = await new Promise<string>((resolve, reject) => {
    let out = "";
    proc.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /ready on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.once("exit", (code) => reject(new Error(`embedded broker exited (${code})`)));
  });
  return { proc, bootstrap };
}

function parseProducer(text: string): { recordsPerSec: number; mbPerSec: number; p99: number } {
  const m = /([\d.]+) records\/sec \(([\d.]+) MB\/sec\).*?(\d+) ms 99th/s.exec(text.trim().split("\n").filter((l) => l.includes("records sent")).pop() ?? "");
  if (!m) throw new Error(`no ProducerPerformance summary in:\n${text.slice(-1500)}`);
  return { recordsPerSec: Number(m[1]), mbPerSec: Number(m[2]), p99: Number(m[3]) };
}

/** ConsumerPerformance's CSV line; fetch.nMsg.sec leaves out the group's join and rebalance. */
function parseConsumer(text: string): number {
  const line = text.trim().split("\n").filter((l) => /^\d{4}-\d\d-\d\d/.test(l)).pop();
  const cols = line?.split(",").map((c) => c.trim());
  if (!cols || cols.length < 10) throw new Error(`no ConsumerPerformance summary in:\n${text.slice(-1500)}`);
  return Number(cols[9]);
}

function timed(cmd: string, args: string[], stdin?: Buffer): Promise<{ ms: number; out: string }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd, args, { stdio: [stdin ? "pipe" : "ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.length > 4096 ? "" : d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, out }) : reject(new Error(`${cmd} exited ${code}: ${out.slice(-800)}`))));
    if (stdin) child.stdin!.end(stdin);
  });
}

/** Compiles bench/CtpChain.java against the pinned release's jars into `dir` (javac next to the `java` that runs Kafka). */
async function compileChain(dir: string): Promise<{ java: string; classpath: string }> {
  const java = findJava();
  const javac = process.env.JAVA_HOME ? join(process.env.JAVA_HOME, "bin", "javac") : "javac";
  const libs = await ensureApacheKafka();
  const classes = join(dir, "ctp-classes");
  await timed(javac, ["-d", classes, "-cp", join(libs, "*"), join(packageDir, "bench", "CtpChain.java")]).catch((error: unknown) => {
    throw new Error(`compiling bench/CtpChain.java needs a JDK's javac (Debian: apt-get install -y openjdk-17-jdk-headless): ${error instanceof Error ? error.message : String(error)}`);
  });
  return { java, classpath: `${join(libs, "*")}:${classes}` };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "kappa-bench-apache-"));
  let kafka: ApacheKafkaCluster | undefined;
  let embedded: { proc: ChildProcess; bootstrap: string } | undefined;
  try {
    console.log(`Apache Kafka beside the embedded broker: ${ROUNDS} interleaved rounds, load ${loadavg()[0]!.toFixed(1)} at start; embedded broker overrides: ${process.env.BENCH_BROKER_OVERRIDES?.trim() || "none"}`);
    kafka = await startApacheKafka({ nodes: 1, dataDir: join(dir, "kafka"), adminPassword: "bench-secret", overrides: { "group.initial.rebalance.delay.ms": "0" }, heapMb: 1024 });
    embedded = await startEmbedded(join(dir, "embedded"));
    const noAuth = join(dir, "embedded-client.properties");
    await writeFile(noAuth, "");
    const plain = ["-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=PLAIN", "-X", `sasl.username=${kafka.adminUser}`, "-X", `sasl.password=${kafka.adminPassword}`];
    const sides: Record<Target, Side> = {
      embedded: { bootstrap: embedded.bootstrap, clientConfig: noAuth, kcatArgs: [], kafkajs: new Kafka({ brokers: [embedded.bootstrap], logLevel: logLevel.NOTHING }), topic: (n) => `${n}` },
      kafka: { bootstrap: kafka.bootstrap, clientConfig: kafka.adminClientConfig, kcatArgs: plain, kafkajs: new Kafka({ brokers: kafka.brokers, logLevel: logLevel.NOTHING, sasl: { mechanism: "plain", username: kafka.adminUser, password: kafka.adminPassword } }), topic: (n) => `${n}` },
      "kafka-flush": { bootstrap: kafka.bootstrap, clientConfig: kafka.adminClientConfig, kcatArgs: plain, kafkajs: new Kafka({ brokers: kafka.brokers, logLevel: logLevel.NOTHING, sasl: { mechanism: "plain", username: kafka.adminUser, password: kafka.adminPassword } }), topic: (n) => `${n}-flush` },
    };
    const results: Record<string, Record<Target, number[]>> = {};
    const record = (figure: string, target: Target, value: number) => ((results[figure] ??= { embedded: [], kafka: [], "kafka-flush": [] })[target].push(value));
    const kcatPayload = !FIGURES.has("kcat") ? Buffer.alloc(0) : Buffer.from(Array.from({ length: KCAT_RECORDS }, (_, i) => `${i}`.padEnd(1023, "x") + "\n").join(""));

    const chain = FIGURES.has("ctp") ? await compileChain(dir) : null;

    for (let round = 1; round <= ROUNDS; round++) {
      for (const target of TARGETS) {
        const side = sides[target];
        const admin = side.kafkajs.admin();
        await admin.connect();
        const names = { java: side.topic(`java-${round}`), kcat: side.topic(`kcat-${round}`), js: side.topic(`js-${round}`), lat: side.topic(`lat-${round}`) };
        const ctp = { source: side.topic(`ctp-source-${round}`), sink: side.topic(`ctp-sink-${round}`), group: `ctp-${target}-${round}` };
        const configEntries = target === "kafka-flush" ? [{ name: "flush.messages", value: "1" }] : [];
        await admin.createTopics({
          topics: [...Object.values(names).map((topic) => ({ topic, numPartitions: PARTITIONS, replicationFactor: 1, configEntries })), ...(chain ? [ctp.source, ctp.sink].map((topic) => ({ topic, numPartitions: CTP_PARTITIONS, replicationFactor: 1, configEntries })) : [])],
          waitForLeaders: true,
          timeout: 60_000,
        });
        const tool = (main: string, args: string[]) => kafka!.tool(main, args, 600_000);

        if (FIGURES.has("java")) {
          const produced = await tool("org.apache.kafka.tools.ProducerPerformance", ["--topic", names.java, "--num-records", String(RECORDS), "--record-size", "200", "--throughput", "-1", "--producer.config", side.clientConfig, "--producer-props", `bootstrap.servers=${side.bootstrap}`, "acks=all"]);
          const p = parseProducer(produced.text);
          record("Java producer, 200 B acks=all (records/s)", target, p.recordsPerSec);
          const consumed = await tool("org.apache.kafka.tools.ConsumerPerformance", ["--bootstrap-server", side.bootstrap, "--topic", names.java, "--messages", String(RECORDS), "--consumer.config", side.clientConfig, "--timeout", "120000"]);
          record("Java consumer, from the beginning (records/s, fetch only)", target, parseConsumer(consumed.text));
        }
        if (FIGURES.has("latency")) {
          const latency = await tool("org.apache.kafka.tools.ProducerPerformance", ["--topic", names.lat, "--num-records", "25000", "--record-size", "200", "--throughput", "5000", "--producer.config", side.clientConfig, "--producer-props", `bootstrap.servers=${side.bootstrap}`, "acks=all", "linger.ms=0"]);
          record("Java producer p99 at 5,000 records/s (ms)", target, parseProducer(latency.text).p99);
        }

        if (FIGURES.has("kcat")) {
          const kp = await timed("kcat", ["-b", side.bootstrap, ...side.kcatArgs, "-P", "-t", names.kcat, "-X", "acks=all"], kcatPayload);
          record("kcat produce, 1 KiB acks=all (MB/s)", target, kcatPayload.length / 1e6 / (kp.ms / 1000));
          const kc = await timed("kcat", ["-b", side.bootstrap, ...side.kcatArgs, "-C", "-t", names.kcat, "-o", "beginning", "-e", "-q", "-c", String(KCAT_RECORDS)]);
          record("kcat consume, from the beginning (MB/s)", target, kcatPayload.length / 1e6 / (kc.ms / 1000));
        }

        if (FIGURES.has("kafkajs")) {
          const producer = side.kafkajs.producer();
          await producer.connect();
          const value = Buffer.alloc(1024, 120);
          const jsStarted = Date.now();
          const jsRecords = 50_000;
          for (let i = 0; i < jsRecords; i += 500) await producer.send({ topic: names.js, acks: -1, messages: Array.from({ length: 500 }, (_, j) => ({ key: String(i + j), value })) });
          record("kafkajs produce, 1 KiB acks=-1 (MB/s)", target, (jsRecords * 1024) / 1e6 / ((Date.now() - jsStarted) / 1000));
          await producer.disconnect();
        }

        if (chain) {
          const filled = await tool("org.apache.kafka.tools.ProducerPerformance", ["--topic", ctp.source, "--num-records", String(CTP_RECORDS), "--record-size", String(CTP_RECORD_SIZE), "--throughput", "-1", "--producer.config", side.clientConfig, "--producer-props", `bootstrap.servers=${side.bootstrap}`, "acks=all"]);
          if (filled.code !== 0) throw new Error(`filling ${ctp.source} failed: ${filled.text.slice(-800)}`);
          const run = await timed(chain.java, ["-Xmx512m", "-cp", chain.classpath, "CtpChain", side.bootstrap, side.clientConfig, ctp.source, ctp.sink, ctp.group, String(CTP_MEMBERS), String(CTP_RECORDS), "600000", CTP_FLUSH]);
          const m = /chain (\d+) ms, (\d+) records, (\d+) polls, (\d+) commits/.exec(run.out);
          if (!m) throw new Error(`no CtpChain summary in:\n${run.out.slice(-1500)}`);
          const sourceEnds = await admin.fetchTopicOffsets(ctp.source);
          const sinkEnds = await admin.fetchTopicOffsets(ctp.sink);
          const committed = await admin.fetchOffsets({ groupId: ctp.group, topics: [ctp.source] });
          const sourceTotal = sourceEnds.reduce((n, p) => n + Number(p.high), 0);
          const sinkTotal = sinkEnds.reduce((n, p) => n + Number(p.high), 0);
          const behind = sourceEnds.filter((p) => committed[0]!.partitions.find((c) => c.partition === p.partition)?.offset !== p.high);
          if (sourceTotal !== CTP_RECORDS || sinkTotal < CTP_RECORDS || behind.length > 0) throw new Error(`chain on ${target}: source ${sourceTotal}, sink ${sinkTotal} records, ${behind.length} partitions not committed to their end`);
          record(`consume-transform-produce, ${CTP_MEMBERS} members, idempotent acks=all (records/s)`, target, CTP_RECORDS / (Number(m[1]) / 1000));
          console.log(`  ${target}: chain ${(Number(m[1]) / 1000).toFixed(1)} s (${m[3]} polls, ${m[4]} commits; sink ${sinkTotal} records; load ${loadavg()[0]!.toFixed(1)})`);
        }
        await admin.disconnect();
      }
      console.log(`round ${round}/${ROUNDS} done (load ${loadavg()[0]!.toFixed(1)})`);
    }

    const median = (xs: number[]) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
    const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
    console.log("\nfigure | embedded | Kafka default | Kafka flush.messages=1 | embedded vs default | embedded vs flush=1 (medians; ratios > 1: embedded ahead)");
    for (const [figure, byTarget] of Object.entries(results)) {
      const [e, k, f] = [median(byTarget.embedded), median(byTarget.kafka), median(byTarget["kafka-flush"])];
      const lowerIsBetter = figure.includes("(ms)");
      const ratio = (other: number) => (lowerIsBetter ? other / e : e / other).toFixed(2);
      console.log(`${figure} | ${fmt(e)} | ${fmt(k)} | ${fmt(f)} | ${ratio(k)}× | ${ratio(f)}×   (runs: ${byTarget.embedded.map(fmt).join("/")} · ${byTarget.kafka.map(fmt).join("/")} · ${byTarget["kafka-flush"].map(fmt).join("/")})`);
    }
  } finally {
    embedded?.proc.kill("SIGTERM");
    await kafka?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
