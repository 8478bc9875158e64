// Exactly-once across kill -9: a consume-transform-produce loop (kafkajs
// transactional producer with sendOffsets, one transactional id for every
// incarnation) runs against a child-process broker that is SIGKILLed at a
// random moment, 20 times. Some transactions are aborted on purpose. At the
// end a READ_COMMITTED consumer (kafkajs, and kcat/librdkafka) must see every
// input below the group's committed offset exactly once, in order (and none
// above it: output and offsets commit together), and nothing from an
// aborted attempt; transactions cut by a kill are decided by the coordinator
// (a prepared commit completes on restart, an open one is aborted when the
// next incarnation fences it).
import type { ChildProcess } from "node:child_process";
import { randomInt } from "node:crypto";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ApiKey, ErrorCode, iterateBatches, decodeRecordBatch } from "@kappa/kafka-protocol";
import { CompactedJournal } from "../src/storage/compacted-journal.ts";
import type { TransactionRecord } from "../src/transactions/transaction-metadata.ts";
import { kafkaClient, killHard, newDataDir, RawClient, sleep, startChildBroker, waitFor, type ChildBroker } from "./helpers.ts";
import { runKcat } from "./sasl-helpers.ts";

const ROUNDS = 20;
// Enough input that the 20 kills land while work remains (the processor may still finish
// it all on a fast machine; the checks below hold either way).
const INPUTS = 12000;
const INPUT = "ctp-input";
const OUTPUT = "ctp-output";
const GROUP = "ctp-group";
const TRANSACTIONAL_ID = "ctp-processor";

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

function startChild(dataDir: string, port: number): Promise<ChildBroker> {
  return startChildBroker(
    [
      "--port",
      String(port),
      "--data-dir",
      dataDir,
      "--override",
      "group.initial.rebalance.delay.ms=0",
      "--override",
      "auto.create.topics.enable=false",
      "--override",
      "transaction.abort.timed.out.transaction.cleanup.interval.ms=200",
    ],
    children,
  );
}

/** Input records [from, from + max) as values, read with a raw fetch (the input topic is not transactional). */
async function readInput(raw: RawClient, from: bigint, max: number): Promise<string[]> {
  const r = await raw.request(ApiKey.Fetch, 11, {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1024 * 1024,
    isolationLevel: 0,
    topics: [{ topic: INPUT, partitions: [{ partition: 0, fetchOffset: from, partitionMaxBytes: 1024 * 1024 }] }],
  });
  const p = r.body.responses[0]!.partitions[0]!;
  if (p.errorCode !== ErrorCode.NONE) throw new Error(`fetch error ${p.errorCode}`);
  const out: string[] = [];
  for (const { bytes } of iterateBatches(p.records ?? Buffer.alloc(0))) {
    const b = decodeRecordBatch(bytes);
    for (const rec of b.records) {
      const o = b.header.baseOffset + BigInt(rec.offsetDelta);
      if (o >= from && out.length < max) out.push(rec.value?.toString() ?? "");
    }
  }
  return out;
}

interface Outcome {
  /** Attempts whose commit was acknowledged. */
  committed: Set<string>;
  /** Attempts the processor aborted itself (acknowledged or not). */
  aborted: Set<string>;
  /** Incarnations cut off by a kill in the middle of their work. */
  interrupted: number;
}

/**
 * The group's committed input offset as an exactly-once processor must read it: OffsetFetch with
 * require_stable (KIP-447), waiting while a transaction still holds offsets of the group — after a
 * kill, the coordinator completes a commit it had prepared only once the broker is back, and the
 * offset before that commit would make the processor do those inputs again. (kafkajs' admin
 * fetchOffsets cannot ask for stable offsets, and its producer's connect() does not fence the
 * transactional id, so neither waits for that completion.)
 */
async function stableCommittedOffset(raw: RawClient): Promise<bigint> {
  for (let attempt = 0; ; attempt++) {
    const r = await raw.request(ApiKey.OffsetFetch, 7, { groupId: GROUP, topics: [{ name: INPUT, partitionIndexes: [0] }], requireStable: true });
    const p = r.body.topics[0]!.partitions[0]!;
    if (p.errorCode === ErrorCode.NONE) return p.committedOffset;
    if (p.errorCode !== ErrorCode.UNSTABLE_OFFSET_COMMIT || attempt >= 200) throw new Error(`OffsetFetch error ${p.errorCode}`);
    await sleep(50);
  }
}

/** Runs the processor until `stop(transactions done)` says so or the broker goes away; each transaction handles 1-20 inputs. */
async function runProcessor(port: number, round: number, outcome: Outcome, stop: (done: number) => boolean): Promise<void> {
  const kafka = kafkaClient(`127.0.0.1:${port}`, { retry: { retries: 2, initialRetryTime: 50, maxRetryTime: 200 } });
  const producer = kafka.producer({ transactionalId: TRANSACTIONAL_ID, idempotent: true, maxInFlightRequests: 1, transactionTimeout: 10_000, retry: { retries: 2 } });
  const raw = await RawClient.connect(port);
  try {
    await producer.connect();
    let pos = await stableCommittedOffset(raw);
    if (pos < 0n) pos = 0n;
    for (let n = 0; !stop(n) && pos < BigInt(INPUTS); n++) {
      const inputs = await readInput(raw, pos, 1 + randomInt(20));
      const attempt = `r${round}t${n}`;
      const abortOnPurpose = n % 4 === 3;
      if (abortOnPurpose) outcome.aborted.add(attempt);
      const txn = await producer.transaction();
      await txn.send({ topic: OUTPUT, messages: inputs.map((v) => ({ value: `${v}|${attempt}` })) });
      const next = pos + BigInt(inputs.length);
      await txn.sendOffsets({ consumerGroupId: GROUP, topics: [{ topic: INPUT, partitions: [{ partition: 0, offset: next.toString() }] }] });
      if (abortOnPurpose) {
        await txn.abort();
      } else {
        await txn.commit();
        outcome.committed.add(attempt);
        pos = next;
      }
    }
  } catch {
    // The broker was killed under a request: that transaction's outcome is the coordinator's to decide.
    outcome.interrupted++;
  } finally {
    raw.close();
    await producer.disconnect().catch(() => undefined);
  }
}

/**
 * On a failure of the exactly-once check, says which attempts wrote each input seen more than
 * once and what the processor knew of them (acknowledged commit, aborted on purpose, or neither:
 * cut by a kill), so that one failing run tells an aborted transaction served as committed from a
 * commit whose group offsets were lost.
 */
function explainDuplicates(values: string[], outcome: Outcome): void {
  const byInput = new Map<string, string[]>();
  for (const v of values) {
    const [input, attempt] = v.split("|") as [string, string];
    byInput.set(input, [...(byInput.get(input) ?? []), attempt]);
  }
  const kind = (a: string) => (outcome.committed.has(a) ? "acknowledged commit" : outcome.aborted.has(a) ? "aborted on purpose" : "cut by a kill");
  const repeated = [...byInput].filter(([, attempts]) => attempts.length > 1);
  if (repeated.length === 0) return;
  const attempts = [...new Set(repeated.flatMap(([, a]) => a))];
  console.error(
    `transactions crash test: ${repeated.length} input(s) seen more than once (${repeated
      .slice(0, 5)
      .map(([i, a]) => `${i} by ${a.join(", ")}`)
      .join("; ")}); attempts: ${attempts.map((a) => `${a} (${kind(a)})`).join(", ")}`,
  );
}

describe("transactions across kill -9", () => {
  it(`keep consume-transform-produce exactly-once over ${ROUNDS} SIGKILLs`, async () => {
    const dataDir = await newDataDir();
    const outcome: Outcome = { committed: new Set(), aborted: new Set(), interrupted: 0 };
    let port = 0;
    let passed = false;
    try {
      let child = await startChild(dataDir, port);
      port = child.port;
      const setup = kafkaClient(`127.0.0.1:${port}`);
      const admin = setup.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: INPUT }, { topic: OUTPUT }] });
      await admin.disconnect();
      const plain = setup.producer();
      await plain.connect();
      for (let i = 0; i < INPUTS; i += 1000) {
        await plain.send({ topic: INPUT, acks: -1, messages: Array.from({ length: 1000 }, (_, j) => ({ value: `in-${i + j}` })) });
      }
      await plain.disconnect();

      for (let round = 0; round < ROUNDS; round++) {
        let killed = false;
        let settled = false;
        const before = outcome.committed.size;
        const processing = runProcessor(port, round, outcome, () => killed).finally(() => (settled = true));
        // Kill once this incarnation has committed (so every round makes progress however
        // loaded the machine is), at a random moment of the transactions that follow.
        await waitFor(() => outcome.committed.size > before || settled, 60_000, `round ${round}'s first commit`);
        await sleep(randomInt(400));
        await killHard(child);
        killed = true;
        await processing;
        child = await startChild(dataDir, port);
      }
      // A last incarnation fences whatever the last kill left open and commits a few more.
      await runProcessor(port, ROUNDS, outcome, (done) => done >= 8);
      const admin2 = kafkaClient(`127.0.0.1:${port}`).admin();
      await admin2.connect();
      const committedOffset = Number((await admin2.fetchOffsets({ groupId: GROUP, topics: [INPUT] }))[0]!.partitions[0]!.offset);
      await admin2.disconnect();
      console.log(
        `transactions crash test: ${outcome.committed.size} acknowledged commits, ${outcome.aborted.size} aborted on purpose, ${outcome.interrupted} incarnations cut by a kill, ${committedOffset} inputs committed`,
      );

      expect(outcome.committed.size).toBeGreaterThan(ROUNDS);
      expect(outcome.aborted.size).toBeGreaterThan(0);
      expect(outcome.interrupted).toBeGreaterThan(ROUNDS / 2);
      expect(committedOffset).toBeGreaterThan(ROUNDS);
      expect(committedOffset).toBeLessThanOrEqual(INPUTS);
      const expected = Array.from({ length: committedOffset }, (_, i) => `in-${i}`);

      // kafkajs READ_COMMITTED.
      const kafka = kafkaClient(`127.0.0.1:${port}`);
      const consumer = kafka.consumer({ groupId: "ctp-checker", maxWaitTimeInMs: 100 });
      await consumer.connect();
      await consumer.subscribe({ topic: OUTPUT, fromBeginning: true });
      const seen: string[] = [];
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value?.toString() ?? "") });
      await waitFor(() => seen.length >= committedOffset, 30_000, "the committed output").catch(() => undefined);
      await sleep(300);
      await consumer.disconnect();
      const check = (values: string[]) => {
        const inputs = values.map((v) => v.split("|")[0]);
        const attempts = values.map((v) => v.split("|")[1]!);
        explainDuplicates(values, outcome);
        expect(inputs).toEqual(expected);
        expect(attempts.filter((a) => outcome.aborted.has(a))).toEqual([]);
        // Every acknowledged commit is there.
        const present = new Set(attempts);
        expect([...outcome.committed].filter((a) => !present.has(a))).toEqual([]);
      };
      check(seen);

      // librdkafka READ_COMMITTED (its default) reads the same.
      const { code, stdout, stderr } = await runKcat(`127.0.0.1:${port}`, ["-C", "-t", OUTPUT, "-o", "beginning", "-e", "-q", "-X", "isolation.level=read_committed", "-f", "%s\n"], undefined, 60_000);
      expect(code, stderr).toBe(0);
      check(stdout.split("\n").filter((l) => l !== ""));

      child.proc.kill("SIGTERM");
      await new Promise((r) => child.proc.once("exit", r));
      passed = true;
    } finally {
      // A failing run's data folder (partition logs, transaction state, group offsets) is kept for analysis.
      if (passed) await rm(dataDir, { recursive: true, force: true });
      else console.error(`transactions crash test: data folder kept at ${dataDir}`);
    }
  }, 180_000);

  it("completes a prepared commit and aborts a still-open transaction after kill -9", async () => {
    const dataDir = await newDataDir();
    const topic = "recovery";
    try {
      let child = await startChild(dataDir, 0);
      const port = child.port;
      const kafka = kafkaClient(`127.0.0.1:${port}`);
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic }] });
      await admin.disconnect();
      const decided = kafka.producer({ transactionalId: "decided", idempotent: true, maxInFlightRequests: 1, transactionTimeout: 60_000 });
      const open = kafka.producer({ transactionalId: "open", idempotent: true, maxInFlightRequests: 1, transactionTimeout: 3_000 });
      await decided.connect();
      await open.connect();
      const t1 = await decided.transaction();
      await t1.send({ topic, messages: [{ value: "decided-1" }] });
      const t2 = await open.transaction();
      await t2.send({ topic, messages: [{ value: "open-1" }] });
      await killHard(child);
      await decided.disconnect().catch(() => undefined);
      await open.disconnect().catch(() => undefined);

      // The kill came right after "decided" asked to commit and the coordinator logged PrepareCommit,
      // before any marker was written: set that state in the transaction log, as the coordinator would have.
      const path = join(dataDir, "transactions", "state.log");
      const log = await CompactedJournal.open<TransactionRecord>(path);
      const rec = log.get("decided")!;
      expect(rec.state).toBe("Ongoing");
      await log.put("decided", { ...rec, state: "PrepareCommit" });
      expect(log.get("open")!.state).toBe("Ongoing");
      await log.close();

      child = await startChild(dataDir, port);
      const raw = await RawClient.connect(port);
      const state = async (id: string) => (await raw.request(ApiKey.DescribeTransactions, 0, { transactionalIds: [id] })).body.transactionStates[0]!;
      try {
        await waitFor(async () => (await state("decided")).transactionState === "CompleteCommit", 10_000, "the prepared commit to complete");
        await waitFor(async () => (await state("open")).transactionState === "CompleteAbort", 15_000, "the open transaction to time out");
        // Aborted with a bumped epoch: the old producer is fenced.
        expect((await state("open")).producerEpoch).toBe(rec.producerEpoch + 1);
        const { code, stdout, stderr } = await runKcat(`127.0.0.1:${port}`, ["-C", "-t", topic, "-o", "beginning", "-e", "-q", "-X", "isolation.level=read_committed", "-f", "%s\n"]);
        expect(code, stderr).toBe(0);
        expect(stdout.split("\n").filter((l) => l !== "")).toEqual(["decided-1"]);
      } finally {
        raw.close();
      }
      child.proc.kill("SIGTERM");
      await new Promise((r) => child.proc.once("exit", r));
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
