import { afterEach, describe, expect, it, vi } from "vitest";
import { api, ApiError, toQueryString } from "./api-client";

describe("toQueryString", () => {
  it("drops empty values and sorts keys, so equal filters give equal URLs", () => {
    expect(toQueryString({ q: "orders", page: undefined, domain: "", tag: "pii", sort: null })).toBe("?q=orders&tag=pii");
    expect(toQueryString({ b: 1, a: 2 })).toBe("?a=2&b=1");
    expect(toQueryString({})).toBe("");
  });
});

describe("api", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("turns the API's error body into an ApiError with its fields", async () => {
    const body = { error: { code: "VALIDATION_FAILED", message: "Some fields need attention.", fields: { name: ["Too short."] } } };
    vi.stubGlobal("fetch", vi.fn(async () => new Response(JSON.stringify(body), { status: 400 })));
    const error = await api("/api/v1/products", { method: "POST", body: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: "VALIDATION_FAILED", fields: { name: ["Too short."] } });
  });

  it("reports a non-JSON failure with its status", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response("<html>Bad gateway</html>", { status: 502 })));
    await expect(api("/api/v1/me")).rejects.toMatchObject({ status: 502, code: "BAD_RESPONSE" });
  });
});
