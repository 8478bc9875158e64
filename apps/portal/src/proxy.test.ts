import { NextRequest } from "next/server";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { markOverloaded } from "./lib/busy";
import { proxy } from "./proxy";

/*
 * Load shedding in the proxy (src/lib/busy.ts): after an overload, page
 * requests get the 503 busy page before any rendering; API requests go on
 * (their handlers answer 503 themselves) and so do writes.
 */
beforeAll(() => {
  process.env.DATABASE_URL ??= "postgresql://u:p@localhost:5432/kappa";
  process.env.NEXTAUTH_SECRET ??= "0123456789abcdef0123";
  process.env.NEXTAUTH_URL ??= "http://localhost:3000";
});
afterEach(() => {
  globalThis.kappaOverloadedUntil = undefined;
});

const request = (path: string, method = "GET") => new NextRequest(`http://localhost:3000${path}`, { method, headers: { origin: "http://localhost:3000", host: "localhost:3000" } });
const passedOn = (res: Response) => res.headers.get("x-middleware-next") === "1";

describe("the proxy after an overload", () => {
  it("answers page requests with the busy page (503, Retry-After) for the Retry-After, then lets them through", async () => {
    expect(passedOn(proxy(request("/?q=orders")))).toBe(true);
    markOverloaded(1);
    const res = proxy(request("/?q=orders"));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await res.text()).toContain('url=/?q=orders"');
    globalThis.kappaOverloadedUntil = Date.now() - 1;
    expect(passedOn(proxy(request("/?q=orders")))).toBe(true);
  });

  it("lets API requests, writes and the busy page itself through", () => {
    markOverloaded(5);
    expect(passedOn(proxy(request("/api/v1/products")))).toBe(true);
    expect(passedOn(proxy(request("/busy?next=%2F")))).toBe(true);
    expect(proxy(request("/products/new", "POST")).status).not.toBe(503);
  });
});

describe("the proxy's API refusals", () => {
  it("are JSON the portal does not store or compress, like every API answer", async () => {
    const res = proxy(new NextRequest("http://localhost:3000/api/v1/products", { method: "POST", headers: { origin: "http://evil.example", host: "localhost:3000", "content-type": "application/json" }, body: "{}" }));
    expect(res.status).toBe(403);
    expect(res.headers.get("cache-control")).toBe("no-store, no-transform");
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("CROSS_ORIGIN");
  });
});

describe("the proxy's request id", () => {
  const withId = (id: string) => new NextRequest("http://localhost:3000/api/v1/me", { headers: { origin: "http://localhost:3000", host: "localhost:3000", "x-request-id": id } });
  it("keeps a well-formed x-request-id the client sent, on the response and for the handlers (audit events, tasks)", () => {
    const res = proxy(withId("caller-7f3a.1:retry-2"));
    expect(res.headers.get("x-request-id")).toBe("caller-7f3a.1:retry-2");
    expect(res.headers.get("x-middleware-request-x-request-id")).toBe("caller-7f3a.1:retry-2");
  });
  it("replaces anything else with a fresh UUID", () => {
    for (const bad of ["has space", "x".repeat(129), "semi;colon", "quote\"d"]) {
      expect(proxy(withId(bad)).headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(proxy(request("/api/v1/me")).headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
