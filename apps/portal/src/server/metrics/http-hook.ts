/*
 * Counts and times every HTTP request the portal's Node server answers, by
 * route pattern and status, and writes one JSON log line per request with the
 * request id the proxy gave it (x-request-id, src/proxy.ts). Installed once per
 * process by the instrumentation hook (src/instrumentation-node.ts): Next has
 * no "response finished" hook, so this wraps the server's "request" event, as
 * peer-address.cjs does.
 */
import http from "node:http";
import { REQUEST_ID_HEADER } from "@/lib/request-id";
import type { PortalMetrics } from "./registry";

const INSTALLED = Symbol.for("kappa.portal.http-metrics");

export interface HttpHookOptions {
  metrics: PortalMetrics;
  /** Path → route pattern (routes.ts). */
  routeOf: (pathname: string) => string;
  /** One JSON line per request; absent: no request log. */
  log?: (line: string) => void;
}

/** Observes one request until its response ends (or the connection closes first, counted with the status it had). */
export function observeRequest(options: HttpHookOptions, req: http.IncomingMessage, res: http.ServerResponse): void {
  const started = performance.now();
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    const seconds = (performance.now() - started) / 1000;
    let pathname: string;
    try {
      pathname = new URL(req.url ?? "/", "http://portal.invalid").pathname;
    } catch {
      // a malformed request target: counted as unmatched
      pathname = "\0";
    }
    const route = options.routeOf(pathname);
    const method = /^[A-Z]{1,10}$/.test(req.method ?? "") ? req.method! : "OTHER";
    const labels = { method, route, status: String(res.statusCode) };
    options.metrics.httpRequests.inc(labels);
    options.metrics.httpDuration.observe(labels, seconds);
    const requestId = res.getHeader(REQUEST_ID_HEADER);
    options.log?.(
      JSON.stringify({
        time: new Date().toISOString(),
        level: res.statusCode >= 500 ? "error" : "info",
        msg: "http request",
        service: "kappa-portal",
        requestId: typeof requestId === "string" ? requestId : undefined,
        method,
        route,
        status: res.statusCode,
        ms: Math.round(seconds * 10_000) / 10,
      }),
    );
  };
  res.once("finish", finish);
  res.once("close", finish);
}

/** Wraps http.Server's "request" event in this process (idempotent). */
export function installHttpMetrics(options: HttpHookOptions): void {
  const proto = http.Server.prototype as http.Server & { [INSTALLED]?: boolean };
  if (proto[INSTALLED]) return;
  proto[INSTALLED] = true;
  const original = Reflect.get(proto, "emit") as (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;
  proto.emit = function emitObserved(this: http.Server, event: string | symbol, ...args: unknown[]) {
    const [req, res] = args;
    if (event === "request" && req instanceof http.IncomingMessage && res instanceof http.ServerResponse) observeRequest(options, req, res as http.ServerResponse);
    return original.call(this, event, ...args);
  } as typeof proto.emit;
}
