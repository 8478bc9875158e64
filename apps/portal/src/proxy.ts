import { NextResponse, type NextRequest } from "next/server";
import { env } from "@/env";
import { busyResponse, overloadedFor } from "@/lib/busy";
import { allowedOriginsFor, guardRequest, type Refusal } from "@/lib/request-guard";
import { REQUEST_ID_HEADER, requestIdFrom } from "@/lib/request-id";
import { METHOD_HEADER, PATH_HEADER } from "@/lib/request-path";
import { API_CACHE_CONTROL, API_CSP, HSTS, newNonce, pageCsp, STATIC_SECURITY_HEADERS } from "@/lib/security-headers";

/*
 * The portal's one request guard (Next 16's proxy, formerly middleware), in
 * front of every page and API route:
 *  - refuses cross-origin writes, non-JSON API bodies, declared bodies over
 *    1 MiB and control characters or over-long path/query parameters
 *    (src/lib/request-guard.ts);
 *  - gives each request an id (x-request-id; a well-formed one the client sent
 *    is kept) that error responses, logs, audit events, provisioning tasks and
 *    the worker's task log lines carry, so a 500 tells the user something to
 *    quote and nothing internal;
 *  - sets the security headers, with a fresh CSP nonce per HTML response
 *    (Next reads it from the request's CSP header and puts it on its scripts);
 *  - passes the requested path to server components (the signed-in layout
 *    sends anonymous visitors to /signin and back).
 * No authentication decision is made here: every page and API route checks
 * the session itself.
 */
export function proxy(request: NextRequest) {
  const url = request.nextUrl;
  const isApi = url.pathname.startsWith("/api/");
  const requestId = requestIdFrom(request.headers.get(REQUEST_ID_HEADER));
  const e = env();
  const https = url.protocol === "https:" || e.NEXTAUTH_URL.startsWith("https:") || request.headers.get("x-forwarded-proto") === "https";

  const refusal = guardRequest({
    method: request.method,
    url,
    headers: request.headers,
    allowedOrigins: allowedOriginsFor(e.NEXTAUTH_URL, request.headers.get("host"), url.protocol),
  });
  if (refusal) return withSecurityHeaders(refusalResponse(refusal, requestId, isApi), { csp: API_CSP, https, requestId });

  // Shedding load: a saturated database pool was seen in the last Retry-After seconds (src/lib/busy.ts).
  const busyFor = isApi || url.pathname === "/busy" || (request.method !== "GET" && request.method !== "HEAD") ? 0 : overloadedFor();
  if (busyFor > 0) {
    const busy = busyResponse(url.pathname + url.search, busyFor);
    return withSecurityHeaders(new NextResponse(busy.body, { status: busy.status, headers: busy.headers }), { csp: API_CSP, https, requestId });
  }

  const headers = new Headers(request.headers);
  // Always overwritten here, so a client cannot choose what the server reads
  // (API-token requests are audited with their method and path).
  headers.set(PATH_HEADER, url.pathname + url.search);
  headers.set(METHOD_HEADER, request.method);
  headers.set(REQUEST_ID_HEADER, requestId);
  let csp = API_CSP;
  if (!isApi) {
    csp = pageCsp(newNonce(), { dev: process.env.NODE_ENV === "development", https });
    headers.set("content-security-policy", csp);
  }
  return withSecurityHeaders(NextResponse.next({ request: { headers } }), { csp, https, requestId });
}

function refusalResponse(refusal: Refusal, requestId: string, isApi: boolean): NextResponse {
  if (isApi) {
    const body = { error: { code: refusal.code, message: refusal.message, requestId, ...(refusal.fields ? { fields: refusal.fields } : {}) } };
    return NextResponse.json(body, { status: refusal.status, headers: { "cache-control": API_CACHE_CONTROL } });
  }
  return new NextResponse(`${refusal.message}\n`, { status: refusal.status, headers: { "content-type": "text/plain; charset=utf-8" } });
}

function withSecurityHeaders(response: NextResponse, options: { csp: string; https: boolean; requestId: string }): NextResponse {
  for (const [name, value] of Object.entries(STATIC_SECURITY_HEADERS)) response.headers.set(name, value);
  response.headers.set("Content-Security-Policy", options.csp);
  response.headers.set(REQUEST_ID_HEADER, options.requestId);
  if (options.https) response.headers.set("Strict-Transport-Security", HSTS);
  return response;
}

export const config = {
  // Everything but Next's static build output (which gets the static headers from next.config.ts).
  matcher: ["/((?!_next/static/|_next/image/).*)"],
};
