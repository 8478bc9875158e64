// Where the broker allocates while kcat produces (`npx tsx bench/alloc-profile.ts [runs]`):
// starts a broker in this process, samples every allocation (including objects
// later collected by scavenges and mark-compacts) with V8's sampling heap
// profiler, and prints the allocation sites by bytes. Diagnostic, not a benchmark.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, open, rm } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kafka, logLevel } from "kafkajs";
import { startBroker } from "../src/index.ts";

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 2);
  const work = await mkdtemp(join(tmpdir(), "kappa-alloc-"));
  const file = join(work, "records.txt");
  const out = await open(file, "w");
  for (let i = 0; i < 100; i++) {
    const lines: string[] = [];
    for (let j = 0; j < 2000; j++) lines.push(`${randomBytes(760).toString("base64").slice(0, 1023)}\n`);
    await out.write(lines.join(""));
  }
  await out.close();
  const broker = await startBroker({ port: 0, "log.dirs": join(work, "data"), logger: { debug() {}, info() {}, warn() {}, error: (m) => process.stderr.write(`${m}\n`) } });
  const admin = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.createTopics({ topics: Array.from({ length: runs }, (_, i) => ({ topic: `a${i}`, numPartitions: 4 })) });
  await admin.disconnect();
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.startSampling", { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  for (let i = 0; i < runs; i++) {
    await new Promise<void>((resolve, reject) => {
      const c = spawn("sh", ["-c", `kcat -b ${broker.bootstrap} -P -t a${i} -X acks=all < ${file}`], { stdio: "inherit" });
      c.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`kcat ${code}`))));
    });
  }
  const { profile } = (await session.post("HeapProfiler.stopSampling")) as { profile: { head: ProfileNode } };
  session.disconnect();
  const bySite = new Map<string, number>();
  const walk = (n: ProfileNode, stack: string[]): void => {
    const f = n.callFrame;
    const here = `${f.functionName || "(anon)"} ${f.url.split("/").slice(-2).join("/")}:${f.lineNumber + 1}`;
    const s = [...stack, here];
    if (n.selfSize > 0) {
      const key = s.slice(-3).join(" < ");
      bySite.set(key, (bySite.get(key) ?? 0) + n.selfSize);
    }
    for (const c of n.children) walk(c, s);
  };
  walk(profile.head, []);
  const total = [...bySite.values()].reduce((a, b) => a + b, 0);
  process.stdout.write(`sampled JS-heap allocation during ${runs} × 200 MB of kcat produce: ${(total / 1e6).toFixed(1)} MB\n`);
  for (const [k, v] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 25)) process.stdout.write(`${(v / 1e6).toFixed(2).padStart(8)} MB  ${k}\n`);
  await broker.stop();
  await rm(work, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
