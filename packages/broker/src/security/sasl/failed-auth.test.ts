import { describe, expect, it } from "vitest";
import { FAILURE_MEMORY_MS, FailedAuthGuard, MAX_TRACKED_KEYS } from "./failed-auth.ts";

function guard(settings: Partial<{ threshold: number; backoffMs: number; maxBackoffMs: number }> = {}) {
  let now = 1_000_000;
  const lines: string[] = [];
  const logger = { debug: () => {}, info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
  const g = new FailedAuthGuard({ delayMs: 100, threshold: 3, backoffMs: 1000, maxBackoffMs: 4000, ...settings }, logger, () => now, 60_000);
  return { g, lines, advance: (ms: number) => (now += ms) };
}

describe("FailedAuthGuard", () => {
  it("puts a user name in backoff at the threshold, doubles it per failure up to the max, and a success clears it", () => {
    const { g, advance } = guard();
    g.recordFailure("10.0.0.1", "alice", "PLAIN", "wrong");
    g.recordFailure("10.0.0.2", "alice", "PLAIN", "wrong");
    expect(g.userBackoffLeft("alice")).toBe(0);
    g.recordFailure("10.0.0.3", "alice", "PLAIN", "wrong");
    expect(g.userBackoffLeft("alice")).toBe(1000);
    g.recordFailure("10.0.0.4", "alice", "PLAIN", "wrong");
    expect(g.userBackoffLeft("alice")).toBe(2000);
    for (let i = 0; i < 5; i++) g.recordFailure("10.0.0.5", "alice", "PLAIN", "wrong");
    expect(g.userBackoffLeft("alice")).toBe(4000);
    // Refusals during the backoff do not extend it.
    g.recordRefusal("10.0.0.6", "alice", "PLAIN");
    advance(4000);
    expect(g.userBackoffLeft("alice")).toBe(0);
    g.recordSuccess("alice");
    g.recordFailure("10.0.0.7", "alice", "PLAIN", "wrong");
    expect(g.userBackoffLeft("alice")).toBe(0);
  });

  it("counts per address too, and not for another address or user; a success of a user does not clear the address", () => {
    const { g } = guard();
    for (const u of ["a", "b", "c"]) g.recordFailure("10.0.0.9", u, "PLAIN", "wrong");
    expect(g.addressBackoffLeft("10.0.0.9")).toBe(1000);
    expect(g.addressBackoffLeft("10.0.0.8")).toBe(0);
    expect(g.userBackoffLeft("a")).toBe(0);
    g.recordSuccess("bob");
    expect(g.addressBackoffLeft("10.0.0.9")).toBe(1000);
  });

  it("forgets failures after FAILURE_MEMORY_MS without one; threshold 0 means no backoff", () => {
    const { g, advance } = guard();
    g.recordFailure("10.0.0.1", "alice", "PLAIN", "wrong");
    g.recordFailure("10.0.0.1", "alice", "PLAIN", "wrong");
    advance(FAILURE_MEMORY_MS + 1);
    g.recordFailure("10.0.0.1", "alice", "PLAIN", "wrong");
    expect(g.userBackoffLeft("alice")).toBe(0);
    const off = guard({ threshold: 0 }).g;
    for (let i = 0; i < 50; i++) off.recordFailure("10.0.0.1", "alice", "PLAIN", "wrong");
    expect(off.userBackoffLeft("alice")).toBe(0);
    expect(off.addressBackoffLeft("10.0.0.1")).toBe(0);
  });

  it("tracks at most MAX_TRACKED_KEYS names, dropping the least recently failed", () => {
    const { g } = guard({ threshold: 1 });
    g.recordFailure("10.0.0.1", "first", "PLAIN", "wrong");
    for (let i = 0; i < MAX_TRACKED_KEYS; i++) g.recordFailure("10.0.0.2", `spray-${i}`, "PLAIN", "wrong");
    expect(g.userBackoffLeft("first")).toBe(0);
    expect(g.userBackoffLeft(`spray-${MAX_TRACKED_KEYS - 1}`)).toBeGreaterThan(0);
  });

  it("logs the first failure at once, then one summary per interval with counts, capped per key", () => {
    const { g, lines, advance } = guard({ threshold: 0 });
    g.recordFailure("10.0.0.1", "alice", "PLAIN", "PLAIN: invalid password or unknown user alice");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^1 failed SASL authentication\(s\) in 0\.0 s \(1 checked, 0 refused during backoff\); from 10\.0\.0\.1 ×1; users alice ×1; last reason: PLAIN: PLAIN: invalid password/);
    for (let i = 0; i < 1500; i++) g.recordFailure(`10.1.${i >> 8}.${i & 255}`, `u${i}`, "PLAIN", "wrong");
    expect(lines).toHaveLength(1);
    advance(60_000);
    g.recordFailure("10.0.0.1", "alice", "PLAIN", "wrong");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^1501 failed SASL authentication\(s\)/);
    expect(lines[1]).toMatch(/\(others\) ×501/);
    expect(lines[1]).toContain("(1001 in all)"); // 1000 names and "(others)"
    g.close();
  });

  it("escapes control characters of client-chosen names in the log", () => {
    const { g, lines } = guard({ threshold: 0 });
    g.recordFailure("10.0.0.1", "eve\nINFO forged line", "PLAIN", "PLAIN: invalid password or unknown user eve\nINFO forged line");
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain("\n");
    expect(lines[0]).toContain("users eve\\x0aINFO forged line ×1");
  });
});
