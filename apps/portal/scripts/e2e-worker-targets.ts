/*
 * `npm run test:e2e:workers`: the journeys with the real worker on both Kafka
 * targets at once — the embedded broker (`npm run test:e2e:worker`) and the
 * 3-node Apache Kafka cluster (`npm run test:e2e:worker-apache`) — each with
 * its own portal, PostgreSQL and Kafka ports, so `npm test` waits for the
 * slower of the two instead of their sum (much of each run is waiting: for the
 * worker's steps, lag figures, a segment's roll into the remote tier).
 *
 * The Apache Kafka run starts once the embedded run's portal answers: the first
 * `npm start` builds the portal when its sources changed, and two builds into
 * the same `.next` folder at once would break both. Each line of output is
 * prefixed with its run's name; the exit code is non-zero when either run failed.
 *
 * Ports: the embedded run keeps KAPPA_E2E_PORT / KAPPA_E2E_KAFKA_PORT /
 * KAPPA_E2E_PG_PORT (defaults 3100, 19092, 55433); the Apache Kafka run uses
 * each plus 100 (the portal's test identity provider is on the portal's port
 * plus one, the embedded broker's prod and metrics ports on the Kafka port
 * plus 1, 10 and 11, Apache Kafka's nodes on it, plus 2 and plus 3).
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

const PORTAL_DIR = path.resolve(import.meta.dirname, "..");
const OFFSET = 100;

const base = {
  port: Number(process.env.KAPPA_E2E_PORT ?? 3100),
  kafkaPort: Number(process.env.KAPPA_E2E_KAFKA_PORT ?? 19092),
  pgPort: Number(process.env.KAPPA_E2E_PG_PORT ?? 55433),
};
for (const [name, value] of Object.entries(base)) {
  if (!Number.isInteger(value) || value < 1 || value + OFFSET > 65535) throw new Error(`e2e-worker-targets: ${name} ${value} is not a port (plus ${OFFSET})`);
}

interface Run {
  name: string;
  script: string;
  env: NodeJS.ProcessEnv;
  child?: ChildProcess;
  exit?: Promise<number>;
}

function start(run: Run): void {
  // Each run picks its own data folder, secrets key and SSO secret (playwright.config.ts sets them when unset);
  // its npm script names its Kafka target.
  const env = { ...process.env, ...run.env };
  for (const key of ["KAPPA_E2E_KAFKA", "KAPPA_E2E_DATA_DIR", "KAPPA_SECRETS_KEY", "KAPPA_E2E_OIDC_SECRET", "KAPPA_E2E_OIDC_PORT", "KAPPA_E2E_KAFKA_BOOTSTRAP"]) delete env[key];
  const child = spawn("npm", ["run", run.script], { cwd: PORTAL_DIR, env, stdio: ["ignore", "pipe", "pipe"] });
  run.child = child;
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => process.stdout.write(`[${run.name}] ${line}\n`));
  }
  run.exit = new Promise((resolve) => {
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on("error", (error) => {
      process.stdout.write(`[${run.name}] could not start: ${error.message}\n`);
      resolve(1);
    });
  });
}

/** Resolves once the portal at `url` answers, or with false when `stopped` resolves first. */
async function portalAnswers(url: string, stopped: Promise<number>): Promise<boolean> {
  let done = false;
  void stopped.then(() => (done = true));
  while (!done) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      if (response.status < 500) return true;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  return false;
}

const embedded: Run = { name: "worker", script: "test:e2e:worker", env: {} };
const apache: Run = {
  name: "worker-apache",
  script: "test:e2e:worker-apache",
  env: { KAPPA_E2E_PORT: String(base.port + OFFSET), KAPPA_E2E_KAFKA_PORT: String(base.kafkaPort + OFFSET), KAPPA_E2E_PG_PORT: String(base.pgPort + OFFSET) },
};

const runs = [embedded, apache];
const stopAll = (signal: NodeJS.Signals) => {
  for (const run of runs) run.child?.kill(signal);
};
process.on("SIGINT", () => stopAll("SIGINT"));
process.on("SIGTERM", () => stopAll("SIGTERM"));

const started = Date.now();
start(embedded);
const up = await portalAnswers(`http://127.0.0.1:${base.port}/signin`, embedded.exit!);
if (up) {
  process.stdout.write(`[e2e-worker-targets] the embedded run's portal answers after ${((Date.now() - started) / 1000).toFixed(0)} s; starting the Apache Kafka run beside it\n`);
} else {
  process.stdout.write("[e2e-worker-targets] the embedded run ended before its portal answered; starting the Apache Kafka run now\n");
}
start(apache);
const [embeddedCode, apacheCode] = await Promise.all([embedded.exit!, apache.exit!]);
process.stdout.write(`[e2e-worker-targets] worker: ${embeddedCode === 0 ? "passed" : `failed (exit ${embeddedCode})`}; worker-apache: ${apacheCode === 0 ? "passed" : `failed (exit ${apacheCode})`}; ${((Date.now() - started) / 60_000).toFixed(1)} min\n`);
process.exit(embeddedCode === 0 && apacheCode === 0 ? 0 : 1);
