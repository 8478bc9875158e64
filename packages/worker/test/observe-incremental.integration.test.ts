// The observer at scale works incrementally: rows are written for topics that
// moved, are new, or are due for their refresh round; a per-cycle cap leaves
// the rest for the next cycle; steps added with `use` see every cycle and
// cannot break it. Times are simulated through observeOnce(now).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@kappa/catalog";
import { Observer, type ObservationCycle } from "../src/observe/observer.ts";
import { approvedProduct, clusterFor, kafkaClient, openTestDatabase, seedPeople, startTestBroker, startWorker, testLogger, type TestBroker } from "./helpers.ts";

let broker: TestBroker;
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;
let people: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  broker = await startTestBroker();
  database = await openTestDatabase();
  db = database.db;
  people = await seedPeople(db);
});

afterAll(async () => {
  await database?.dispose();
  await broker?.cleanup();
});

describe("incremental observation", () => {
  it("writes what moved at once, idle topics once per refresh round, and no more than the per-cycle cap", async () => {
    const worker = startWorker(db, broker.bootstrap);
    const cluster = clusterFor(broker.bootstrap);
    try {
      const a = await approvedProduct(db, people, { partitions: 2 });
      const b = await approvedProduct(db, people, { partitions: 1 });
      await worker.worker.runner.drain();
      const observer = new Observer(db, cluster, { historyHours: 48, refreshRoundMs: 60_000, maxTopicsPerCycle: 1 }, testLogger);
      const seen: ObservationCycle["summary"][] = [];
      observer.use({ name: "recorder", run: async (cycle) => void seen.push(cycle.summary) });
      observer.use({
        name: "broken",
        run: async () => {
          throw new Error("step failure must not stop the cycle");
        },
      });

      const t0 = Date.now();
      const first = await observer.observeOnce(t0);
      // Two new topics, a cap of one: one row now, one left for the next cycle.
      expect(first.topics).toBe(2);
      expect(first.written.topics).toBe(1);
      expect(first.waiting.topics).toBe(1);
      const second = await observer.observeOnce(t0 + 5_000);
      expect(second.written.topics).toBe(1);
      expect(second.waiting.topics).toBe(0);
      const rowOf = (topic: string) => db.topicObservation.findUniqueOrThrow({ where: { topic } });
      const bAt = (await rowOf(b.topicName)).observedAt.getTime();

      // Nothing moved: nothing written.
      const idle = await observer.observeOnce(t0 + 10_000);
      expect(idle.written.topics).toBe(0);

      // Records reach A: A is written in the next cycle, B (idle) is not.
      const producer = kafkaClient(broker.bootstrap).producer();
      await producer.connect();
      await producer.send({ topic: a.topicName, messages: [{ partition: 1, value: "x" }, { partition: 1, value: "y" }] });
      await producer.disconnect();
      const moved = await observer.observeOnce(t0 + 15_000);
      expect(moved.written.topics).toBe(1);
      const rowA = await rowOf(a.topicName);
      expect(rowA.endOffset).toBe(2n);
      expect(rowA.observedAt.getTime()).toBe(t0 + 15_000);
      expect((await rowOf(b.topicName)).observedAt.getTime()).toBe(bAt);

      // A keeps being written while its rate is not yet back to 0; B waits for its round
      // (and, with a cap of one, behind A while A still moves).
      let cycles = 4;
      for (let t = t0 + 20_000; t < t0 + 60_000; t += 5_000, cycles++) await observer.observeOnce(t);
      expect((await rowOf(b.topicName)).observedAt.getTime()).toBe(bAt);
      let refreshedAt = bAt;
      for (let t = t0 + 60_000; t <= t0 + 120_000 && refreshedAt === bAt; t += 5_000, cycles++) {
        await observer.observeOnce(t);
        refreshedAt = (await rowOf(b.topicName)).observedAt.getTime();
      }
      expect(refreshedAt).toBeGreaterThanOrEqual(t0 + 60_000);

      // The steps ran after every cycle; the broken one is reported, not fatal.
      expect(seen.length).toBe(cycles);
      expect(seen[0]?.written.topics).toBe(1);
      expect(observer.stepErrors.get("broken")).toContain("must not stop the cycle");
      expect(observer.lastError).toBeNull();
    } finally {
      await cluster.close();
      await worker.stop();
    }
  });

  it("drops the row of a product that stops being live, in the next cycle", async () => {
    const worker = startWorker(db, broker.bootstrap);
    const cluster = clusterFor(broker.bootstrap);
    try {
      const p = await approvedProduct(db, people, { partitions: 1 });
      await worker.worker.runner.drain();
      const observer = new Observer(db, cluster, { historyHours: 48 }, testLogger);
      await observer.observeOnce();
      expect(await db.topicObservation.count({ where: { topic: p.topicName } })).toBe(1);
      // Retired through the catalog row (the worker's task path is covered elsewhere); the incremental read sees it.
      await db.dataProduct.update({ where: { id: p.id }, data: { status: "RETIRED" } });
      await observer.observeOnce();
      expect(await db.topicObservation.count({ where: { topic: p.topicName } })).toBe(0);
    } finally {
      await cluster.close();
      await worker.stop();
    }
  });
});
