/*
 * Runs the embedded PostgreSQL for `npm start` in its own process group, so a
 * Ctrl-C in the terminal reaches the start script (which stops the worker, the
 * portal and the broker first) but not PostgreSQL, which must outlive them.
 * Stops PostgreSQL when told to over IPC, or when the start script is gone
 * (IPC disconnect), so no PostgreSQL is ever left behind.
 */
import { startEmbeddedPostgres } from "@kappa/catalog/embedded";

const [dataDir, port] = [process.env.KAPPA_PG_DATA_DIR, Number(process.env.KAPPA_PG_PORT)];
if (!dataDir || !Number.isInteger(port) || !process.send) {
  process.stderr.write("postgres-supervisor: run by scripts/start.ts only\n");
  process.exit(2);
}

// Not in the terminal's process group, but a stray SIGINT/SIGTERM should still stop cleanly.
let stopping: Promise<void> | null = null;
const postgres = await startEmbeddedPostgres({ dataDir, port }).catch((error: unknown) => {
  process.send?.({ type: "failed", message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
const stop = () => {
  stopping ??= postgres.stop().finally(() => process.exit(0));
  return stopping;
};
process.on("message", (message) => {
  if (message === "stop") void stop();
});
process.on("disconnect", () => void stop());
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
process.send({ type: "ready", adminUrl: postgres.adminUrl });
