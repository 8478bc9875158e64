import { open } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FsyncSlots } from "./fsync-slots.ts";
import { LogManager } from "./log-manager.ts";
import { buildBatch, tempDir } from "./test-helpers.ts";

/** A task that starts when the rounds run it and ends when the test says so. */
function gate(): { started: boolean; fn: () => Promise<string>; finish: (v: string) => void } {
  let finish!: (v: string) => void;
  const g = {
    started: false,
    fn: () => {
      g.started = true;
      return new Promise<string>((r) => (finish = r));
    },
    finish: (v: string) => finish(v),
  };
  return g;
}

const tick = () => new Promise((r) => setImmediate(r));

describe("FsyncSlots", () => {
  it("runs up to maxConcurrent fsyncs at once; the next starts when one ends, in order of asking", async () => {
    const slots = new FsyncSlots(2);
    const gates = [gate(), gate(), gate(), gate()];
    const results = gates.map((g) => slots.run(g.fn));
    await tick();
    expect(gates.map((g) => g.started)).toEqual([true, true, false, false]);
    gates[1]!.finish("1");
    await tick();
    expect(gates.map((g) => g.started)).toEqual([true, true, true, false]);
    gates[0]!.finish("0");
    await tick();
    expect(gates[3]!.started).toBe(true);
    gates[2]!.finish("2");
    gates[3]!.finish("3");
    expect(await Promise.all(results)).toEqual(["0", "1", "2", "3"]);
    // Every slot is free again.
    const more = [gate(), gate()];
    const moreResults = more.map((g) => slots.run(g.fn));
    await tick();
    expect(more.map((g) => g.started)).toEqual([true, true]);
    for (const g of more) g.finish("x");
    await Promise.all(moreResults);
  });

  it("fails only the caller whose fsync failed (also a synchronous throw), and frees its slot", async () => {
    const slots = new FsyncSlots(1);
    const bad = slots.run(() => Promise.reject(new Error("EIO")));
    const worse = slots.run(() => {
      throw new Error("EBADF");
    });
    const good = slots.run(() => Promise.resolve(1));
    await expect(bad).rejects.toThrow("EIO");
    await expect(worse).rejects.toThrow("EBADF");
    expect(await good).toBe(1);
    expect(await slots.run(() => Promise.resolve(2))).toBe(2);
  });

  it("refuses a bound that is not a positive integer", () => {
    expect(() => new FsyncSlots(0)).toThrow(/maxConcurrent/);
    expect(() => new FsyncSlots(1.5)).toThrow(/maxConcurrent/);
  });
});

describe("durable appends to several partitions at once", () => {
  let cleanup: (() => Promise<void>) | null = null;
  let mgr: LogManager | null = null;
  afterEach(async () => {
    vi.restoreAllMocks();
    await mgr?.close();
    mgr = null;
    await cleanup?.();
  });

  it("have their partitions' fsyncs in flight together (up to the bound), and each is acknowledged only after its own fsync", async () => {
    const dir = await tempDir();
    cleanup = dir.cleanup;
    mgr = await LogManager.open(dir.path);
    await mgr.createTopic("chain", { partitions: 3 });
    const logs = [0, 1, 2].map((p) => mgr!.getPartition("chain", p));
    // The first durable append of each partition makes its topic id durable; done before the spy.
    for (const log of logs) await log.append(buildBatch({ records: [{ key: "k", value: "first" }] }));

    const h = await open(join(dir.path, "probe"), "w");
    const proto = Object.getPrototypeOf(h) as { datasync: () => Promise<void> };
    await h.close();
    const real = proto.datasync;
    let inFlight = 0;
    let most = 0;
    const held: Array<() => void> = [];
    let release = (r: () => void): void => void held.push(r);
    vi.spyOn(proto, "datasync").mockImplementation(async function (this: unknown) {
      inFlight++;
      most = Math.max(most, inFlight);
      // Held until the test lets go: with one fsync at a time across the broker, the others never start.
      await new Promise<void>((r) => release(r));
      try {
        return await real.call(this);
      } finally {
        inFlight--;
      }
    });
    let acked = 0;
    const appends = logs.map((log) => log.append(buildBatch({ records: [{ key: "k", value: "second" }] })).then((r) => (acked++, r)));
    try {
      // One fsync at a time across the broker (the old queue) never gets past 1 here.
      await vi.waitFor(() => expect(held.length).toBe(3), { timeout: 5000 });
      expect(most).toBe(3);
      expect(acked).toBe(0); // nothing is answered before its fsync
    } finally {
      // Released at once from now on, so that a failed check still lets the appends and close finish.
      release = (r) => r();
      for (const r of held.splice(0)) r();
    }
    const results = await Promise.all(appends);
    expect(results.map((r) => r.baseOffset)).toEqual([1n, 1n, 1n]);
  });
});
