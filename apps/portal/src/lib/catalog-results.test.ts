import { describe, expect, it } from "vitest";
import { resultsHeading } from "./catalog-results";

describe("resultsHeading", () => {
  it("states exact counts, and capped ones as a lower bound", () => {
    expect(resultsHeading({ total: 1, totalIsExact: true, match: "text" })).toBe("1 product");
    expect(resultsHeading({ total: 12, totalIsExact: true, match: "all" })).toBe("12 products");
    expect(resultsHeading({ total: 1_000, totalIsExact: true, match: "all" })).toBe("1,000 products");
    expect(resultsHeading({ total: 1_000, totalIsExact: false, match: "text" })).toBe("1,000+ products");
    expect(resultsHeading({ total: 1_000, totalIsExact: false, totalEstimate: null, match: "text" })).toBe("1,000+ products");
    expect(resultsHeading({ total: 1_000, totalIsExact: false, totalEstimate: 27_000, match: "text" })).toBe("About 27,000 products (estimate)");
    // An exact count never shows an estimate.
    expect(resultsHeading({ total: 12, totalIsExact: true, totalEstimate: 27_000, match: "all" })).toBe("12 products");
  });

  it("says when the results are the nearest names to a typo", () => {
    expect(resultsHeading({ total: 3, totalIsExact: true, match: "fuzzy" })).toBe("3 products with a similar name");
    expect(resultsHeading({ total: 0, totalIsExact: true, match: "fuzzy" })).toBe("0 products");
  });
});
