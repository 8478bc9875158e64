import { describe, expect, it } from "vitest";
import { StorageError } from "./errors.ts";
import { GroupCommit } from "./group-commit.ts";

/**
 * A GroupCommit over a simulated log: `write` advances the log end as the
 * append writer does (bytes written, the waiter registered, then afterWrite), and
 * every fdatasync is a promise the test finishes by hand, recording the log
 * end it could cover (the log end when it started).
 */
function harness() {
  let leo = 0;
  const syncs: Array<{ coversUpTo: number; finish: () => void; fail: (e: unknown) => void }> = [];
  const errors: unknown[] = [];
  const commit = new GroupCommit(0, {
    syncActive: () =>
      new Promise<number>((resolve, reject) => {
        const coversUpTo = leo;
        syncs.push({ coversUpTo, finish: () => resolve(coversUpTo), fail: reject });
      }),
    logEndOffset: () => leo,
    policy: () => ({ flushMessages: Number.MAX_SAFE_INTEGER, flushMs: Number.MAX_SAFE_INTEGER }),
    onSyncError: (err) => errors.push(err),
  });
  const acked: number[] = [];
  /** One durable append of `records` records; its end offset is pushed to `acked` once flushed. */
  const write = (records: number): Promise<void> => {
    leo += records;
    const end = leo;
    const flushed = commit.waitFlushed(end).then(() => void acked.push(end));
    commit.afterWrite(records);
    return flushed;
  };
  return { commit, syncs, acked, errors, write };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("group commit", () => {
  it("acknowledges a durable write only after an fsync that began after the write", async () => {
    const h = harness();
    const first = h.write(1);
    await tick();
    expect(h.syncs).toHaveLength(1);
    const second = h.write(1); // written while the first fsync runs: not covered by it
    h.syncs[0]!.finish();
    await first;
    await tick();
    expect(h.acked).toEqual([1]);
    expect(h.syncs).toHaveLength(2);
    expect(h.syncs[1]!.coversUpTo).toBe(2);
    h.syncs[1]!.finish();
    await second;
    expect(h.acked).toEqual([1, 2]);
  });

  it("shares one fsync among the writes that queued while the previous one ran", async () => {
    const h = harness();
    void h.write(1);
    await tick();
    const queued = [h.write(1), h.write(1), h.write(1)];
    h.syncs[0]!.finish();
    await tick();
    expect(h.syncs).toHaveLength(2);
    h.syncs[1]!.finish();
    await Promise.all(queued);
    expect(h.acked).toEqual([1, 2, 3, 4]);
    expect(h.syncs).toHaveLength(2);
  });

  it("rejects every waiter when an fsync fails, and every later wait", async () => {
    const h = harness();
    const a = h.write(1);
    await tick();
    const boom = new Error("EIO");
    h.syncs[0]!.fail(boom);
    await tick();
    expect(h.errors).toEqual([boom]);
    // The log reacts to onSyncError by failing the commit (partition-log.ts).
    const failure = new StorageError("KAFKA_STORAGE_ERROR", "fsync failed", { cause: boom });
    h.commit.fail(failure);
    await expect(a).rejects.toBe(failure);
    await expect(h.write(1)).rejects.toBe(failure);
    expect(h.acked).toEqual([]);
  });
});
