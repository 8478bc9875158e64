import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OngoingTransactions } from "./ongoing-transactions.ts";
import { TxnIndex, collectAbortedTransactions } from "./txn-index.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "kappa-txnindex-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("TxnIndex", () => {
  it("uses Kafka's 34-byte entry layout", () => {
    const idx = TxnIndex.empty();
    idx.append({ producerId: 7, firstOffset: 2, lastOffset: 5, lastStableOffset: 6 });
    expect(idx.encode().toString("hex")).toBe(
      "0000" + "0000000000000007" + "0000000000000002" + "0000000000000005" + "0000000000000006",
    );
  });

  it("round-trips through its file; a missing file is empty", async () => {
    const path = join(dir, "00000000000000000000.txnindex");
    expect((await TxnIndex.load(path)).size).toBe(0);
    const idx = TxnIndex.empty();
    idx.append({ producerId: 1, firstOffset: 0, lastOffset: 3, lastStableOffset: 4 });
    idx.append({ producerId: 2, firstOffset: 1, lastOffset: 9, lastStableOffset: 10 });
    await idx.write(path);
    expect((await TxnIndex.load(path)).all()).toEqual(idx.all());
    await writeFile(path, Buffer.concat([idx.encode(), Buffer.from("ffff", "hex")]));
    expect((await TxnIndex.load(path)).size).toBe(2);
  });

  it("refuses entries out of marker order and truncates at a log truncation point", () => {
    const idx = TxnIndex.fromEntries([{ producerId: 1, firstOffset: 0, lastOffset: 3, lastStableOffset: 4 }]);
    expect(() => idx.append({ producerId: 2, firstOffset: 0, lastOffset: 2, lastStableOffset: 3 })).toThrow(/offset order/);
    idx.append({ producerId: 2, firstOffset: 4, lastOffset: 8, lastStableOffset: 9 });
    idx.truncateTo(8);
    expect(idx.all().map((e) => e.producerId)).toEqual([1]);
  });

  it("collects overlapping aborted transactions and stops at the first entry whose LSO passed the upper bound", () => {
    // Segment A holds the marker of a transaction spanning 0-4; segment B the marker of one spanning 3-12, whose data began in A.
    const a = TxnIndex.fromEntries([{ producerId: 1, firstOffset: 0, lastOffset: 4, lastStableOffset: 3 }]);
    const b = TxnIndex.fromEntries([
      { producerId: 2, firstOffset: 3, lastOffset: 12, lastStableOffset: 13 },
      { producerId: 3, firstOffset: 20, lastOffset: 22, lastStableOffset: 23 },
    ]);
    // A fetch of [2, 6): transaction 1 overlaps; transaction 2 started at 3 and its marker is only in B.
    expect(collectAbortedTransactions([a, b], 2, 6).map((e) => e.producerId)).toEqual([1, 2]);
    // [5, 6) is after transaction 1's marker.
    expect(collectAbortedTransactions([a, b], 5, 6).map((e) => e.producerId)).toEqual([2]);
    // B's first entry has LSO 13 ≥ 6: complete, so transaction 3 (in B, later) is never looked at for [2,6).
    expect(b.collect(2, 6).complete).toBe(true);
    expect(a.collect(2, 6).complete).toBe(false);
  });

  it("knows which producer batches are aborted (for compaction)", () => {
    const idx = TxnIndex.fromEntries([{ producerId: 9, firstOffset: 10, lastOffset: 14, lastStableOffset: 15 }]);
    expect(idx.isAborted(9, 12)).toBe(true);
    expect(idx.isAborted(9, 15)).toBe(false);
    expect(idx.isAborted(8, 12)).toBe(false);
  });
});

describe("OngoingTransactions", () => {
  it("tracks the first unstable offset and yields abort entries with the LSO after completion", () => {
    const t = new OngoingTransactions();
    expect(t.firstUnstableOffset()).toBeNull();
    t.begin(1, 5);
    t.begin(1, 7); // same transaction: the start stays 5
    t.begin(2, 6);
    expect(t.firstUnstableOffset()).toBe(5);
    expect(t.complete(1, 8, false)).toEqual({ producerId: 1, firstOffset: 5, lastOffset: 8, lastStableOffset: 6 });
    expect(t.firstUnstableOffset()).toBe(6);
    expect(t.complete(2, 9, true)).toBeNull();
    expect(t.firstUnstableOffset()).toBeNull();
    // A marker for a producer with nothing open is a no-op.
    expect(t.complete(3, 10, false)).toBeNull();
    t.begin(4, 11);
    expect(t.complete(4, 12, false)).toEqual({ producerId: 4, firstOffset: 11, lastOffset: 12, lastStableOffset: 13 });
  });

  it("survives its snapshot form and drops transactions past a truncation point", () => {
    const t = new OngoingTransactions();
    t.begin(1, 5);
    t.begin(2, 9);
    const back = OngoingTransactions.fromJSON(JSON.parse(JSON.stringify(t.toJSON())));
    expect([...back.entries()]).toEqual([
      [1, 5],
      [2, 9],
    ]);
    back.truncateTo(9);
    expect([...back.entries()]).toEqual([[1, 5]]);
    expect(OngoingTransactions.fromJSON(undefined).size).toBe(0);
    expect(() => OngoingTransactions.fromJSON({})).toThrow();
  });
});
