import { env } from "./env";
import { installHttpMetrics } from "./server/metrics/http-hook";
import { portalMetrics } from "./server/metrics/registry";
import { buildRouteMatcher, NEXT_ASSETS_ROUTE, UNMATCHED_ROUTE } from "./server/metrics/routes";

/*
 * A bad configuration stops the server right away, naming the variables,
 * instead of failing on the first request.
 */
try {
  env();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

/*
 * Prometheus metrics of every HTTP request (route pattern, status, latency),
 * served at /api/metrics, and one JSON log line per request with its request
 * id (src/server/metrics/). Next's own files are counted but not logged.
 */
let matcher = buildRouteMatcher();
let loadedAt = Date.now();
const routeOf = (pathname: string): string => {
  let route = matcher(pathname);
  // `next dev` writes the manifest as it compiles routes: look again now and then.
  if (route === UNMATCHED_ROUTE && Date.now() - loadedAt > 10_000) {
    matcher = buildRouteMatcher();
    loadedAt = Date.now();
    route = matcher(pathname);
  }
  return route;
};
installHttpMetrics({
  metrics: portalMetrics({ processMetrics: true }),
  routeOf,
  log: (line) => {
    if (!line.includes(`"route":"${NEXT_ASSETS_ROUTE}"`)) process.stdout.write(line + "\n");
  },
});
