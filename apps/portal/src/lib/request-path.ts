/** Header through which the proxy tells server components the requested path. */
export const PATH_HEADER = "x-kappa-path";
/** Header through which the proxy passes the request method (token-use audit events name it). */
export const METHOD_HEADER = "x-kappa-method";

const PROBE_ORIGIN = "http://kappa.invalid";

/**
 * Only same-origin relative paths may be a post-sign-in target. Browsers
 * strip tabs and newlines from URLs and read "\" as "/", so "/\t/host" and
 * "/\host" become "//host" — another site. Anything with a control
 * character, whitespace or a backslash is refused outright, and what is left
 * must resolve to this origin; the result is the resolved path, never the raw
 * input (which would also put a newline into a redirect header: a 500).
 */
export function safeCallbackPath(value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 2048) return "/";
  if (!value.startsWith("/") || value.startsWith("//")) return "/";
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u0020\u007f\\]/.test(value)) return "/";
  let resolved: URL;
  try {
    resolved = new URL(value, PROBE_ORIGIN);
  } catch {
    return "/";
  }
  if (resolved.origin !== PROBE_ORIGIN) return "/";
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
