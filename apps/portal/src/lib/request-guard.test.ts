import { describe, expect, it } from "vitest";
import { allowedOriginsFor, guardRequest, isJsonContentType, MAX_BODY_BYTES, type GuardRequest } from "./request-guard";

const ORIGINS = allowedOriginsFor("http://localhost:3000", "localhost:3000", "http:");

function req(method: string, path: string, headers: Record<string, string> = {}): GuardRequest {
  return { method, url: new URL(path, "http://localhost:3000"), headers: new Headers(headers), allowedOrigins: ORIGINS };
}

describe("cross-origin writes (finding 4)", () => {
  it("refuses a form post from another port of the same host (same-site is not same-origin)", () => {
    expect(guardRequest(req("POST", "/api/v1/service-accounts", { "sec-fetch-site": "same-site", origin: "http://localhost:3603", "content-type": "text/plain" }))).toMatchObject({ status: 403, code: "CROSS_ORIGIN" });
    expect(guardRequest(req("POST", "/api/v1/service-accounts", { "sec-fetch-site": "cross-site" }))).toMatchObject({ status: 403 });
    // Older browsers: Origin only.
    expect(guardRequest(req("POST", "/api/v1/products", { origin: "http://localhost:3603", "content-type": "application/json" }))).toMatchObject({ status: 403 });
    expect(guardRequest(req("PATCH", "/api/v1/products/x", { origin: "null", "content-type": "application/json" }))).toMatchObject({ status: 403 });
    // Pages (server actions) and next-auth are covered too.
    expect(guardRequest(req("POST", "/products/new", { "sec-fetch-site": "cross-site" }))).toMatchObject({ status: 403 });
    expect(guardRequest(req("POST", "/api/auth/callback/credentials", { "sec-fetch-site": "same-site" }))).toMatchObject({ status: 403 });
  });
  it("lets same-origin browsers, non-browser clients and token-authenticated requests through", () => {
    expect(guardRequest(req("POST", "/api/v1/products", { "sec-fetch-site": "same-origin", "content-type": "application/json" }))).toBeNull();
    expect(guardRequest(req("POST", "/api/v1/products", { origin: "http://localhost:3000", "content-type": "application/json" }))).toBeNull();
    expect(guardRequest(req("POST", "/api/v1/products", { "content-type": "application/json" }))).toBeNull();
    expect(guardRequest(req("POST", "/api/v1/products", { authorization: "Bearer km_x", "sec-fetch-site": "cross-site", "content-type": "application/json" }))).toBeNull();
    expect(guardRequest(req("GET", "/api/v1/products", { "sec-fetch-site": "cross-site" }))).toBeNull();
  });
  it("takes the Host the browser addressed as an origin too", () => {
    expect(allowedOriginsFor("http://localhost:3000", "127.0.0.1:3000", "http:")).toEqual(["http://localhost:3000", "http://127.0.0.1:3000"]);
    expect(allowedOriginsFor(undefined, "evil host", "http:")).toEqual([]);
  });
});

describe("JSON-only API bodies (finding 4)", () => {
  it("refuses text/plain and forms with 415; accepts JSON and +json", () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain;charset=UTF-8"]) {
      expect(guardRequest(req("POST", "/api/v1/subscriptions", { "content-type": type, "content-length": "10" }))).toMatchObject({ status: 415 });
    }
    expect(guardRequest(req("POST", "/api/v1/subscriptions", { "content-length": "10" }))).toMatchObject({ status: 415 });
    expect(guardRequest(req("POST", "/api/v1/products/x/approve", {}))).toBeNull();
    expect(guardRequest(req("POST", "/api/v1/products/x/approve", { "content-length": "0" }))).toBeNull();
    expect(isJsonContentType("application/json; charset=utf-8")).toBe(true);
    expect(isJsonContentType("application/vnd.schemaregistry.v1+json")).toBe(true);
    expect(isJsonContentType("application/jsonx")).toBe(false);
    // next-auth's form posts are its own business (it checks its CSRF token).
    expect(guardRequest(req("POST", "/api/auth/callback/credentials", { "content-type": "application/x-www-form-urlencoded", "content-length": "10" }))).toBeNull();
  });
});

describe("body size (finding 8)", () => {
  it("refuses a declared body over 1 MiB with 413", () => {
    expect(guardRequest(req("POST", "/api/v1/products", { "content-type": "application/json", "content-length": String(MAX_BODY_BYTES + 1) }))).toMatchObject({ status: 413 });
    expect(guardRequest(req("POST", "/api/v1/products", { "content-type": "application/json", "content-length": String(MAX_BODY_BYTES) }))).toBeNull();
  });
});

describe("path and query parameters (finding 8)", () => {
  it("refuses NUL and control characters with a 400 naming the parameter", () => {
    expect(guardRequest(req("GET", "/api/v1/products?q=ord%00er"))).toMatchObject({ status: 400, fields: { q: [expect.stringContaining("NUL")] } });
    expect(guardRequest(req("GET", "/api/v1/products/abc%00def"))).toMatchObject({ status: 400, fields: { path: [expect.any(String)] } });
    expect(guardRequest(req("GET", "/products/abc%0A"))).toMatchObject({ status: 400 });
    expect(guardRequest(req("GET", "/signin?callbackUrl=/%09/127.0.0.1:3603/x"))).toMatchObject({ status: 400, fields: { callbackUrl: expect.any(Array) } });
    expect(guardRequest(req("GET", "/api/v1/products/%E0%A4%A"))).toMatchObject({ status: 400 });
  });
  it("refuses over-long values", () => {
    expect(guardRequest(req("GET", `/api/v1/products?q=${"a".repeat(2000)}`))).toMatchObject({ status: 400, fields: { q: expect.any(Array) } });
    expect(guardRequest(req("GET", "/api/v1/products?q=orders&page=2"))).toBeNull();
  });
});
