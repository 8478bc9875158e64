import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AUTHORIZATION_MATRIX, CALLERS } from "../e2e/authorization-matrix";

/*
 * The authorization matrix must cover every route handler: this lists the
 * routes under src/app/api and the HTTP methods each exports, and fails for a
 * route or method without an entry (and for an entry whose route is gone).
 * How to add an entry: see the comment at the top of e2e/authorization-matrix.ts.
 */
const API_DIR = path.join(import.meta.dirname, "app", "api");
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? routeFiles(p) : e.name === "route.ts" || e.name === "route.tsx" ? [p] : [];
  });
}

/** Methods a route module exports: `export async function GET`, `export const POST =`, `export { handler as GET }`. */
function exportedMethods(source: string): string[] {
  const found = new Set<string>();
  for (const m of source.matchAll(/export\s+(?:async\s+)?(?:function|const|let)\s+([A-Z]+)\b/g)) found.add(m[1]!);
  for (const block of source.matchAll(/export\s*\{([^}]*)\}/g)) {
    for (const part of block[1]!.split(",")) {
      const name = part.trim().split(/\s+as\s+/).pop()?.trim();
      if (name) found.add(name);
    }
  }
  return [...found].filter((m) => (METHODS as readonly string[]).includes(m)).sort();
}

function routeKeys(): string[] {
  return routeFiles(API_DIR)
    .flatMap((file) => {
      const route = `/api/${path.relative(API_DIR, path.dirname(file)).split(path.sep).join("/")}`;
      return exportedMethods(readFileSync(file, "utf8")).map((method) => `${method} ${route}`);
    })
    .sort();
}

describe("authorization matrix", () => {
  it("has an entry for every route and method under src/app/api, and none for routes that are gone", () => {
    const routes = routeKeys();
    expect(routes.length).toBeGreaterThan(20);
    const entries = Object.keys(AUTHORIZATION_MATRIX).sort();
    expect(routes.filter((r) => !entries.includes(r)), "routes without a matrix entry (add them to e2e/authorization-matrix.ts)").toEqual([]);
    expect(entries.filter((e) => !routes.includes(e)), "matrix entries for routes that do not exist").toEqual([]);
  });

  it("gives every entry a status for every caller", () => {
    for (const [route, entry] of Object.entries(AUTHORIZATION_MATRIX)) {
      expect(Object.keys(entry.expect).sort(), route).toEqual([...CALLERS].sort());
      for (const status of Object.values(entry.expect)) expect(status, route).toBeGreaterThanOrEqual(200);
    }
  });

  it("reads the exports of a route module the ways Next accepts them", () => {
    expect(exportedMethods("export async function GET() {}\nexport function POST() {}")).toEqual(["GET", "POST"]);
    expect(exportedMethods("export { handler as GET, handler as POST };")).toEqual(["GET", "POST"]);
    expect(exportedMethods("export const PATCH = wrap(x);\nexport const dynamic = 'force-dynamic';")).toEqual(["PATCH"]);
  });
});
