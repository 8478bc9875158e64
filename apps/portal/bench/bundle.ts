/*
 * First-load JavaScript per route: what a browser downloads before a page
 * can run, from the last `next build` of this app (`npm start` builds it).
 * Next 16 no longer prints sizes after a build; it writes each route's
 * first-load chunks to `.next/diagnostics/route-bundle-stats.json`, and this
 * sums their sizes, raw and gzipped (as the server sends them).
 *
 * `npm run bench:bundle -w apps/portal` prints the table on its own; the
 * Lighthouse benchmark prints it after its scores, with each measured page's
 * figure beside its scores. Chunks loaded later (next/dynamic: charts, the
 * lineage graph, the product page's Live and Operations sections) are not
 * first-load and not counted.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const APP_DIR = path.resolve(import.meta.dirname, "..");
const STATS = path.join(APP_DIR, ".next/diagnostics/route-bundle-stats.json");

export interface RouteJs {
  route: string;
  bytes: number;
  gzipBytes: number;
  chunks: number;
}

interface RouteStat {
  route: string;
  firstLoadChunkPaths: string[];
}

/** Each route's first-load JS, largest first; null when there is no build to read. */
export function firstLoadJs(): RouteJs[] | null {
  if (!existsSync(STATS)) return null;
  const stats = JSON.parse(readFileSync(STATS, "utf8")) as RouteStat[];
  const gzipped = new Map<string, { bytes: number; gzipBytes: number }>();
  const size = (chunk: string) => {
    let known = gzipped.get(chunk);
    if (!known) {
      const body = readFileSync(path.join(APP_DIR, chunk));
      known = { bytes: body.length, gzipBytes: gzipSync(body).length };
      gzipped.set(chunk, known);
    }
    return known;
  };
  return stats
    .map((s) => {
      const sizes = s.firstLoadChunkPaths.map(size);
      return { route: s.route, bytes: sizes.reduce((a, b) => a + b.bytes, 0), gzipBytes: sizes.reduce((a, b) => a + b.gzipBytes, 0), chunks: sizes.length };
    })
    .sort((a, b) => b.gzipBytes - a.gzipBytes || a.route.localeCompare(b.route));
}

export const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** The table, as Markdown. */
export function printFirstLoadJs(routes: RouteJs[] | null): void {
  if (!routes) {
    console.log(`first-load JS: no build to read (${path.relative(process.cwd(), STATS)} is missing: run \`npx next build\` in apps/portal, or \`npm start\`)`);
    return;
  }
  console.log("\nfirst-load JS per route (from the last `next build`; gzip as served)\n\n| route | first-load JS (gzip) | raw | chunks |\n|---|---|---|---|");
  for (const r of routes) console.log(`| ${r.route} | ${kib(r.gzipBytes)} | ${kib(r.bytes)} | ${r.chunks} |`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) printFirstLoadJs(firstLoadJs());
