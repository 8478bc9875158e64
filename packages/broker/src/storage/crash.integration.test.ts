import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { LogManager } from "./log-manager.ts";
import { recordsOf, splitBatches, tempDir } from "./test-helpers.ts";

const here = dirname(fileURLToPath(import.meta.url));
let dir: { path: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir("kappa-crash-");
});
afterAll(async () => {
  await dir.cleanup();
});

interface RoundOutput {
  acks: Array<{ offset: bigint; value: string }>;
  commits: bigint[];
}

/** Runs the child until it has acknowledged some appends, then SIGKILLs it after a random delay. */
function runAndKill(round: number, killAfterMs: number): Promise<RoundOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(here, "crash-child.ts"), dir.path, String(round)], {
      cwd: here,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    let timer: NodeJS.Timeout | null = null;
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (!timer && out.includes("ready\n")) timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    });
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (signal !== "SIGKILL") {
        reject(new Error(`child exited on its own (code ${code}): ${err}`));
        return;
      }
      const acks: RoundOutput["acks"] = [];
      const commits: bigint[] = [];
      // Only whole lines count: the kill may cut the last one.
      for (const line of out.split("\n").slice(0, -1)) {
        const [kind, a, b] = line.split(" ");
        if (kind === "ack") acks.push({ offset: BigInt(a!), value: b! });
        else if (kind === "commit") commits.push(BigInt(a!));
      }
      resolve({ acks, commits });
    });
  });
}

it("every acknowledged durable append survives SIGKILL exactly once and in order", { timeout: 60_000 }, async () => {
  const acked: RoundOutput["acks"] = [];
  let lastCommit = -1n;
  const rounds = 6;
  for (let round = 0; round < rounds; round++) {
    const res = await runAndKill(round, 150 + Math.floor(Math.random() * 500));
    acked.push(...res.acks);
    if (res.commits.length > 0) lastCommit = res.commits[res.commits.length - 1]!;
  }
  expect(acked.length).toBeGreaterThan(rounds * 5);
  console.log(`crash test: ${acked.length} acked appends over ${rounds} rounds`);

  const mgr = await LogManager.open(dir.path);
  try {
    expect(mgr.recoveredFromCrash).toBe(true);
    const log = mgr.getPartition("crash", 0);
    const batches = [];
    let next = 0n;
    while (next < log.logEndOffset) {
      const { records } = await log.read(next, 1 << 20);
      const bs = splitBatches(records);
      batches.push(...bs);
      const last = bs[bs.length - 1]!.header;
      next = BigInt(last.baseOffset + last.lastOffsetDelta + 1);
    }
    // Offsets are dense and increasing: no gap, no duplicate, no torn batch left behind.
    let expectOffset = 0;
    for (const b of batches) {
      expect(b.header.baseOffset).toBe(expectOffset);
      expectOffset += b.header.lastOffsetDelta + 1;
    }
    const firstValues = batches.map((b) => recordsOf(b.bytes)[0]!.value!);
    const offsetByValue = new Map<string, number>();
    for (const [i, v] of firstValues.entries()) {
      expect(offsetByValue.has(v)).toBe(false);
      offsetByValue.set(v, batches[i]!.header.baseOffset);
    }
    for (const a of acked) expect(offsetByValue.get(a.value)).toBe(Number(a.offset));
    // Acked group commits are durable too (a later, unacknowledged one may also have landed).
    expect(mgr.groups.get("crash-group", "crash", 0)!.offset).toBeGreaterThanOrEqual(lastCommit);
    // The log is usable after all that.
    expect(log.segmentCount).toBeGreaterThan(1);
  } finally {
    await mgr.close();
  }
});
