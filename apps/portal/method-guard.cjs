/*
 * Undeclared HTTP methods (issue 30, finding 16). Next's router knows seven
 * methods; anything else (TRACE, CONNECT, PROPFIND, …) failed inside Next —
 * the fetch Request it builds for the proxy refuses TRACE — and every API
 * route answered 500. Next's own 405 for a known method a route does not
 * export (PUT on a read-only route) carried no `Allow`. This guard runs in the
 * HTTP server before Next (preloaded by peer-address.cjs) and answers both
 * with 405 and `Allow`: for an API route, the methods its route file exports
 * (api-methods.json, kept equal to the files by src/method-guard.test.ts),
 * plus HEAD with GET and OPTIONS, which Next implements itself; for pages,
 * GET, HEAD and POST (server actions, sign-in).
 */
"use strict";
const { randomUUID } = require("node:crypto");
const ROUTES = require("./api-methods.json");

const PAGE_METHODS = ["GET", "HEAD", "POST"];

/** Route patterns as regular expressions, static segments before dynamic ones (as Next resolves them). */
const compiled = Object.entries(ROUTES)
  .map(([route, methods]) => {
    const segments = route.split("/").filter(Boolean);
    const pattern = segments.map((s) => (/^\[\.\.\.\w+\]$/.test(s) ? ".+" : /^\[\w+\]$/.test(s) ? "[^/]+" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/");
    const dynamic = segments.map((s) => (s.startsWith("[...") ? 2 : s.startsWith("[") ? 1 : 0));
    const allow = [...methods];
    if (allow.includes("GET") && !allow.includes("HEAD")) allow.push("HEAD");
    if (!allow.includes("OPTIONS")) allow.push("OPTIONS");
    return { regex: new RegExp(`^/${pattern}/?$`), dynamic, allow };
  })
  .sort((a, b) => {
    for (let i = 0; i < Math.max(a.dynamic.length, b.dynamic.length); i++) {
      const d = (a.dynamic[i] ?? -1) - (b.dynamic[i] ?? -1);
      if (d !== 0) return d;
    }
    return 0;
  });

/** The methods a path answers, or null for an API path no route serves (Next's 404). */
function allowedMethods(pathname) {
  if (!pathname.startsWith("/api/")) return PAGE_METHODS;
  const route = compiled.find((r) => r.regex.test(pathname));
  return route ? route.allow : null;
}

/** The refusal for this request, or null to let Next handle it. */
function methodRefusal(method, url) {
  let pathname;
  try {
    pathname = new URL(url, "http://localhost").pathname;
  } catch {
    return null;
  }
  const allowed = allowedMethods(pathname);
  if (!allowed || allowed.includes(method)) return null;
  // Pages: only methods Next cannot route at all; a known one (PUT on a page) is Next's to answer.
  if (!pathname.startsWith("/api/") && ["GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH"].includes(method)) return null;
  return { allow: allowed.join(", "), method, pathname };
}

/** Answers 405 with Allow (and the API's error body and headers) when the method is not the route's; true when it did. */
function refuseUndeclaredMethod(req, res) {
  const refusal = methodRefusal(String(req.method || "").toUpperCase(), req.url || "/");
  if (!refusal) return false;
  const requestId = randomUUID();
  const body = JSON.stringify({
    error: { code: "METHOD_NOT_ALLOWED", message: `${refusal.method} is not allowed on ${refusal.pathname}; allowed: ${refusal.allow}.`, requestId },
  });
  res.writeHead(405, {
    allow: refusal.allow,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store, no-transform",
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "x-request-id": requestId,
  });
  // Whatever body came with the request is drained, not read.
  req.resume();
  res.end(refusal.method === "HEAD" ? undefined : body);
  return true;
}

module.exports = { allowedMethods, methodRefusal, refuseUndeclaredMethod };
