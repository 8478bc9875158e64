/*
 * Overload on server-rendered pages (issue 14): the API answers 503 with
 * Retry-After when the database pool is saturated (server/http.ts); a page
 * cannot choose its status once Next renders it, so
 *  - a page whose data load hits the overload redirects to /busy, a route
 *    that answers 503 + Retry-After with a short page that reloads the
 *    original one after the wait (server/page-data.ts, server/actor.ts);
 *  - for the next Retry-After seconds every page request is answered that
 *    way by the proxy before any rendering (load shedding: the pool is one
 *    per process, so an overload seen by one request holds for all).
 * No server-only imports: the proxy uses this module too.
 */

import { safeCallbackPath } from "./request-path";

declare global {
  // One per process: the proxy and the pages run in the same Node process.
  var kappaOverloadedUntil: number | undefined;
}

/** Remembers an overload for `seconds` (the Retry-After the responses carry). */
export function markOverloaded(seconds: number, now = Date.now()): void {
  globalThis.kappaOverloadedUntil = Math.max(globalThis.kappaOverloadedUntil ?? 0, now + seconds * 1000);
}

/** Whole seconds left of a remembered overload, or 0. */
export function overloadedFor(now = Date.now()): number {
  const left = (globalThis.kappaOverloadedUntil ?? 0) - now;
  return left > 0 ? Math.ceil(left / 1000) : 0;
}

/**
 * Only a path of this portal may be the page to go back to (never another
 * origin: //host, /\\host, /.//host, javascript:) — the sign-in page's rule,
 * decided on the normalised URL (lib/request-path.ts).
 */
export function safeReturnPath(value: string | null | undefined): string {
  return safeCallbackPath(value);
}

export function busyPath(returnTo: string): string {
  return `/busy?next=${encodeURIComponent(safeReturnPath(returnTo))}`;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The 503 page: says what happened, reloads the page asked for after the wait, and links to it. */
export function busyResponse(returnTo: string, retryAfterSeconds: number): Response {
  const next = escapeHtml(safeReturnPath(returnTo));
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${seconds};url=${next}"><title>Kappa Mesh is busy</title></head>
<body><main><h1>Kappa Mesh is busy right now</h1>
<p>Too many requests are waiting for the catalog database. This page tries again in ${seconds} second${seconds === 1 ? "" : "s"}.</p>
<p><a href="${next}">Try again now</a></p></main></body></html>
`;
  return new Response(html, {
    status: 503,
    headers: { "content-type": "text/html; charset=utf-8", "retry-after": String(seconds), "cache-control": "no-store" },
  });
}
