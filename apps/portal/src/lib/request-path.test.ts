import { describe, expect, it } from "vitest";
import { safeCallbackPath } from "./request-path";

describe("safeCallbackPath", () => {
  it("keeps same-origin paths with their query", () => {
    expect(safeCallbackPath("/products/abc?tab=1")).toBe("/products/abc?tab=1");
  });
  it("refuses anything that could leave the site", () => {
    for (const bad of ["//evil.example", "/\\evil.example", "https://evil.example", "evil", undefined, ["/x"]]) {
      expect(safeCallbackPath(bad)).toBe("/");
    }
  });
});
