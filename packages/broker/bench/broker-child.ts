// The broker process of `bench/broker.ts`: the broker as `src/cli.ts` starts it
// (same flags), plus an IPC channel through which the benchmark resets and
// reads the broker's own request timing (net/request-metrics.ts), so that the
// broker's latency can be set beside the client's for the same requests.
import { resolve } from "node:path";
import { configFromArgs } from "../src/config-sources.ts";
import { startBroker } from "../src/server.ts";

async function main(): Promise<void> {
  const config = configFromArgs(process.argv.slice(2));
  config["log.dirs"] = resolve(config["log.dirs"]);
  const broker = await startBroker(config);
  process.stdout.write(`kappa-broker ready on ${broker.advertised}\n`);
  process.on("message", (msg: unknown) => {
    if (msg === "reset-metrics") {
      broker.requestMetrics.reset();
      broker.logFlushTimes.reset();
      process.send?.({ reset: true });
    } else if (msg === "metrics") process.send?.({ metrics: broker.requestMetrics.snapshot(), flush: broker.logFlushTimes.summary() });
  });
  // SIGTERM stops cleanly, so that `--cpu-prof` writes its profile on exit.
  process.once("SIGTERM", () => {
    broker.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`bench broker: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
