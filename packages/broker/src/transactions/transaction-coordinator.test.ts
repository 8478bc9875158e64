import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ErrorCode } from "@kappa/kafka-protocol";
import { CompactedJournal } from "../storage/compacted-journal.ts";
import { TransactionCoordinator, type TransactionMarker, type TransactionParticipants } from "./transaction-coordinator.ts";
import type { PendingOffset, TransactionRecord } from "./transaction-metadata.ts";

/** Records what the coordinator asks of the partitions and groups; `failMarkers` makes marker writes fail. */
class Participants implements TransactionParticipants {
  markers: Array<{ topic: string; partition: number } & TransactionMarker> = [];
  committed: Array<{ group: string; offsets: PendingOffset[] }> = [];
  logs: string[] = [];
  failMarkers = false;
  gone = new Set<string>();
  private pid = 1000;
  async writeMarker(topic: string, partition: number, marker: TransactionMarker): Promise<"written" | "gone"> {
    if (this.failMarkers) throw new Error("disk on fire");
    if (this.gone.has(`${topic}-${partition}`)) return "gone";
    this.markers.push({ topic, partition, ...marker });
    return "written";
  }
  async commitOffsets(group: string, offsets: readonly PendingOffset[]): Promise<void> {
    this.committed.push({ group, offsets: [...offsets] });
  }
  async nextProducerId(): Promise<number> {
    return this.pid++;
  }
  log(_level: "info" | "warn", message: string): void {
    this.logs.push(message);
  }
}

let dir: string;
let now = 1_000_000;
const clock = () => now;
const config = { maxTimeoutMs: 900_000, abortTimedOutIntervalMs: 3_600_000, idExpirationMs: 604_800_000, removeExpiredIntervalMs: 3_600_000, clock };
const opened: TransactionCoordinator[] = [];

async function openCoordinator(p: Participants): Promise<TransactionCoordinator> {
  const c = await TransactionCoordinator.open(dir, p, config);
  c.start();
  opened.push(c);
  return c;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "kappa-txn-"));
  now = 1_000_000;
});
afterEach(async () => {
  for (const c of opened.splice(0)) await c.stop();
  await rm(dir, { recursive: true, force: true });
});

const offset = (topic: string, partition: number, o: number): PendingOffset => ({ topic, partition, offset: String(o), leaderEpoch: -1, metadata: "" });

describe("InitProducerId", () => {
  it("gives a new transactional id a producer id at epoch 0, then bumps the epoch, durably", async () => {
    const p = new Participants();
    const c = await openCoordinator(p);
    expect(await c.initProducerId("tx", 60_000, null)).toEqual({ errorCode: 0, producerId: 1000, producerEpoch: 0 });
    expect(await c.initProducerId("tx", 60_000, null)).toEqual({ errorCode: 0, producerId: 1000, producerEpoch: 1 });
    await c.stop();
    opened.length = 0;
    const again = await openCoordinator(new Participants());
    expect(await again.initProducerId("tx", 60_000, null)).toEqual({ errorCode: 0, producerId: 1000, producerEpoch: 2 });
  });

  it("refuses an empty id and timeouts outside (0, transaction.max.timeout.ms]", async () => {
    const c = await openCoordinator(new Participants());
    expect((await c.initProducerId("", 1000, null)).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await c.initProducerId("tx", 900_001, null)).errorCode).toBe(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    expect((await c.initProducerId("tx", 0, null)).errorCode).toBe(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    expect((await c.initProducerId("tx", 900_000, null)).errorCode).toBe(ErrorCode.NONE);
  });

  it("fences a previous incarnation: its ongoing transaction is aborted with a bumped epoch and its requests are refused", async () => {
    const p = new Participants();
    const c = await openCoordinator(p);
    const zombie = await c.initProducerId("tx", 60_000, null);
    expect(await c.addToTransaction("tx", zombie.producerId, zombie.producerEpoch, [["t", 0], ["t", 1]], ["g"])).toBe(0);
    expect(await c.txnOffsetCommit("tx", zombie.producerId, zombie.producerEpoch, "g", [offset("in", 0, 5)])).toBe(0);
    const fresh = await c.initProducerId("tx", 60_000, null);
    expect(fresh).toEqual({ errorCode: 0, producerId: zombie.producerId, producerEpoch: 2 });
    // The abort markers carry epoch 1: higher than anything the zombie (epoch 0) can write with.
    expect(p.markers).toEqual([
      { topic: "t", partition: 0, producerId: zombie.producerId, producerEpoch: 1, commit: false, coordinatorEpoch: 0 },
      { topic: "t", partition: 1, producerId: zombie.producerId, producerEpoch: 1, commit: false, coordinatorEpoch: 0 },
    ]);
    expect(p.committed).toEqual([]);
    expect(await c.addToTransaction("tx", zombie.producerId, 0, [["t", 0]], [])).toBe(ErrorCode.PRODUCER_FENCED);
    expect(await c.endTxn("tx", zombie.producerId, 0, true)).toBe(ErrorCode.PRODUCER_FENCED);
    expect(await c.txnOffsetCommit("tx", zombie.producerId, 0, "g", [offset("in", 0, 6)])).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(c.verifyProduce("tx", zombie.producerId, 0, "t", 0)).toBe("INVALID_PRODUCER_EPOCH");
  });

  it("KIP-360: a producer resuming with its current epoch is bumped, a retry with the previous one gets the same epoch, others are fenced", async () => {
    const c = await openCoordinator(new Participants());
    const first = await c.initProducerId("tx", 60_000, null);
    const resumed = await c.initProducerId("tx", 60_000, { producerId: first.producerId, producerEpoch: 0 });
    expect(resumed).toEqual({ errorCode: 0, producerId: first.producerId, producerEpoch: 1 });
    expect(await c.initProducerId("tx", 60_000, { producerId: first.producerId, producerEpoch: 0 })).toEqual(resumed);
    expect((await c.initProducerId("tx", 60_000, { producerId: first.producerId, producerEpoch: 7 })).errorCode).toBe(ErrorCode.PRODUCER_FENCED);
    expect((await c.initProducerId("tx", 60_000, { producerId: 999_999, producerEpoch: 1 })).errorCode).toBe(ErrorCode.PRODUCER_FENCED);
  });

  it("rotates to a new producer id when the epoch is exhausted", async () => {
    const p = new Participants();
    const c = await openCoordinator(p);
    const first = await c.initProducerId("tx", 60_000, null);
    await c.stop();
    opened.length = 0;
    // Put the record at epoch 32766 (Short.MAX_VALUE - 1) as if it had been bumped that often.
    const j = await CompactedJournal.open<TransactionRecord>(join(dir, "transactions", "state.log"));
    await j.put("tx", { ...j.get("tx")!, producerEpoch: 32766 });
    await j.close();
    const c2 = await openCoordinator(p);
    const rotated = await c2.initProducerId("tx", 60_000, null);
    expect(rotated.errorCode).toBe(0);
    expect(rotated.producerId).not.toBe(first.producerId);
    expect(rotated.producerEpoch).toBe(0);
  });
});

describe("a transaction", () => {
  it("commits: markers to every partition, then the pending offsets become the group's", async () => {
    const p = new Participants();
    const c = await openCoordinator(p);
    const { producerId, producerEpoch } = await c.initProducerId("tx", 60_000, null);
    expect(c.verifyProduce("tx", producerId, producerEpoch, "out", 0)).toBe("INVALID_TXN_STATE");
    expect(await c.addToTransaction("tx", producerId, producerEpoch, [["out", 0]], [])).toBe(0);
    expect(c.verifyProduce("tx", producerId, producerEpoch, "out", 0)).toBe("ok");
    expect(c.verifyProduce("tx", producerId, producerEpoch, "out", 1)).toBe("INVALID_TXN_STATE");
    // TxnOffsetCommit before AddOffsetsToTxn is refused (KIP-890 part 1).
    expect(await c.txnOffsetCommit("tx", producerId, producerEpoch, "g", [offset("in", 0, 10)])).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(await c.addToTransaction("tx", producerId, producerEpoch, [], ["g"])).toBe(0);
    expect(await c.txnOffsetCommit("tx", producerId, producerEpoch, "g", [offset("in", 0, 10), offset("in", 1, 3)])).toBe(0);
    expect(await c.txnOffsetCommit("tx", producerId, producerEpoch, "g", [offset("in", 0, 12)])).toBe(0);
    expect(p.committed).toEqual([]);
    expect(c.describe("tx")).toMatchObject({ state: "Ongoing", partitions: [["out", 0]], startMs: now });
    expect(await c.endTxn("tx", producerId, producerEpoch, true)).toBe(0);
    expect(p.markers).toEqual([{ topic: "out", partition: 0, producerId, producerEpoch, commit: true, coordinatorEpoch: 0 }]);
    expect(p.committed).toEqual([{ group: "g", offsets: [offset("in", 0, 12), offset("in", 1, 3)] }]);
    expect(c.describe("tx")).toMatchObject({ state: "CompleteCommit", partitions: [] });
    // A retried EndTxn(commit) succeeds; an abort of a committed transaction is refused.
    expect(await c.endTxn("tx", producerId, producerEpoch, true)).toBe(0);
    expect(await c.endTxn("tx", producerId, producerEpoch, false)).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(p.markers).toHaveLength(1);
  });

  it("aborts: abort markers, offsets dropped; EndTxn with nothing added is INVALID_TXN_STATE", async () => {
    const p = new Participants();
    const c = await openCoordinator(p);
    const { producerId, producerEpoch } = await c.initProducerId("tx", 60_000, null);
    expect(await c.endTxn("tx", producerId, producerEpoch, true)).toBe(ErrorCode.INVALID_TXN_STATE);
    await c.addToTransaction("tx", producerId, producerEpoch, [["out", 2]], ["g"]);
    await c.txnOffsetCommit("tx", producerId, producerEpoch, "g", [offset("in", 0, 1)]);
    expect(await c.endTxn("tx", producerId, producerEpoch, false)).toBe(0);
    expect(p.markers).toEqual([{ topic: "out", partition: 2, producerId, producerEpoch, commit: false, coordinatorEpoch: 0 }]);
    expect(p.committed).toEqual([]);
    // The next transaction starts afresh from CompleteAbort.
    expect(await c.addToTransaction("tx", producerId, producerEpoch, [["out", 3]], [])).toBe(0);
    expect(c.describe("tx")).toMatchObject({ state: "Ongoing", partitions: [["out", 3]] });
  });

  it("answers requests for unknown ids and wrong producer ids with INVALID_PRODUCER_ID_MAPPING", async () => {
    const c = await openCoordinator(new Participants());
    expect(await c.addToTransaction("nope", 1, 0, [["t", 0]], [])).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    expect(await c.endTxn("nope", 1, 0, true)).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    const { producerId } = await c.initProducerId("tx", 60_000, null);
    expect(await c.addToTransaction("tx", producerId + 1, 0, [["t", 0]], [])).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    expect(c.verifyProduce("tx", producerId + 1, 0, "t", 0)).toBe("INVALID_PRODUCER_ID_MAPPING");
  });

  it("skips markers for partitions deleted meanwhile and still completes", async () => {
    const p = new Participants();
    const c = await openCoordinator(p);
    const { producerId, producerEpoch } = await c.initProducerId("tx", 60_000, null);
    await c.addToTransaction("tx", producerId, producerEpoch, [["gone", 0], ["out", 0]], []);
    p.gone.add("gone-0");
    expect(await c.endTxn("tx", producerId, producerEpoch, true)).toBe(0);
    expect(p.markers.map((m) => m.topic)).toEqual(["out"]);
    expect(c.describe("tx")?.state).toBe("CompleteCommit");
  });
});

describe("durability and recovery", () => {
  it("completes a decided commit after a restart (markers had failed), and aborts an ongoing one once it times out", async () => {
    const p = new Participants();
    const c = await openCoordinator(p);
    const a = await c.initProducerId("decided", 60_000, null);
    await c.addToTransaction("decided", a.producerId, a.producerEpoch, [["out", 0]], ["g"]);
    await c.txnOffsetCommit("decided", a.producerId, a.producerEpoch, "g", [offset("in", 0, 42)]);
    const b = await c.initProducerId("open", 5_000, null);
    await c.addToTransaction("open", b.producerId, b.producerEpoch, [["out", 1]], []);
    p.failMarkers = true;
    // The client is told the commit worked: the decision is in the log.
    expect(await c.endTxn("decided", a.producerId, a.producerEpoch, true)).toBe(0);
    expect(c.describe("decided")?.state).toBe("PrepareCommit");
    // "Crash": drop the coordinator without completing anything.
    await c.stop();
    opened.length = 0;

    const p2 = new Participants();
    const c2 = await openCoordinator(p2);
    await expect.poll(() => c2.describe("decided")?.state).toBe("CompleteCommit");
    expect(p2.markers).toEqual([{ topic: "out", partition: 0, producerId: a.producerId, producerEpoch: a.producerEpoch, commit: true, coordinatorEpoch: 0 }]);
    expect(p2.committed).toEqual([{ group: "g", offsets: [offset("in", 0, 42)] }]);
    // The ongoing one survives the restart and is aborted only after its timeout, with a bumped epoch.
    expect(c2.describe("open")?.state).toBe("Ongoing");
    now += 4_000;
    await c2.abortTimedOut();
    expect(c2.describe("open")?.state).toBe("Ongoing");
    now += 2_000;
    await c2.abortTimedOut();
    expect(c2.describe("open")).toMatchObject({ state: "CompleteAbort", producerEpoch: b.producerEpoch + 1 });
    expect(p2.markers[1]).toEqual({ topic: "out", partition: 1, producerId: b.producerId, producerEpoch: b.producerEpoch + 1, commit: false, coordinatorEpoch: 0 });
    // The timed-out producer is fenced.
    expect(await c2.endTxn("open", b.producerId, b.producerEpoch, true)).toBe(ErrorCode.PRODUCER_FENCED);
  });

  it("expires transactional ids idle for transactional.id.expiration.ms", async () => {
    const c = await openCoordinator(new Participants());
    await c.initProducerId("old", 60_000, null);
    now += 604_800_001;
    await c.initProducerId("new", 60_000, null);
    await c.removeExpired();
    expect(c.describe("old")).toBeNull();
    expect(c.describe("new")).not.toBeNull();
  });
});

describe("admin views", () => {
  it("ListTransactions filters by state, producer id and duration and reports unknown states", async () => {
    const c = await openCoordinator(new Participants());
    const a = await c.initProducerId("a", 60_000, null);
    const b = await c.initProducerId("b", 60_000, null);
    await c.addToTransaction("a", a.producerId, a.producerEpoch, [["t", 0]], []);
    now += 10_000;
    const ids = (r: { transactions: Array<{ transactionalId: string }> }) => r.transactions.map((t) => t.transactionalId).sort();
    expect(ids(c.list([], [], -1))).toEqual(["a", "b"]);
    expect(ids(c.list(["Ongoing"], [], -1))).toEqual(["a"]);
    expect(ids(c.list([], [b.producerId], -1))).toEqual(["b"]);
    expect(ids(c.list(["Ongoing"], [], 5_000))).toEqual(["a"]);
    expect(ids(c.list(["Ongoing"], [], 20_000))).toEqual([]);
    expect(c.list(["Ongoing", "Bogus"], [], -1)).toMatchObject({ unknownStates: ["Bogus"] });
    expect(ids(c.list(["Bogus"], [], -1))).toEqual([]);
  });
});
