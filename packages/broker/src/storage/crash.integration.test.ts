import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { LogManager } from "./log-manager.ts";
import { recordsOf, runUntilKilled, splitBatches, tempDir } from "./test-helpers.ts";

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
async function runAndKill(round: number, killAfterMs: number): Promise<RoundOutput> {
  const acks: RoundOutput["acks"] = [];
  const commits: bigint[] = [];
  for (const line of await runUntilKilled(join(here, "crash-child.ts"), [dir.path, String(round)], killAfterMs)) {
    const [kind, a, b] = line.split(" ");
    if (kind === "ack") acks.push({ offset: BigInt(a!), value: b! });
    else if (kind === "commit") commits.push(BigInt(a!));
  }
  return { acks, commits };
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
