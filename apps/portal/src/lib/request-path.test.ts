import { describe, expect, it } from "vitest";
import { safeCallbackPath } from "./request-path";

describe("safeCallbackPath", () => {
  it("keeps same-origin paths with their query", () => {
    expect(safeCallbackPath("/products/abc?tab=1")).toBe("/products/abc?tab=1");
    expect(safeCallbackPath("/review#queue")).toBe("/review#queue");
  });
  it("refuses anything that could leave the site", () => {
    for (const bad of ["//evil.example", "/\\evil.example", "https://evil.example", "evil", undefined, ["/x"], "", "/%2F/evil.example".replace("%2F", "/")]) {
      expect(safeCallbackPath(bad)).toBe("/");
    }
  });
  it("refuses what browsers normalise into another host (finding 5: /%09/host, /%0A/)", () => {
    // As the sign-in page receives them: already percent-decoded by URLSearchParams.
    for (const bad of ["/\t/127.0.0.1:3603/x", "/\n/", "/\r\n/evil.example", "/ /evil.example", "/\u0000/x", "/a\\b"]) {
      expect(safeCallbackPath(bad)).toBe("/");
    }
    expect(safeCallbackPath(new URLSearchParams("callbackUrl=/%09/127.0.0.1:3603/x").get("callbackUrl"))).toBe("/");
  });
  it("decides on the normalised URL: dot segments and encoded slashes that become //host are refused (issue 30, finding 1)", () => {
    for (const bad of ["/.//host", "/.//127.0.0.1:3553/x", "/a/..//host", "/%2e//host", "/%2E%2E//host", "/./%2Fhost", "/%2F/host", "/./%5Chost", "/%09/host", "/x/../..//host"]) {
      expect(safeCallbackPath(bad), bad).toBe("/");
    }
    // As the sign-in page receives them, decoded once by URLSearchParams.
    for (const query of ["callbackUrl=/.//127.0.0.1:3553/x", "callbackUrl=/%2e//host", "callbackUrl=/./%252Fhost"]) {
      expect(safeCallbackPath(new URLSearchParams(query).get("callbackUrl")), query).toBe("/");
    }
    // Harmless dot segments still land where they point, normalised.
    expect(safeCallbackPath("/a/../products?x=1")).toBe("/products?x=1");
    expect(safeCallbackPath("/./review")).toBe("/review");
  });
});
