import { describe, expect, it } from "vitest";
import { fitAnswer, pageOf } from "./limits";

describe("fitAnswer", () => {
  it("passes a small answer through as plain JSON (the catalog's toJson: bigints as numbers, dates as ISO)", () => {
    expect(fitAnswer({ offset: 12n, at: new Date("2026-12-05T10:00:00Z"), n: 1 })).toEqual({ offset: 12, at: "2026-12-05T10:00:00.000Z", n: 1 });
  });

  it("shortens long texts until the answer fits, and says so", () => {
    const answer = fitAnswer({ contractYaml: "y".repeat(200_000), name: "Order Events" }, 10_000) as Record<string, string>;
    expect(JSON.stringify(answer).length).toBeLessThanOrEqual(10_000 + 300);
    expect(answer.name).toBe("Order Events");
    expect(answer.contractYaml).toMatch(/…\[truncated\]$/);
    expect(answer.truncated).toMatch(/shortened to fit 10000 characters/);
  });

  it("cuts long lists when short texts are not enough", () => {
    const answer = fitAnswer({ items: Array.from({ length: 5000 }, (_, i) => ({ id: `p${i}`, name: "n" })) }, 5_000) as { items: unknown[]; truncated: string };
    expect(answer.items.length).toBeGreaterThan(0);
    expect(answer.items.length).toBeLessThan(5000);
    expect(JSON.stringify(answer).length).toBeLessThanOrEqual(5_000 + 300);
    expect(answer.truncated).toMatch(/long lists were cut/);
  });
});

describe("pageOf", () => {
  it("pages a list and names the next page", () => {
    const items = Array.from({ length: 45 }, (_, i) => i);
    expect(pageOf(items, 1, 20)).toMatchObject({ items: items.slice(0, 20), total: 45, pageCount: 3, nextPage: 2 });
    expect(pageOf(items, 3, 20)).toMatchObject({ items: items.slice(40), nextPage: null });
  });
});
