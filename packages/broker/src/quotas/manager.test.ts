import { describe, expect, it } from "vitest";
import type { QuotaEntity, QuotaKey } from "./entity.ts";
import { ClientQuotaManager, SampledRate } from "./manager.ts";
import { ClientQuotaStore } from "./store.ts";

async function managerWith(quotas: Array<[QuotaEntity, QuotaKey, number]>) {
  const store = ClientQuotaStore.inMemory();
  await store.apply(quotas.map(([entity, key, value]) => ({ entity, ops: new Map([[key, value]]) })));
  const m = new ClientQuotaManager(store, { "quota.window.num": 11, "quota.window.size.seconds": 1 });
  let now = 1_000_000;
  m.now = () => now;
  return { m, store, advance: (ms: number) => (now += ms) };
}

describe("ClientQuotaManager", () => {
  it("resolves the quota in force in Kafka's order, per quota type", async () => {
    const { m } = await managerWith([
      [{ "client-id": null }, "producer_byte_rate", 8],
      [{ "client-id": "app" }, "producer_byte_rate", 7],
      [{ user: null }, "producer_byte_rate", 6],
      [{ user: null, "client-id": null }, "producer_byte_rate", 5],
      [{ user: null, "client-id": "app" }, "producer_byte_rate", 4],
      [{ user: "alice" }, "producer_byte_rate", 3],
      [{ user: "alice", "client-id": null }, "producer_byte_rate", 2],
      [{ user: "alice", "client-id": "app" }, "producer_byte_rate", 1],
      [{ "client-id": "app" }, "consumer_byte_rate", 70],
    ]);
    expect(m.resolve("produce", "alice", "app")?.bound).toBe(1);
    expect(m.resolve("produce", "alice", "other")?.bound).toBe(2);
    expect(m.resolve("produce", "bob", "app")?.bound).toBe(4);
    expect(m.resolve("produce", "bob", "other")?.bound).toBe(5);
    // The consumer quota resolves on its own: only the client-id entity has one.
    expect(m.resolve("fetch", "alice", "app")?.bound).toBe(70);
    expect(m.resolve("fetch", "alice", "other")).toBeNull();
    expect(m.resolve("request", "alice", "app")).toBeNull();
  });

  it("keys sensors as Kafka's metric tags: a default user quota gives each user a budget of their own", async () => {
    const { m } = await managerWith([[{ user: null }, "producer_byte_rate", 1000]]);
    expect(m.resolve("produce", "alice", "a")?.sensorKey).toBe(m.resolve("produce", "alice", "b")?.sensorKey);
    expect(m.resolve("produce", "alice", "a")?.sensorKey).not.toBe(m.resolve("produce", "bob", "a")?.sensorKey);
  });

  it("lets (num − 1) windows' worth through, then throttles by (rate − bound) / bound × window, capped at num × window", async () => {
    const { m, advance } = await managerWith([[{ user: "alice" }, "producer_byte_rate", 1000]]);
    // 10 s of window at 1000 B/s: 10,000 bytes pass at once.
    expect(m.recordAndGetThrottleTimeMs("produce", "alice", "c", 10_000)).toBe(0);
    // 2,000 more: rate 12,000 B / 10 s = 1200 B/s, (1200 − 1000) / 1000 × 10 s = 2 s.
    expect(m.recordAndGetThrottleTimeMs("produce", "alice", "c", 2_000)).toBe(2000);
    expect(m.recordAndGetThrottleTimeMs("produce", "alice", "c", 1_000_000)).toBe(11_000);
    // Unquoted users are never throttled.
    expect(m.recordAndGetThrottleTimeMs("produce", "bob", "c", 1_000_000)).toBe(0);
    // Once every sample has aged out (11 windows), the budget is whole again.
    advance(11_000);
    expect(m.recordAndGetThrottleTimeMs("produce", "alice", "c", 9_000)).toBe(0);
    expect(m.maxValueInQuotaWindow("produce", "alice", "c")).toBe(10_000);
    expect(m.maxValueInQuotaWindow("produce", "bob", "c")).toBe(Infinity);
  });

  it("SampledRate counts the elapsed time once more than num − 1 windows have passed", () => {
    const r = new SampledRate(3, 1000);
    r.record(100, 0);
    expect(r.rate(0)).toBe(50); // 100 over the minimum 2 s
    r.record(100, 1000);
    r.record(100, 2500);
    expect(r.windowSizeMs(2500)).toBe(2500);
    expect(r.rate(2500)).toBeCloseTo(120);
    // At 3000 the first sample (started at 0) is older than 3 windows and is reset.
    expect(r.rate(3000)).toBeCloseTo(200 / 2);
  });
});
