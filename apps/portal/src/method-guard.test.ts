import { readdirSync, readFileSync } from "node:fs";
import { request as httpRequest, createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/* Issue 30, finding 16: TRACE (any undeclared method) answered 500 on every API route; now 405 with Allow. */

interface Guard {
  allowedMethods(pathname: string): string[] | null;
  methodRefusal(method: string, url: string): { allow: string } | null;
  refuseUndeclaredMethod(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse): boolean;
}
const require = createRequire(import.meta.url);
const guard = require("../method-guard.cjs") as Guard;
const PORTAL = path.resolve(import.meta.dirname, "..");
const API_DIR = path.join(PORTAL, "src/app/api");

/** Every route file under src/app/api with the methods it exports, as api-methods.json holds them. */
function routeMethodsOnDisk(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === "route.ts") {
        const source = readFileSync(full, "utf8");
        const methods = new Set<string>();
        for (const m of source.matchAll(/export\s+(?:async\s+)?(?:function|const)\s+(GET|HEAD|OPTIONS|POST|PUT|PATCH|DELETE)\b/g)) methods.add(m[1] ?? "");
        for (const m of source.matchAll(/export\s*\{([^}]*)\}/g)) {
          for (const name of (m[1] ?? "").split(",").map((n) => n.trim().split(/\s+as\s+/).pop() ?? "")) if (/^(GET|HEAD|OPTIONS|POST|PUT|PATCH|DELETE)$/.test(name)) methods.add(name);
        }
        out[`/${path.relative(path.join(PORTAL, "src/app"), dir).split(path.sep).join("/")}`] = [...methods].sort();
      }
    }
  };
  walk(API_DIR);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

describe("undeclared methods", () => {
  it("api-methods.json lists every API route file with the methods it exports (update it when you add one)", () => {
    const onDisk = routeMethodsOnDisk();
    expect(Object.keys(onDisk).length).toBeGreaterThan(90);
    expect(JSON.parse(readFileSync(path.join(PORTAL, "api-methods.json"), "utf8"))).toEqual(onDisk);
  });

  it("refuses a method a route does not declare with its Allow list; declared ones and unknown paths pass to Next", () => {
    expect(guard.methodRefusal("TRACE", "/api/v1/products/abc")).toMatchObject({ allow: "GET, PATCH, HEAD, OPTIONS" });
    expect(guard.methodRefusal("PUT", "/api/v1/me?x=1")).toMatchObject({ allow: "GET, HEAD, OPTIONS" });
    expect(guard.methodRefusal("TRACE", "/api/v1/cluster/topics/claim")).toMatchObject({ allow: "POST, OPTIONS" });
    expect(guard.methodRefusal("PROPFIND", "/api/schema-registry/subjects/a-value/versions/latest")).toMatchObject({ allow: "GET, HEAD, OPTIONS" });
    expect(guard.methodRefusal("TRACE", "/api/auth/signin/credentials")).toMatchObject({ allow: "GET, POST, HEAD, OPTIONS" });
    expect(guard.methodRefusal("TRACE", "/products/abc")).toMatchObject({ allow: "GET, HEAD, POST" });
    expect(guard.methodRefusal("PATCH", "/api/v1/products/abc")).toBeNull();
    expect(guard.methodRefusal("HEAD", "/api/v1/me")).toBeNull();
    expect(guard.methodRefusal("TRACE", "/api/v1/no-such-route")).toBeNull();
    expect(guard.methodRefusal("DELETE", "/products/abc")).toBeNull();
  });

  describe("in the HTTP server, before Next", () => {
    let server: Server;
    let port = 0;
    beforeAll(async () => {
      server = createServer((req, res) => {
        if (guard.refuseUndeclaredMethod(req, res)) return;
        // Stands in for Next, which failed on these.
        res.writeHead(500).end();
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const address = server.address();
      port = typeof address === "object" && address ? address.port : 0;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const send = (method: string, pathname: string) =>
      new Promise<{ status: number; allow: string | undefined; body: string; type: string | undefined }>((resolve, reject) => {
        const req = httpRequest({ host: "127.0.0.1", port, method, path: pathname }, (res) => {
          let body = "";
          res.on("data", (d: Buffer) => (body += d.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body, type: res.headers["content-type"] }));
        });
        req.on("error", reject);
        req.end();
      });

    it("TRACE on an API route is 405 with Allow and the API's error body", async () => {
      const reply = await send("TRACE", "/api/v1/products/abc/submit");
      expect(reply.status).toBe(405);
      expect(reply.allow).toBe("POST, OPTIONS");
      expect(reply.type).toBe("application/json");
      expect(JSON.parse(reply.body)).toEqual({ error: { code: "METHOD_NOT_ALLOWED", message: expect.stringContaining("TRACE is not allowed"), requestId: expect.any(String) } });
    });
  });
});
