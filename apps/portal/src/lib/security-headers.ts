/*
 * Response headers of every portal response. The static set is also applied
 * by next.config.ts (so static assets carry it); the CSP depends on the
 * request (a fresh nonce per HTML response) and is set by src/proxy.ts.
 */

/** Headers that never vary. */
export const STATIC_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  // frame-ancestors 'none' in the CSP is the rule; this covers browsers that predate it.
  "X-Frame-Options": "DENY",
  // No URL of the portal (product ids, search terms) leaves it in a Referer.
  "Referrer-Policy": "no-referrer",
  "Permissions-Policy": "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=()",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};

/** HSTS: only over HTTPS (a browser ignores it over http, and it must not pin a plain-http demo). */
export const HSTS = "max-age=31536000; includeSubDomains";

/** A fresh, unguessable nonce (128 bits, base64). */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

/**
 * The CSP of HTML pages: scripts only with this response's nonce (Next puts
 * it on its own scripts, read from the request's CSP header) and what they
 * load ('strict-dynamic'); no inline script, no eval outside development
 * (React's dev build needs it). Inline styles stay allowed: React `style`
 * attributes (charts) are not scripts, and a nonce cannot cover attributes.
 */
export function pageCsp(nonce: string, options: { dev: boolean; https: boolean }): string {
  const directives = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self'${options.dev ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "frame-src 'none'",
    "worker-src 'self' blob:",
    "manifest-src 'self'",
  ];
  if (options.https) directives.push("upgrade-insecure-requests");
  return directives.join("; ");
}

/**
 * The Cache-Control of the JSON API's answers (json() and errorResponse() in
 * src/server/http.ts). `no-store`: an answer is the signed-in caller's view
 * (visibility rules, their permissions), so no browser or shared cache keeps
 * it. `no-transform`: the portal does not gzip API answers. Next's
 * compression middleware gzips every route answer whatever its size (Next
 * drops a route's Content-Length, so the middleware's 1 KiB threshold never
 * applies), and `no-transform` is the one thing that makes it skip a response.
 * Measured on 2 cores, gzip with its thread-pool round trips and the extra
 * chunked writes cost ~1 CPU-ms per answer in the portal and ~0.6 in the
 * client, more than the whole SQL of a cheap search. Pages, scripts and
 * styles are still compressed. A TLS-terminating proxy in front of the portal
 * (needed for any deployment beyond this host) may compress API answers
 * itself: nginx's gzip ignores no-transform; CDNs that honour it pass them
 * uncompressed (a 12-product search page is ~13 KB).
 */
export const API_CACHE_CONTROL = "no-store, no-transform";

/** API responses are data, never documents: nothing may run or frame them. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
