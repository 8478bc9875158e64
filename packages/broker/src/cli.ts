// `npm run broker -- --port 9092 --data-dir .data/kafka`: runs the broker in the
// foreground, logs one line when ready and stops cleanly on SIGINT/SIGTERM.
import { resolve } from "node:path";
import { configFromArgs, CLI_USAGE } from "./config-sources.ts";
import { ConfigError } from "./config.ts";
import { BootstrapUserError } from "./security/sasl/bootstrap.ts";
import { applySaslAdmin, extractSaslFlags, type SaslFlags } from "./security/sasl/cli-flags.ts";
import { startBroker } from "./server.ts";

async function main(): Promise<void> {
  // `npm run broker -w packages/broker` runs this in packages/broker; relative paths
  // (--data-dir, --config, certificates) must mean what they mean where the user
  // typed the command, which npm records in INIT_CWD.
  if (process.env.npm_lifecycle_event === "broker" && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
  const args = process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(`${CLI_USAGE}\n`);
    return;
  }
  let config;
  let sasl: SaslFlags;
  try {
    sasl = extractSaslFlags(args);
    config = configFromArgs(sasl.rest);
    if (sasl.admin) config = applySaslAdmin(config, sasl.admin);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof BootstrapUserError) {
      process.stderr.write(`kappa-broker: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  config["log.dirs"] = resolve(config["log.dirs"]);
  const saslUsers = [...(sasl.admin ? [sasl.admin] : []), ...sasl.users];
  const broker = await startBroker({ ...config, saslUsers });
  const listening = broker.listeners.map((l) => `${l.name}://${l.host}:${l.boundPort}`).join(", ");
  process.stdout.write(`kappa-broker ready on ${broker.advertised} (listening on ${listening}, node ${config["node.id"]}, data dir ${config["log.dirs"]})\n`);
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
