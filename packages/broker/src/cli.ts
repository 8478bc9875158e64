// `npm run broker -- --port 9092 --data-dir .data/kafka`: runs the broker in the
// foreground, logs one line when ready and stops cleanly on SIGINT/SIGTERM.
import { resolve } from "node:path";
import { ConfigError, configFromArgs, CLI_USAGE } from "./config.ts";
import { startBroker } from "./server.ts";

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(`${CLI_USAGE}\n`);
    return;
  }
  let config;
  try {
    config = configFromArgs(args);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`kappa-broker: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  config["log.dirs"] = resolve(config["log.dirs"]);
  const broker = await startBroker(config);
  process.stdout.write(`kappa-broker ready on ${broker.advertised} (listening on ${broker.host}:${broker.port}, node ${config["node.id"]}, data dir ${config["log.dirs"]})\n`);
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`kappa-broker: ${signal} received, stopping\n`);
    broker.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`kappa-broker: error while stopping: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((err: unknown) => {
  process.stderr.write(`kappa-broker: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
