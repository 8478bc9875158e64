/**
 * Runs once when the server starts. The check lives in a Node-only module:
 * Next also compiles this file for the Edge runtime, where neither the
 * configuration parser's dependencies nor process.exit exist.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") await import("./instrumentation-node");
}
