/** Header through which the proxy tells server components the requested path. */
export const PATH_HEADER = "x-kappa-path";
/** Header through which the proxy passes the request method (token-use audit events name it). */
export const METHOD_HEADER = "x-kappa-method";

/** Only same-origin paths may be a post-sign-in target (no `//host` or `/\host` open redirects). */
export function safeCallbackPath(value: unknown): string {
  return typeof value === "string" && /^\/(?![/\\])/.test(value) ? value : "/";
}
