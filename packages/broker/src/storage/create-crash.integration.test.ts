// kill -9 during and right after topic creation (partition-metadata.ts): a
// child process creates topics and writes a first record into some of their
// partitions until it is SIGKILLed at a random moment. Because creation does
// not fsync, a power loss could also have lost the id files and the empty
// segments of partitions nothing was written to; after each kill the test
// does that to them (id file removed, emptied, torn or NUL-filled, segment
// file removed). Every reopen must then bring back every topic that was
// answered as created with all its partitions usable, the record-less
// partitions adopted in place, and every acknowledged record.
import { readdir, rm, stat, truncate, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { LogManager } from "./log-manager.ts";
import { PARTITION_METADATA, holdsNoRecords } from "./partition-metadata.ts";
import { buildBatch, recordsOf, runUntilKilled, tempDir } from "./test-helpers.ts";

const here = dirname(fileURLToPath(import.meta.url));
let dir: { path: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir("kappa-create-crash-");
});
afterAll(async () => {
  await dir.cleanup();
});

interface RoundOutput {
  created: string[];
  acks: Array<{ topic: string; offset: bigint; value: string }>;
}

async function runAndKill(round: number, killAfterMs: number): Promise<RoundOutput> {
  const res: RoundOutput = { created: [], acks: [] };
  for (const line of await runUntilKilled(join(here, "create-crash-child.ts"), [dir.path, String(round)], killAfterMs)) {
    const [kind, ...rest] = line.split(" ");
    if (kind === "created") res.created.push(...rest);
    else if (kind === "ack") res.acks.push({ topic: rest[0]!, offset: BigInt(rest[1]!), value: rest[2]! });
  }
  return res;
}

/** What a power loss may do to a partition whose creation was never fsynced: returns the damage done. */
async function loseUnsyncedCreation(partitionDir: string, i: number): Promise<string> {
  const id = join(partitionDir, PARTITION_METADATA);
  switch (i % 5) {
    case 0:
      await rm(id, { force: true });
      return "id missing";
    case 1:
      await truncate(id, 0).catch(() => undefined);
      return "id empty";
    case 2:
      await writeFile(id, "topic_id: 3f2a");
      return "id torn";
    case 3:
      await writeFile(id, Buffer.alloc(48));
      return "id NUL-filled";
    default:
      await rm(id, { force: true });
      for (const f of await readdir(partitionDir)) if (f.endsWith(".log")) await rm(join(partitionDir, f));
      return "id and segment missing";
  }
}

it("brings back every created topic usable and every acknowledged record after kill -9 during creation and lost unsynced files", { timeout: 120_000 }, async () => {
  const created: string[] = [];
  const acked: RoundOutput["acks"] = [];
  const damaged = new Map<string, { ino: number; damage: string }>();
  const rounds = 4;
  for (let round = 0; round < rounds; round++) {
    const res = await runAndKill(round, 80 + Math.floor(Math.random() * 250));
    created.push(...res.created);
    acked.push(...res.acks);
    let i = 0;
    damaged.clear();
    for (const d of await readdir(join(dir.path, "logs"))) {
      const p = join(dir.path, "logs", d);
      if (!(await holdsNoRecords(p))) continue;
      if (i % 2 === 0) damaged.set(d, { ino: (await stat(p)).ino, damage: await loseUnsyncedCreation(p, i / 2) });
      i++;
    }
    // The next round's open adopts what this one damaged (the final open checks the last round's).
  }
  expect(created.length).toBeGreaterThan(rounds * 4);
  expect(acked.length).toBeGreaterThan(rounds);
  expect(damaged.size).toBeGreaterThan(0);
  console.log(`create crash test: ${created.length} topics answered, ${acked.length} records acked, ${damaged.size} partitions damaged in the last round`);

  const mgr = await LogManager.open(dir.path);
  try {
    expect(mgr.recoveredFromCrash).toBe(true);
    // Adopted in place, not removed and re-created.
    for (const [d, { ino, damage }] of damaged) expect({ d, damage, ino: (await stat(join(dir.path, "logs", d))).ino }).toEqual({ d, damage, ino });
    const values = new Map<string, string[]>();
    for (const name of created) {
      const t = mgr.getTopic(name);
      expect(t?.partitions).toBe(3);
      for (let p = 0; p < 3; p++) {
        const log = mgr.getPartition(name, p);
        const end = log.logEndOffset;
        const before = recordsOf((await log.read(0n, 1 << 20)).records).map((r) => r.value!);
        if (p === 1) values.set(name, before);
        const r = await log.append(buildBatch({ records: [{ key: null, value: "after" }] }), { requireDurable: true });
        expect(r.baseOffset).toBe(end);
      }
    }
    for (const a of acked) expect(values.get(a.topic)).toEqual([a.value]);
  } finally {
    await mgr.close();
  }
});
