/*
 * The checks every request passes before any route sees it (run by
 * src/proxy.ts). Pure functions over method, URL and headers, so each rule is
 * unit-tested without a server.
 *
 * Cross-site requests: modelled on Go's net/http CrossOriginProtection and
 * OWASP's guidance. Browsers send Sec-Fetch-Site on every request and Origin
 * on every POST; a page on another port of the same host is "same-site", so
 * SameSite=Lax cookies do not stop it — only "same-origin" counts. A request
 * with neither header comes from no modern browser (curl, a script) and so
 * cannot carry a victim's cookies without the attacker already holding them.
 * Requests authenticated by an Authorization header (API tokens, HTTP Basic
 * on the schema registry) are authenticated by that header alone, never by
 * cookies, so a cross-site page cannot ride on them (it cannot set the header
 * without a CORS preflight this portal never answers).
 */

export interface GuardRequest {
  method: string;
  /** Full URL as the server received it. */
  url: URL;
  headers: Headers;
  /** Origins the portal is served on (NEXTAUTH_URL's, plus the Host header's). */
  allowedOrigins: readonly string[];
}

export interface Refusal {
  status: 400 | 403 | 413 | 415;
  code: string;
  message: string;
  fields?: Record<string, string[]>;
}

/** 1 MiB: far above any catalog request; the bound on what a client may make us read. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** A query value or path segment longer than this is no id or search text the catalog would accept. */
export const MAX_PARAM_LENGTH = 1024;
export const MAX_PATH_LENGTH = 4096;

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function isMutating(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}

/** The origins a request may come from: the configured public URL and the one the browser addressed. */
export function allowedOriginsFor(publicUrl: string | undefined, host: string | null, protocol: string): string[] {
  const out = new Set<string>();
  if (publicUrl) {
    try {
      out.add(new URL(publicUrl).origin);
    } catch {
      // an invalid NEXTAUTH_URL is refused at start-up (env.ts); nothing to add here
    }
  }
  if (host && /^[A-Za-z0-9.[\]:-]+$/.test(host)) out.add(`${protocol.replace(/:$/, "")}://${host}`.toLowerCase());
  return [...out];
}

/** 403 for a state-changing request from another origin; null when it may proceed. */
export function crossOriginRefusal(req: GuardRequest): Refusal | null {
  if (!isMutating(req.method)) return null;
  if (req.headers.has("authorization")) return null;
  const refused: Refusal = { status: 403, code: "CROSS_ORIGIN", message: "Cross-origin requests cannot change anything here; use the portal itself." };
  const site = req.headers.get("sec-fetch-site");
  if (site !== null) return site === "same-origin" || site === "none" ? null : refused;
  const origin = req.headers.get("origin");
  if (origin === null) return null;
  return req.allowedOrigins.includes(origin.toLowerCase()) ? null : refused;
}

/** `application/json` or any `application/*+json` (the Schema Registry's media types). */
export function isJsonContentType(value: string): boolean {
  const type = value.split(";")[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/**
 * API writes take JSON only: a form post or `text/plain` (what a cross-site
 * `<form>` can send without a preflight) is a 415, never parsed as JSON.
 * next-auth's own endpoints (/api/auth/*) take form posts by design and carry
 * their own CSRF token; they still pass the origin check above.
 */
export function contentTypeRefusal(req: GuardRequest): Refusal | null {
  if (!isMutating(req.method) || !req.url.pathname.startsWith("/api/") || req.url.pathname.startsWith("/api/auth/")) return null;
  const type = req.headers.get("content-type");
  const length = req.headers.get("content-length");
  const hasBody = req.headers.has("transfer-encoding") || (length !== null && length.trim() !== "0");
  if (type === null) {
    return hasBody ? { status: 415, code: "UNSUPPORTED_MEDIA_TYPE", message: "Send the request body as JSON (Content-Type: application/json)." } : null;
  }
  return isJsonContentType(type) ? null : { status: 415, code: "UNSUPPORTED_MEDIA_TYPE", message: `Request bodies are JSON (Content-Type: application/json), not ${type.split(";")[0]}.` };
}

/** 413 when the client declares a body above the limit (the bounded read in readJson catches the rest). */
export function bodySizeRefusal(req: GuardRequest): Refusal | null {
  const length = req.headers.get("content-length");
  if (length === null || !/^\d+$/.test(length.trim())) return null;
  const n = Number(length.trim());
  return n > MAX_BODY_BYTES ? tooLarge() : null;
}

export function tooLarge(): Refusal {
  return { status: 413, code: "PAYLOAD_TOO_LARGE", message: `Request bodies are limited to ${MAX_BODY_BYTES} bytes (1 MiB).` };
}

// C0 controls and DEL: no id, slug, search text or e-mail contains one; NUL
// in particular reaches PostgreSQL as an error.
// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Path segments and query parameters, decoded: control characters (NUL above
 * all) and over-long values are a 400 naming the parameter, before any route
 * or page passes them to the database.
 */
export function paramsRefusal(url: URL): Refusal | null {
  const bad = (field: string, message: string): Refusal => ({ status: 400, code: "VALIDATION_FAILED", message, fields: { [field]: [message] } });
  if (url.pathname.length > MAX_PATH_LENGTH) return bad("path", `The path is longer than ${MAX_PATH_LENGTH} characters.`);
  const segments = url.pathname.split("/");
  for (let i = 0; i < segments.length; i++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segments[i] ?? "");
    } catch {
      return bad("path", `Path segment ${i} is not valid percent-encoding.`);
    }
    if (CONTROL.test(decoded)) return bad("path", `Path segment ${i} must not contain control characters such as NUL.`);
    if (decoded.length > MAX_PARAM_LENGTH) return bad("path", `Path segment ${i} is longer than ${MAX_PARAM_LENGTH} characters.`);
  }
  for (const [name, value] of url.searchParams) {
    const field = name.length > 64 ? `${name.slice(0, 64)}…` : name;
    if (CONTROL.test(name) || CONTROL.test(value)) return bad(field.replace(CONTROL, "?"), `The query parameter "${field.replace(CONTROL, "?")}" must not contain control characters such as NUL.`);
    if (name.length > MAX_PARAM_LENGTH || value.length > MAX_PARAM_LENGTH) return bad(field, `The query parameter "${field}" is longer than ${MAX_PARAM_LENGTH} characters.`);
  }
  return null;
}

/** Every check in order; the first refusal wins. */
export function guardRequest(req: GuardRequest): Refusal | null {
  return paramsRefusal(req.url) ?? crossOriginRefusal(req) ?? bodySizeRefusal(req) ?? contentTypeRefusal(req);
}
