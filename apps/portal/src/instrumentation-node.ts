import { env } from "./env";

/*
 * A bad configuration stops the server right away, naming the variables,
 * instead of failing on the first request.
 */
try {
  env();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
