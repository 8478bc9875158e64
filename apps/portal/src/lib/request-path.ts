/** Header through which the proxy tells server components the requested path. */
export const PATH_HEADER = "x-kappa-path";

/** Only same-origin paths may be a post-sign-in target (no `//host` or `/\host` open redirects). */
export function safeCallbackPath(value: unknown): string {
  return typeof value === "string" && /^\/(?![/\\])/.test(value) ? value : "/";
}
