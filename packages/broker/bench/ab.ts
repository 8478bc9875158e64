// A/B of durable kcat produce: brokers started with different settings, environment or code,
// measured in the same rounds beside librdkafka's mock cluster (`npx tsx bench/ab.ts` in
// packages/broker). Each round runs one kcat produce of 300,000 1 KiB records (acks=all) against
// the mock and then against every broker (the order reversed every other round), so that a slow
// spell of the machine hits every side alike; it prints each side's median, its ratio to the
// mock's, and the CPU seconds per run of the broker process and of kcat (with GNU time). On
// this 2-core VM one run's figure moves ±10 % with the machine's state: `npm run bench` is the
// figure of record, this is for deciding whether a change helps.
//
//   AB_SIDES='name|ENV=1 ENV2=2|setting=value setting=value|/path/to/other/packages/broker;name2|...'
//     each side: a name, environment for its broker process, broker settings (--override each),
//     and the package directory whose bench/broker-child.ts runs (default: this one; a git
//     worktree of another commit compares code). Default: 'default||'.
//   AB_ROUNDS (15): rounds.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kafka, logLevel } from "kafkajs";

const ROUNDS = Number(process.env.AB_ROUNDS ?? 15);
const RECORDS = 300_000;
const RECORD_BYTES = 1024;

interface Side {
  name: string;
  env: string;
  overrides: string;
  packageDir: string;
}

interface Running extends Side {
  proc: ChildProcess;
  bootstrap: string;
  ms: number[];
  cpu: number[];
  kcatCpu: number[];
}

function sides(): Side[] {
  return (process.env.AB_SIDES ?? "default||").split(";").map((s) => {
    const [name, env, overrides, packageDir] = s.split("|");
    return { name: name || "default", env: env ?? "", overrides: overrides ?? "", packageDir: packageDir || process.cwd() };
  });
}

/** User + system CPU seconds of a process so far (Linux /proc). */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** GNU time, for kcat's own CPU (user + system seconds) when installed. */
const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;

/** One kcat produce of `file`: wall ms, and kcat's CPU seconds (NaN without /usr/bin/time). */
function produce(file: string, bootstrap: string, topic: string): { ms: number; cpu: number } {
  const fd = openSync(file, "r");
  const started = process.hrtime.bigint();
  const kcat = ["kcat", "-b", bootstrap, "-P", "-t", topic, "-X", "acks=all"];
  const r = TIME ? spawnSync(TIME, ["-f", "kcat-cpu %U %S", ...kcat], { stdio: [fd, "ignore", "pipe"] }) : spawnSync(kcat[0]!, kcat.slice(1), { stdio: [fd, "ignore", "pipe"] });
  closeSync(fd);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`kcat produce to ${bootstrap} exited with ${r.status}: ${r.stderr.toString()}`);
  const m = /kcat-cpu ([\d.]+) ([\d.]+)/.exec(r.stderr.toString());
  return { ms, cpu: m ? Number(m[1]) + Number(m[2]) : NaN };
}

async function startBroker(side: Side, dataDir: string): Promise<Running> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const kv of side.env.split(/\s+/).filter(Boolean)) {
    const eq = kv.indexOf("=");
    env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const overrides = side.overrides.split(/\s+/).filter(Boolean).flatMap((kv) => ["--override", kv]);
  const args = ["--import", "tsx", "bench/broker-child.ts", "--port", "0", "--data-dir", dataDir, "--override", "group.initial.rebalance.delay.ms=0", ...overrides];
  const proc = spawn(process.execPath, args, { env, cwd: side.packageDir, stdio: ["ignore", "pipe", "inherit", "ipc"] });
  const bootstrap = await new Promise<string>((resolve, reject) => {
    let out = "";
    proc.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /ready on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.once("exit", (code) => reject(new Error(`broker ${side.name} exited with ${code}`)));
  });
  const admin = new Kafka({ brokers: [bootstrap], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.createTopics({ topics: Array.from({ length: ROUNDS + 1 }, (_, r) => ({ topic: `ab-${r}`, numPartitions: 4 })) });
  await admin.disconnect();
  return { ...side, proc, bootstrap, ms: [], cpu: [], kcatCpu: [] };
}

async function startMock(): Promise<{ proc: ChildProcess; bootstrap: string }> {
  const proc = spawn("kcat", ["-X", "test.mock.num.brokers=1", "-P", "-t", "holder", "-b", "unused:1"], { stdio: ["pipe", "ignore", "pipe"] });
  const bootstrap = await new Promise<string>((resolve) => {
    let err = "";
    proc.stderr.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /replaced with (\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
  });
  return { proc, bootstrap };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const mbs = (ms: number) => (RECORDS * RECORD_BYTES) / 1024 / 1024 / (ms / 1000);

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "kappa-ab-"));
  const file = join(work, "records.txt");
  // Records as bench/broker.ts writes them: a sequence number, random base64, a newline.
  const records = Buffer.alloc(RECORD_BYTES * RECORDS);
  for (let i = 0; i < RECORDS; i++) {
    const at = i * RECORD_BYTES;
    records.write(`${String(i).padStart(10, "0")}-${randomBytes(760).toString("base64").slice(0, RECORD_BYTES - 12)}\n`, at);
  }
  writeFileSync(file, records);
  const mock = await startMock();
  const running: Running[] = [];
  try {
    for (const [i, side] of sides().entries()) running.push(await startBroker(side, join(work, `data-${i}`)));
    process.stdout.write(`A/B: ${running.map((s) => s.name).join(" vs ")}, ${ROUNDS} rounds; load ${readFileSync("/proc/loadavg", "utf8").trim()}\n`);
    // One unmeasured run each: the broker's code is compiled, the mock's topic made.
    produce(file, mock.bootstrap, "warm-up");
    for (const s of running) produce(file, s.bootstrap, `ab-${ROUNDS}`);
    const mockMs: number[] = [];
    const mockKcatCpu: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const onMock = produce(file, mock.bootstrap, `ab-${r}`);
      mockMs.push(onMock.ms);
      mockKcatCpu.push(onMock.cpu);
      for (const s of r % 2 === 1 ? [...running].reverse() : running) {
        const cpu0 = cpuSeconds(s.proc.pid);
        const run = produce(file, s.bootstrap, `ab-${r}`);
        s.ms.push(run.ms);
        s.kcatCpu.push(run.cpu);
        s.cpu.push(cpuSeconds(s.proc.pid) - cpu0);
      }
    }
    process.stdout.write(
      `mock cluster: median ${mbs(median(mockMs)).toFixed(0)} MB/s, kcat CPU ${median(mockKcatCpu).toFixed(2)} s a run (the mock's own threads are in another kcat process); load at the end ${readFileSync("/proc/loadavg", "utf8").trim()}\n`,
    );
    for (const s of running) {
      const perRound = s.ms.map((ms, i) => mockMs[i]! / ms);
      process.stdout.write(
        `${s.name.padEnd(16)} median ${mbs(median(s.ms)).toFixed(0)} MB/s = ${((100 * median(mockMs)) / median(s.ms)).toFixed(1)} % of the mock's median ` +
          `(median of per-round ratios ${(100 * median(perRound)).toFixed(1)} %); CPU a run: broker ${median(s.cpu).toFixed(2)} s, kcat ${median(s.kcatCpu).toFixed(2)} s\n`,
      );
    }
  } finally {
    mock.proc.stdin?.end();
    mock.proc.kill("SIGTERM");
    for (const s of running) s.proc.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 1500));
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
