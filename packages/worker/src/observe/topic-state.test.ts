import { describe, expect, it } from "vitest";
import { TopicStates } from "./topic-state.ts";

function states(n: number, partitions = 2) {
  const s = new TopicStates();
  for (let i = 0; i < n; i++) s.ensure(`t${i}`, `p${i}`, partitions);
  return s;
}

describe("TopicStates.due", () => {
  it("refreshes topics never seen first, then moved ones, then the stalest, at most `max` per cycle", () => {
    const s = states(5);
    // All never refreshed: the cap leaves the rest for the next cycle.
    expect(s.due(0, 30_000, 3)).toMatchObject({ waiting: 2 });
    for (const t of s.byTopic.values()) {
      t.refreshedAt = 1_000;
      t.moved = false;
    }
    s.get("t1")!.refreshedAt = 500; // older
    expect(s.due(10_000, 30_000, 10).topics).toEqual([]); // nothing moved, nothing stale
    s.recordLatest(s.get("t3")!, 0, 10n, 10_000);
    expect(s.due(10_000, 30_000, 10).topics.map((t) => t.topic)).toEqual(["t3"]);
    const later = s.due(31_000, 30_000, 3).topics.map((t) => t.topic);
    // t3 moved; then the stalest (t1 at 500) before the others refreshed at 1,000.
    expect(later[0]).toBe("t3");
    expect(later[1]).toBe("t1");
    expect(later).toHaveLength(3);
  });

  it("an unchanged end offset does not mark the topic as moved", () => {
    const s = states(1);
    const t = s.get("t0")!;
    s.recordLatest(t, 0, 5n, 0);
    t.moved = false;
    s.recordLatest(t, 0, 5n, 5_000);
    expect(t.moved).toBe(false);
    s.recordLatest(t, 0, 6n, 10_000);
    expect(t.moved).toBe(true);
  });

  it("keeps refreshing a topic whose last written rate was not 0, so its throughput falls back to 0", () => {
    const s = states(1);
    const t = s.get("t0")!;
    t.refreshedAt = 1_000;
    t.moved = false;
    t.lastRate = 3.5;
    expect(s.due(2_000, 30_000, 10).topics).toHaveLength(1);
    t.lastRate = 0;
    expect(s.due(2_000, 30_000, 10).topics).toHaveLength(0);
  });

  it("grows with the topic's partitions and marks it moved", () => {
    const s = states(1, 2);
    const t = s.get("t0")!;
    t.moved = false;
    s.ensure("t0", "p0", 4);
    expect(t.partitions).toHaveLength(4);
    expect(t.moved).toBe(true);
  });
});

describe("TopicStates.rate", () => {
  it("sums partitions, and is unknown while any partition has fewer than two samples", () => {
    const s = states(1, 2);
    const t = s.get("t0")!;
    s.recordLatest(t, 0, 0n, 0);
    s.recordLatest(t, 1, 0n, 0);
    s.recordLatest(t, 0, 100n, 10_000);
    expect(s.rate(t, 10_000)).toBeNull();
    s.recordLatest(t, 1, 50n, 10_000);
    expect(s.rate(t, 10_000)).toBeCloseTo(15);
  });
});
