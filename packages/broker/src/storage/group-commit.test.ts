import { describe, expect, it } from "vitest";
import { StorageError } from "./errors.ts";
import { GroupCommit } from "./group-commit.ts";
import { SerialQueue } from "./locks.ts";

/**
 * A GroupCommit over a simulated log: `write` advances the log end as the
 * append writer does (bytes written, the waiter registered, then afterWrite), and
 * every fdatasync is a promise the test finishes by hand, recording the log
 * end it could cover (the log end when it started).
 */
function harness(queue?: SerialQueue) {
  let leo = 0;
  const syncs: Array<{ coversUpTo: number; finish: () => void; fail: (e: unknown) => void }> = [];
  const errors: unknown[] = [];
  const commit = new GroupCommit(0, {
    syncActive: () => {
      // As partition-log.ts: the log end is read when the sync begins, i.e. when the shared queue lets it run.
      const sync = () =>
        new Promise<number>((resolve, reject) => {
          const coversUpTo = leo;
          syncs.push({ coversUpTo, finish: () => resolve(coversUpTo), fail: reject });
        });
      return queue ? queue.run(sync) : sync();
    },
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

  it("with the partitions' fsyncs one at a time, a sync that waited for its turn covers what was written meanwhile, and nothing later", async () => {
    const queue = new SerialQueue();
    const a = harness(queue);
    const b = harness(queue);
    const a1 = a.write(1);
    await tick();
    expect(a.syncs).toHaveLength(1);
    const b1 = b.write(1);
    await tick();
    expect(b.syncs).toHaveLength(0); // waits for a's fsync
    const b2 = b.write(1); // written while b's sync waited: it began later, so it covers this too
    a.syncs[0]!.finish();
    await a1;
    await tick();
    expect(b.syncs).toHaveLength(1);
    expect(b.syncs[0]!.coversUpTo).toBe(2);
    const b3 = b.write(1); // written after b's fsync began: not covered by it
    b.syncs[0]!.finish();
    await Promise.all([b1, b2]);
    await tick();
    expect(b.acked).toEqual([1, 2]);
    expect(b.syncs).toHaveLength(2);
    expect(b.syncs[1]!.coversUpTo).toBe(3);
    b.syncs[1]!.finish();
    await b3;
    expect(b.acked).toEqual([1, 2, 3]);
    expect(a.syncs).toHaveLength(1);
  });
});
