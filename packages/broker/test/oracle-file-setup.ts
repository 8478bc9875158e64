// Runs in every test file (vitest setupFiles): in an oracle run, stops the
// Apache Kafka nodes the file's tests started with their own settings.
import { afterAll } from "vitest";
import { stopOracleNodes } from "./oracle-nodes.ts";

afterAll(async () => {
  await stopOracleNodes();
}, 120_000);
