/** Header through which the proxy tells server components the requested path. */
export const PATH_HEADER = "x-kappa-path";
/** Header through which the proxy passes the request method (token-use audit events name it). */
export const METHOD_HEADER = "x-kappa-method";

const PROBE_ORIGIN = "http://kappa.invalid";

// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const UNSAFE_CHARACTERS = /[\u0000-\u0020\u007f\\]/;

/**
 * Only a path of this portal may be a post-sign-in (or back-from-busy)
 * target. The decision is made on what the browser will see, not on the
 * input: the input is resolved against a probe origin first ("/.//host",
 * "/a/..//host" and "/%2e//host" all resolve to the path "//host", which as
 * a Location header is another site), and the RESULT must be
 *  - on the probe origin, a path only (no scheme, no host);
 *  - a path whose first segment is not empty, also once percent-escapes are
 *    decoded ("/%2Fhost" and "/%5Chost" become "//host" and "/\host" in
 *    whatever decodes them next);
 *  - free of control characters, whitespace and backslashes (browsers strip
 *    tabs and newlines and read "\" as "/"), raw or percent-encoded;
 *  - a fixed point: resolving it again gives itself.
 * The raw input is never returned (a newline in a redirect header is a 500).
 */
export function safeCallbackPath(value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 2048) return "/";
  if (!value.startsWith("/") || UNSAFE_CHARACTERS.test(value)) return "/";
  const path = normalisedPath(value);
  if (path === null || normalisedPath(path) !== path) return "/";
  return path;
}

function normalisedPath(value: string): string | null {
  let resolved: URL;
  try {
    resolved = new URL(value, PROBE_ORIGIN);
  } catch {
    return null;
  }
  if (resolved.origin !== PROBE_ORIGIN || resolved.username !== "" || resolved.password !== "") return null;
  const { pathname } = resolved;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (!pathname.startsWith("/") || pathname.startsWith("//") || decoded.startsWith("//") || UNSAFE_CHARACTERS.test(decoded)) return null;
  return `${pathname}${resolved.search}${resolved.hash}`;
}
