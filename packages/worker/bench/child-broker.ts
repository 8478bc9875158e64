/*
 * The project's broker in its own Node process (as `npm start` and production
 * run it beside the worker), for the worker benchmarks: what the bench
 * process's memory then shows is the worker's, not the broker's. SASL/SCRAM
 * with one admin account; extra broker settings as `--override k=v`.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@kappa/catalog/testing";

export const SASL_ADMIN = { user: "kappa-admin", password: "bench-admin-secret" };
/** The SCRAM credentials of SASL_ADMIN as the worker's clients take them. */
export const BENCH_SASL = { mechanism: "SCRAM-SHA-512" as const, username: SASL_ADMIN.user, password: SASL_ADMIN.password };
const BROKER_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../broker");

export interface ChildBroker {
  bootstrap: string;
  port: number;
  pid: number | undefined;
  stop(): Promise<void>;
  /** SIGKILL (a crash), resolved once the process is gone. */
  kill(): Promise<void>;
}

/** `port`: listen there (a restart of a killed broker on the same data folder and address); a free port by default. */
export async function startChildBroker(dataDir: string, overrides: Record<string, string> = {}, port?: number): Promise<ChildBroker> {
  port ??= await freePort();
  const settings = { "group.initial.rebalance.delay.ms": "0", "auto.create.topics.enable": "false", ...overrides };
  const proc = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_BROKER_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_BROKER_PROFILE}`] : []),
      "--import",
      "tsx",
      "src/cli.ts",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--data-dir",
      dataDir,
      "--sasl-admin",
      `${SASL_ADMIN.user}:${SASL_ADMIN.password}`,
      ...Object.entries(settings).flatMap(([key, value]) => ["--override", `${key}=${value}`]),
    ],
    // The worker's V8 flags are on the bench's command line, not inherited: the broker runs uncapped.
    { cwd: BROKER_DIR, stdio: ["ignore", "pipe", "pipe"] },
  );
  let err = "";
  proc.stderr.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  await new Promise<void>((resolve, reject) => {
    let out = "";
    proc.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("kappa-broker ready")) resolve();
    });
    proc.once("exit", (code) => reject(new Error(`broker exited with ${code}:\n${err}`)));
  });
  const ended = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once("exit", () => resolve());
      proc.kill(signal);
    });
  return {
    bootstrap: `127.0.0.1:${port}`,
    port,
    pid: proc.pid,
    stop: () => ended("SIGTERM"),
    kill: () => ended("SIGKILL"),
  };
}
