import { describe, expect, it } from "vitest";
import { matchesAtLeast, provesMoreThanCap, skipThreshold } from "./search-count.ts";

describe("the count's lower bound from the statistics", () => {
  it("is what k sets must share whatever their correlation: Σ − (k − 1)·N − hidden, never below 0", () => {
    // Two halves of 10,000 rows may be disjoint: nothing is proven.
    expect(matchesAtLeast({ table: 10_000, hidden: 0, narrow: [5_000, 5_000], changed: 0 })).toBe(0);
    // Two sets of 8,000 share at least 6,000; the rows a member cannot see come off.
    expect(matchesAtLeast({ table: 10_000, hidden: 1_500, narrow: [8_000, 8_000], changed: 0 })).toBe(4_500);
    // One condition: its rows, less the hidden ones.
    expect(matchesAtLeast({ table: 100_000, hidden: 7_847, narrow: [98_133], changed: 0 })).toBe(90_286);
  });

  it("must clear twice the cap, 2 % of the table and twice the rows changed since ANALYZE", () => {
    expect(skipThreshold({ table: 100_000, changed: 0 })).toBe(4_000);
    expect(skipThreshold({ table: 100_000, changed: 500 })).toBe(5_000);
  });

  it("skips the count for a common word at 100,000 products, not for a word in a tenth of them nor a small table", () => {
    // The planner's figures for the seeded catalog (a member of one domain): status <> RETIRED, then the word.
    const orders = { table: 100_000, hidden: 7_847, narrow: [98_133, 25_383], changed: 0 };
    expect(provesMoreThanCap(orders)).toBe(true);
    // Rows changed since the last ANALYZE widen the margin until the statistics are taken again.
    expect(provesMoreThanCap({ ...orders, changed: 6_000 })).toBe(false);
    expect(provesMoreThanCap({ table: 100_000, hidden: 7_847, narrow: [98_133, 10_267], changed: 0 })).toBe(false);
    // A table under twice the cap can never prove it.
    expect(provesMoreThanCap({ table: 2_000, hidden: 0, narrow: [2_000], changed: 0 })).toBe(false);
    // No condition, no proof.
    expect(provesMoreThanCap({ table: 100_000, hidden: 0, narrow: [], changed: 0 })).toBe(false);
  });
});
