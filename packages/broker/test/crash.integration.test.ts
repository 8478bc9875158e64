// Crash safety at the broker level: a child-process broker is killed with SIGKILL
// at random moments while kafkajs produces with acks=-1; after every restart on the
// same data dir, every acknowledged record is present exactly once and in order,
// and the whole log reads back with valid CRCs.
import type { ChildProcess } from "node:child_process";
import { randomInt } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ApiKey, ErrorCode, decodeRecordBatch, encodeRecordBatch, iterateBatches } from "@kappa/kafka-protocol";
import { processState } from "../src/storage/data-dir-lock.ts";
import { kafkaClient, killHard, newDataDir, RawClient, sleep, startChildBroker, waitFor, type ChildBroker } from "./helpers.ts";

const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

type Child = ChildBroker;

function startChild(dataDir: string, port: number): Promise<Child> {
  return startChildBroker(["--port", String(port), "--data-dir", dataDir, "--override", "group.initial.rebalance.delay.ms=0"], children);
}

/** Reads the whole partition with raw fetches, decoding (and CRC-checking) every batch. */
async function readAll(port: number, topic: string): Promise<string[]> {
  const c = await RawClient.connect(port);
  const values: string[] = [];
  let offset = 0n;
  try {
    for (;;) {
      const r = await c.request(ApiKey.Fetch, 11, {
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 8 * 1024 * 1024,
        isolationLevel: 0,
        topics: [{ topic, partitions: [{ partition: 0, fetchOffset: offset, partitionMaxBytes: 4 * 1024 * 1024 }] }],
      });
      const p = r.body.responses[0]!.partitions[0]!;
      expect(p.errorCode).toBe(ErrorCode.NONE);
      if (offset >= p.highWatermark) break;
      for (const { bytes } of iterateBatches(p.records ?? Buffer.alloc(0))) {
        const batch = decodeRecordBatch(bytes); // throws on a CRC mismatch
        for (const rec of batch.records) {
          const o = batch.header.baseOffset + BigInt(rec.offsetDelta);
          if (o >= offset) values.push(rec.value?.toString() ?? "");
        }
        offset = batch.header.baseOffset + BigInt(batch.header.lastOffsetDelta) + 1n;
      }
    }
  } finally {
    c.close();
  }
  return values;
}

describe("crash safety", () => {
  it("keeps every acks=-1 acknowledged record exactly once and in order across kill -9", async () => {
    const dataDir = await newDataDir();
    const topic = "crash-topic";
    const acked: string[] = [];
    const attempted = new Set<string>();
    let port = 0;
    try {
      for (let round = 0; round < 4; round++) {
        const child = await startChild(dataDir, port);
        port = child.port;
        if (round > 0) {
          // Everything acknowledged before the previous kill is still there, exactly once.
          const before = await readAll(port, topic);
          expect(before.filter((v) => acked.includes(v))).toEqual(acked);
        }
        const kafka = kafkaClient(`127.0.0.1:${port}`, { retry: { retries: 0 } });
        const producer = kafka.producer({ allowAutoTopicCreation: true, retry: { retries: 0 } });
        await producer.connect();
        let stop = false;
        const loop = (async () => {
          let i = 0;
          while (!stop) {
            const batch = Array.from({ length: 1 + (i % 5) }, (_, j) => `r${round}-${i}-${j}`);
            batch.forEach((v) => attempted.add(v));
            try {
              await producer.send({ topic, acks: -1, messages: batch.map((value) => ({ value })) });
              acked.push(...batch);
            } catch {
              // The broker died under this request: it may or may not have been written.
              return;
            }
            i++;
          }
        })();
        await sleep(300 + randomInt(900));
        await killHard(child);
        stop = true;
        await loop;
        await producer.disconnect().catch(() => undefined);
      }

      const child = await startChild(dataDir, port);
      expect(child.stderr()).toMatch(/not shut down cleanly; logs were recovered/);
      const values = await readAll(child.port, topic);
      // Acknowledged records: present, once each, in acknowledgement order.
      expect(acked.length).toBeGreaterThan(20);
      expect(values.filter((v) => acked.includes(v))).toEqual(acked);
      // Nothing that was never sent, and no duplicates of anything.
      expect(values.every((v) => attempted.has(v))).toBe(true);
      expect(new Set(values).size).toBe(values.length);
      child.proc.kill("SIGTERM");
      await new Promise((r) => child.proc.once("exit", r));
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it("restarts at once after kill -9 while the killed broker is still an unreaped zombie", async () => {
    const dataDir = await newDataDir();
    try {
      // The broker's parent is a `sleep` that never calls wait(): after SIGKILL the broker stays in state Z.
      const first = await startChildBroker(["--port", "0", "--data-dir", dataDir], children, { parentNeverReaps: true });
      const c = await RawClient.connect(first.port);
      await c.request(ApiKey.CreateTopics, 4, { topics: [{ name: "z", numPartitions: 1, replicationFactor: 1 }], timeoutMs: 5000 });
      const produced = await c.request(ApiKey.Produce, 8, {
        acks: -1,
        timeoutMs: 5000,
        topicData: [{ name: "z", partitionData: [{ index: 0, records: encodeRecordBatch({ baseTimestamp: BigInt(Date.now()), records: [{ value: "kept" }] }) }] }],
      });
      expect(produced.body.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE);
      c.close();
      const pid = Number((await readFile(join(dataDir, ".lock"), "utf8")).trim());
      expect(pid).toBeGreaterThan(0);
      process.kill(pid, "SIGKILL");
      await waitFor(() => processState(pid) === "Z", 10_000, `broker ${pid} to be a zombie`);

      // Right away, with the zombie still holding its pid: the lock is recognised as stale.
      const second = await startChildBroker(["--port", "0", "--data-dir", dataDir], children);
      expect(processState(pid)).toBe("Z");
      expect(second.stderr()).not.toMatch(/in use by process/);
      const values = await readAll(second.port, "z");
      expect(values).toEqual(["kept"]);
      second.proc.kill("SIGTERM");
      await new Promise((r) => second.proc.once("exit", r));
      first.proc.kill("SIGKILL"); // the sleep; the zombie is then reaped by init
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
