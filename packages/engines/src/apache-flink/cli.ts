/**
 * `npm run flink -w packages/engines`: an Apache Flink session cluster
 * (JobManager, TaskManager, SQL Gateway) from the pinned release, on
 * 127.0.0.1 with free ports, until Ctrl-C. Prints the SQL Gateway's and the
 * REST API's addresses.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { EngineUnavailableError } from "../tools.ts";
import { startFlink } from "./cluster.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string" },
    slots: { type: "string", default: "4" },
    help: { type: "boolean", short: "h" },
  },
});

if (values.help) {
  console.log(`usage: npm run flink -w packages/engines -- [--data-dir DIR] [--slots N]
  Starts Apache Flink (a session cluster: JobManager, one TaskManager with N slots, SQL Gateway) on 127.0.0.1.
  Configuration, logs and checkpoints in DIR (default $KAPPA_DATA_DIR/apache-flink, KAPPA_DATA_DIR defaulting to .data).`);
  process.exit(0);
}
const slots = Number(values.slots);
if (!Number.isInteger(slots) || slots < 1 || slots > 64) {
  console.error(`--slots must be an integer from 1 to 64 (got ${values.slots})`);
  process.exit(2);
}

const repoRoot = path.resolve(import.meta.dirname, "../../../..");
const dataDir = path.resolve(values["data-dir"] ?? path.join(process.env.KAPPA_DATA_DIR ?? path.join(repoRoot, ".data"), "apache-flink"));
mkdirSync(dataDir, { recursive: true });

try {
  const cluster = await startFlink({ dataDir, taskSlots: slots, log: (line) => console.log(`[flink] ${line}`) });
  console.log(`SQL Gateway ${cluster.gatewayUrl}  (REST API v3: ${cluster.gatewayUrl}/v3/sessions)`);
  console.log(`Flink REST API and web UI ${cluster.restUrl}`);
  console.log(`Apache Flink ${cluster.version}; logs in ${path.join(dataDir, "log")}, checkpoints in ${cluster.checkpointsDir}. Ctrl-C stops it.`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log("[flink] stopping…");
    await cluster.stop();
    console.log("[flink] stopped");
    process.exit(0);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
} catch (error) {
  console.error(`[flink] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(error instanceof EngineUnavailableError ? 3 : 1);
}
