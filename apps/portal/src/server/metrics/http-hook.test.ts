import http from "node:http";
import type { AddressInfo } from "node:net";
import { Counter, Histogram, Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { observeRequest } from "./http-hook";
import type { PortalMetrics } from "./registry";
import { NEXT_ASSETS_ROUTE, routeMatcher, UNMATCHED_ROUTE } from "./routes";

// The shape of .next/routes-manifest.json (Next 16): static routes by name, dynamic ones with their regex.
const manifest = {
  staticRoutes: [{ page: "/" }, { page: "/api/v1/products" }, { page: "/api/metrics" }],
  dynamicRoutes: [
    { page: "/api/v1/products/[id]/review", regex: "^/api/v1/products/([^/]+?)/review(?:/)?$" },
    { page: "/api/v1/products/[id]", regex: "^/api/v1/products/([^/]+?)(?:/)?$" },
  ],
};

describe("route patterns", () => {
  it("maps paths to the route that serves them, never to the raw path", () => {
    const routeOf = routeMatcher(manifest);
    expect(routeOf("/api/v1/products")).toBe("/api/v1/products");
    expect(routeOf("/api/v1/products/")).toBe("/api/v1/products");
    expect(routeOf("/api/v1/products/clx123abc")).toBe("/api/v1/products/[id]");
    expect(routeOf("/api/v1/products/clx123abc/review")).toBe("/api/v1/products/[id]/review");
    expect(routeOf("/_next/static/chunks/app.js")).toBe(NEXT_ASSETS_ROUTE);
    expect(routeOf("/wp-admin/setup.php")).toBe(UNMATCHED_ROUTE);
  });
});

describe("HTTP request metrics", () => {
  const registry = new Registry();
  const metrics: PortalMetrics = {
    registry,
    httpRequests: new Counter({ name: "kappa_portal_http_requests_total", help: "h", labelNames: ["method", "route", "status"], registers: [registry] }),
    httpDuration: new Histogram({ name: "kappa_portal_http_request_duration_seconds", help: "h", labelNames: ["method", "route", "status"], registers: [registry] }),
  };
  const lines: string[] = [];
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      observeRequest({ metrics, routeOf: routeMatcher(manifest), log: (l) => lines.push(l) }, req, res);
      res.setHeader("x-request-id", "req-42");
      res.writeHead(req.url?.startsWith("/api/v1/products/") ? 200 : 404).end("{}");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const sample = async (name: string, labels: Record<string, string>) =>
    (await registry.getSingleMetric(name)!.get()).values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0;

  it("an API call moves the request counter and the latency histogram of its route pattern and status, and logs one JSON line with the request id", async () => {
    const labels = { method: "GET", route: "/api/v1/products/[id]", status: "200" };
    const before = await sample("kappa_portal_http_requests_total", labels);
    expect((await fetch(`${base}/api/v1/products/clx123abc?x=1`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    expect(await sample("kappa_portal_http_requests_total", labels)).toBe(before + 1);
    const text = await registry.metrics();
    expect(text).toMatch(/kappa_portal_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/products\/\[id\]",status="200"\} 1/);
    expect(text).not.toContain("clx123abc");
    const line = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    expect(line).toMatchObject({ msg: "http request", requestId: "req-42", method: "GET", route: "/api/v1/products/[id]", status: 200 });
    expect(JSON.stringify(line)).not.toContain("clx123abc");
  });

  it("an unknown path is counted under (unmatched) with its status", async () => {
    expect((await fetch(`${base}/does/not/exist/9f8e7d`)).status).toBe(404);
    await new Promise((r) => setTimeout(r, 50));
    expect(await sample("kappa_portal_http_requests_total", { route: UNMATCHED_ROUTE, status: "404" })).toBe(1);
    expect(await registry.metrics()).not.toContain("9f8e7d");
  });
});
