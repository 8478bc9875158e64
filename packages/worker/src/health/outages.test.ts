import { Prisma } from "@prisma/client";
import { describe, expect, it } from "vitest";
import { failedDependency, OutageTracker } from "./outages.ts";

describe("OutageTracker", () => {
  it("backs off exponentially with jitter, capped, and resets on success", () => {
    let now = 1_000;
    const t = new OutageTracker(500, 8_000, () => now, () => 0.5);
    const delays = [1, 2, 3, 4, 5, 6].map(() => {
      const d = t.failure("database", new Error("connect ECONNREFUSED"));
      now += d;
      return d;
    });
    expect(delays).toEqual([375, 750, 1500, 3000, 6000, 6000]);
    now -= 6000;
    expect(t.health("database")).toMatchObject({ status: "down", failures: 6, lastError: "connect ECONNREFUSED", retryInMs: 6000 });
    // Another loop failing inside the wait does not escalate the backoff.
    expect(t.failure("database", new Error("from the observer"))).toBe(6000);
    expect(t.health("database")).toMatchObject({ failures: 6, lastError: "from the observer" });
    expect(t.health("kafka").status).toBe("up");
    now += 2_000;
    expect(t.waitMs("database")).toBe(4_000);
    expect(t.describe()).toEqual([expect.stringMatching(/^database \(PostgreSQL\) unreachable since .*: from the observer$/)]);
    t.success("database");
    expect(t.health("database")).toEqual({ status: "up", since: null, failures: 0, lastError: null, retryInMs: null });
  });

  it("never waits less than half the step (no retry storm), never more than the cap", () => {
    const t = new OutageTracker(100, 1_000, () => 0, () => 0);
    expect(t.failure("kafka", "x")).toBe(50);
    let now = 0;
    const r = new OutageTracker(100, 1_000, () => now, () => 0.999999);
    for (let i = 0; i < 20; i++) {
      const d = r.failure("kafka", "x");
      expect(d).toBeLessThanOrEqual(1_000);
      now += d;
    }
  });

  it("tells database errors from Kafka's", () => {
    expect(failedDependency(new Prisma.PrismaClientKnownRequestError("boom", { code: "P1001", clientVersion: "6" }))).toBe("database");
    expect(failedDependency(new Error("outer", { cause: new Prisma.PrismaClientInitializationError("down", "6") }))).toBe("database");
    const kafka = new Error("Connection error: connect ECONNREFUSED 127.0.0.1:9092");
    kafka.name = "KafkaJSConnectionError";
    expect(failedDependency(kafka)).toBe("kafka");
  });
});
