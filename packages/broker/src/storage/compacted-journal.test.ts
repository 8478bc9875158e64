import { mkdtemp, readFile, rm, stat, truncate, writeFile, appendFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CompactedJournal } from "./compacted-journal.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "kappa-journal-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

type V = { n: number; tags?: string[] };

describe("CompactedJournal", () => {
  it("keeps the latest value per key across reopen, and tombstones delete", async () => {
    const path = join(dir, "state.log");
    const j = await CompactedJournal.open<V>(path);
    await j.put("a", { n: 1 });
    await j.put("b", { n: 2 });
    await j.put("a", { n: 3, tags: ["x"] });
    await j.put("b", null);
    expect(j.get("a")).toEqual({ n: 3, tags: ["x"] });
    expect(j.get("b")).toBeUndefined();
    await j.close();
    const k = await CompactedJournal.open<V>(path);
    expect([...k.entries()]).toEqual([["a", { n: 3, tags: ["x"] }]]);
    await k.close();
  });

  it("makes concurrent puts durable with one write each group and all resolve", async () => {
    const path = join(dir, "state.log");
    const j = await CompactedJournal.open<V>(path);
    await Promise.all(Array.from({ length: 50 }, (_, i) => j.put(`k${i % 7}`, { n: i })));
    expect(j.count).toBe(7);
    await j.close();
    const k = await CompactedJournal.open<V>(path);
    for (let r = 0; r < 7; r++) expect(k.get(`k${r}`)?.n).toBe(49 - ((49 - r) % 7));
    await k.close();
  });

  it("drops a torn last record (never acknowledged) and keeps everything before it", async () => {
    const path = join(dir, "state.log");
    const j = await CompactedJournal.open<V>(path);
    await j.put("a", { n: 1 });
    await j.putAll([
      ["b", { n: 2 }],
      ["c", { n: 3 }],
    ]);
    await j.close();
    const full = (await stat(path)).size;
    // Cut the second record in the middle: both of its entries must go, the first record stays.
    await truncate(path, full - 5);
    const k = await CompactedJournal.open<V>(path);
    expect(k.truncatedBytes).toBeGreaterThan(0);
    expect([...k.entries()]).toEqual([["a", { n: 1 }]]);
    await k.put("d", { n: 4 });
    await k.close();
    const m = await CompactedJournal.open<V>(path);
    expect([...m.entries()].map(([key]) => key).sort()).toEqual(["a", "d"]);
    await m.close();
  });

  it("stops at a record whose CRC does not match", async () => {
    const path = join(dir, "state.log");
    const j = await CompactedJournal.open<V>(path);
    await j.put("a", { n: 1 });
    await j.put("b", { n: 2 });
    await j.close();
    const bytes = await readFile(path);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 2) ^ 0xff, bytes.length - 2);
    await writeFile(path, bytes);
    const k = await CompactedJournal.open<V>(path);
    expect([...k.entries()]).toEqual([["a", { n: 1 }]]);
    await k.close();
  });

  it("rewrites to the live entries once superseded records dominate", async () => {
    const path = join(dir, "state.log");
    const j = await CompactedJournal.open<V>(path, { rewriteAfterBytes: 2048 });
    for (let i = 0; i < 400; i++) await j.put(`k${i % 3}`, { n: i });
    const size = (await stat(path)).size;
    expect(size).toBeLessThan(4096);
    await j.close();
    const k = await CompactedJournal.open<V>(path);
    expect(k.get("k0")?.n).toBe(399);
    expect(k.get("k2")?.n).toBe(398);
    await k.close();
  });

  it("ignores a leftover .rewrite file from a crash during a rewrite", async () => {
    const path = join(dir, "state.log");
    const j = await CompactedJournal.open<V>(path);
    await j.put("a", { n: 1 });
    await j.close();
    await writeFile(`${path}.rewrite`, "half written");
    await appendFile(path, Buffer.alloc(3));
    const k = await CompactedJournal.open<V>(path);
    expect([...k.entries()]).toEqual([["a", { n: 1 }]]);
    await expect(stat(`${path}.rewrite`)).rejects.toThrow();
    await k.close();
  });

  it("refuses writes after close", async () => {
    const j = await CompactedJournal.open<V>(join(dir, "state.log"));
    await j.close();
    await expect(j.put("a", { n: 1 })).rejects.toThrow(/closed/);
  });
});
