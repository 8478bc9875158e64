/**
 * Runs once when the server starts: a bad configuration stops it right away,
 * naming the variables, instead of failing on the first request.
 */
export async function register(): Promise<void> {
  const { env } = await import("./env");
  try {
    env();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
