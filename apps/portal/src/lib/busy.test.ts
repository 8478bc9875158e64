import { afterEach, describe, expect, it } from "vitest";
import { busyPath, busyResponse, markOverloaded, overloadedFor, safeReturnPath } from "./busy";

afterEach(() => {
  globalThis.kappaOverloadedUntil = undefined;
});

describe("the busy page", () => {
  it("remembers an overload for its Retry-After and then forgets it", () => {
    expect(overloadedFor()).toBe(0);
    markOverloaded(2, 1_000);
    expect(overloadedFor(1_000)).toBe(2);
    expect(overloadedFor(2_500)).toBe(1);
    expect(overloadedFor(3_000)).toBe(0);
    // A shorter overload seen later does not cut a longer one short.
    markOverloaded(1, 1_000);
    expect(overloadedFor(2_500)).toBe(1);
  });

  it("goes back only to a path of this portal", () => {
    expect(safeReturnPath("/products/abc?tab=schema")).toBe("/products/abc?tab=schema");
    for (const hostile of ["//evil.example/x", "/\\evil.example", "https://evil.example", "javascript:alert(1)", "/a\nb", "", null, "/.//evil.example", "/a/..//evil.example", "/%2e//evil.example"]) expect(safeReturnPath(hostile)).toBe("/");
    expect(busyPath("/?q=a&b")).toBe("/busy?next=%2F%3Fq%3Da%26b");
  });

  it("answers 503 with Retry-After and a page that reloads the one asked for", async () => {
    const res = busyResponse('/?q="><script>', 2);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const html = await res.text();
    expect(html).toContain("Kappa Mesh is busy right now");
    expect(html).toContain('content="2;url=/?q=%22%3E%3Cscript%3E"');
    expect(html).not.toContain("<script>");
  });
});
