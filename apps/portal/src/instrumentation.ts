/** Runs once when the server starts: a bad configuration stops it right away. */
export async function register(): Promise<void> {
  const { env } = await import("./env");
  env();
}
