/*
 * Request path → the route pattern it was served by (`/api/v1/products/[id]`),
 * so metrics and logs never carry raw paths with ids (unbounded label values,
 * and ids are nobody's business in a dashboard). The patterns come from the
 * build's routes manifest (`.next/routes-manifest.json`: every page and route
 * handler, static ones by name, dynamic ones with their regex).
 */
import { readFileSync } from "node:fs";
import path from "node:path";

export interface RoutesManifest {
  staticRoutes?: { page: string }[];
  dynamicRoutes?: { page: string; regex: string }[];
}

/** Label of a path no route matches (404s of unknown paths, probes). */
export const UNMATCHED_ROUTE = "(unmatched)";
/** Label of Next's own files (`/_next/static/…`, `/_next/image`). */
export const NEXT_ASSETS_ROUTE = "/_next/[...]";

export function routeMatcher(manifest: RoutesManifest): (pathname: string) => string {
  const statics = new Set((manifest.staticRoutes ?? []).map((r) => r.page));
  const dynamics = (manifest.dynamicRoutes ?? []).flatMap((r) => {
    try {
      return [{ page: r.page, regex: new RegExp(r.regex) }];
    } catch {
      return [];
    }
  });
  return (pathname: string) => {
    if (pathname.startsWith("/_next/")) return NEXT_ASSETS_ROUTE;
    const trimmed = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
    if (statics.has(trimmed)) return trimmed;
    // The manifest lists dynamic routes most specific first, as Next matches them.
    for (const d of dynamics) if (d.regex.test(trimmed)) return d.page;
    return UNMATCHED_ROUTE;
  };
}

/** The matcher of the build in `dir` (the portal's folder); every path is unmatched when there is no build (tests, `next dev` before a compile). */
export function buildRouteMatcher(dir = process.cwd()): (pathname: string) => string {
  try {
    return routeMatcher(JSON.parse(readFileSync(path.join(dir, ".next", "routes-manifest.json"), "utf8")) as RoutesManifest);
  } catch {
    return routeMatcher({});
  }
}
