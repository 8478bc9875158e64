/*
 * The portal's Prometheus metrics (prom-client, as the worker and the broker):
 * one registry per process, kept on globalThis because Next compiles the
 * instrumentation hook (which counts requests) and the /api/metrics route
 * (which serves them) into separate bundles. Names are documented in the
 * portal README ("Metrics") and queried by docs/grafana/kappa-mesh.json.
 *
 * Scheme: `kappa_portal_<what>`, counters `_total`, durations in seconds.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export interface PortalMetrics {
  registry: Registry;
  /** HTTP requests answered, by method, route pattern (never a raw path) and status. */
  httpRequests: Counter<"method" | "route" | "status">;
  httpDuration: Histogram<"method" | "route" | "status">;
}

const KEY = Symbol.for("kappa.portal.metrics");
type WithMetrics = typeof globalThis & { [KEY]?: PortalMetrics };

export const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The process's registry (created on first use). `processMetrics`: also CPU, memory, event loop (once per process). */
export function portalMetrics(options: { processMetrics?: boolean } = {}): PortalMetrics {
  const g = globalThis as WithMetrics;
  if (!g[KEY]) {
    const registry = new Registry();
    const registers = [registry];
    if (options.processMetrics) collectDefaultMetrics({ register: registry, prefix: "kappa_portal_" });
    g[KEY] = {
      registry,
      httpRequests: new Counter({ name: "kappa_portal_http_requests_total", help: "HTTP requests answered, by method, route pattern and status.", labelNames: ["method", "route", "status"], registers }),
      httpDuration: new Histogram({
        name: "kappa_portal_http_request_duration_seconds",
        help: "Time from a request's arrival to the end of its response, by method, route pattern and status.",
        labelNames: ["method", "route", "status"],
        buckets: HTTP_BUCKETS,
        registers,
      }),
    };
  }
  return g[KEY];
}
