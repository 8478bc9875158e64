/*
 * Playwright runs side by side, each on a portal, PostgreSQL and Kafka of its
 * own: `tsx scripts/e2e-lanes.ts <lane>…` with lanes `journeys` (the portal's
 * journeys with the worker off, `npm run test:e2e`), `worker` (the journeys
 * with the real worker on the embedded broker and a local Flink session
 * cluster for the derived-product journey, `npm run test:e2e:worker`, which
 * sets KAPPA_E2E_FLINK=1),
 * `worker-apache` (the same on the 3-node Apache Kafka cluster,
 * `npm run test:e2e:worker-apache`) and `api-fuzz` (schemathesis,
 * `npm run test:api-fuzz`). `npm test` runs all four side by side
 * (`npm run test:e2e:lanes`, the journeys first) and so waits for the slowest
 * (the journeys) instead of their sum: much of each run is waiting — for a
 * page, the worker's steps, lag figures, a segment's roll into the remote
 * tier. `npm run test:e2e:after-journeys` runs the three others.
 *
 * The first lane starts alone; the others once its portal answers: the first
 * `npm start` builds the portal when its sources changed, and two builds into
 * the same `.next` folder at once would break both. Each line of output is
 * prefixed with its lane's name; the exit code is non-zero when any lane failed.
 *
 * Ports: each lane takes KAPPA_E2E_PORT / KAPPA_E2E_KAFKA_PORT /
 * KAPPA_E2E_PG_PORT (defaults 3100, 19092, 55433) plus its offset — worker 0,
 * worker-apache 100, api-fuzz 200, journeys 300 (the portal's test identity
 * provider is on the portal's port plus one; the embedded broker's prod and
 * metrics ports on the Kafka port plus 1, 10 and 11; Apache Kafka's nodes on
 * it, plus 2 and 3; the worker lane's Flink REST API and SQL Gateway on it
 * plus 20 and 21).
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

const PORTAL_DIR = path.resolve(import.meta.dirname, "..");
const LANES = {
  worker: { script: "test:e2e:worker", offset: 0 },
  "worker-apache": { script: "test:e2e:worker-apache", offset: 100 },
  "api-fuzz": { script: "test:api-fuzz", offset: 200 },
  journeys: { script: "test:e2e", offset: 300 },
} as const;
const MAX_OFFSET = 300;

const base = {
  port: Number(process.env.KAPPA_E2E_PORT ?? 3100),
  kafkaPort: Number(process.env.KAPPA_E2E_KAFKA_PORT ?? 19092),
  pgPort: Number(process.env.KAPPA_E2E_PG_PORT ?? 55433),
};
for (const [name, value] of Object.entries(base)) {
  if (!Number.isInteger(value) || value < 1 || value + MAX_OFFSET > 65535) throw new Error(`e2e-lanes: ${name} ${value} is not a port (plus up to ${MAX_OFFSET})`);
}

interface Run {
  name: string;
  script: string;
  env: Record<string, string>;
  child?: ChildProcess;
  exit?: Promise<number>;
}

function start(run: Run): void {
  // Each run picks its own data folder, secrets key and SSO secret (playwright.config.ts sets them when unset);
  // its npm script names its Kafka target.
  const env = { ...process.env, ...run.env };
  for (const key of ["KAPPA_E2E_KAFKA", "KAPPA_E2E_DATA_DIR", "KAPPA_SECRETS_KEY", "KAPPA_E2E_OIDC_SECRET", "KAPPA_E2E_OIDC_PORT", "KAPPA_E2E_KAFKA_BOOTSTRAP"]) delete env[key];
  // A process group of its own, so a stop reaches npm's shell and Playwright too (npm alone does not pass it on).
  const child = spawn("npm", ["run", run.script], { cwd: PORTAL_DIR, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
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

const names = process.argv.slice(2);
if (names.length === 0) throw new Error(`e2e-lanes: name the lanes to run (${Object.keys(LANES).join(", ")})`);
const runs = names.map((name): Run => {
  if (!Object.hasOwn(LANES, name)) throw new Error(`e2e-lanes: no lane "${name}" (lanes: ${Object.keys(LANES).join(", ")})`);
  const { script, offset } = LANES[name as keyof typeof LANES];
  return { name, script, env: { KAPPA_E2E_PORT: String(base.port + offset), KAPPA_E2E_KAFKA_PORT: String(base.kafkaPort + offset), KAPPA_E2E_PG_PORT: String(base.pgPort + offset) } };
});
/** Passes a stop on to every lane's process group: Playwright then stops its portal as at a run's end. */
let stopping = false;
const stopAll = (signal: NodeJS.Signals) => {
  stopping = true;
  for (const run of runs) {
    if (run.child?.pid === undefined || run.child.exitCode !== null) continue;
    try {
      process.kill(-run.child.pid, signal);
    } catch {
      // already gone
    }
  }
};
process.on("SIGINT", () => stopAll("SIGINT"));
process.on("SIGTERM", () => stopAll("SIGTERM"));

const started = Date.now();
const [first, ...rest] = runs as [Run, ...Run[]];
start(first);
if (rest.length > 0) {
  const up = await portalAnswers(`http://127.0.0.1:${first.env.KAPPA_E2E_PORT}/signin`, first.exit!);
  process.stdout.write(
    up
      ? `[e2e-lanes] ${first.name}'s portal answers after ${((Date.now() - started) / 1000).toFixed(0)} s; starting ${rest.map((r) => r.name).join(", ")} beside it\n`
      : `[e2e-lanes] ${first.name} ended before its portal answered; starting ${rest.map((r) => r.name).join(", ")} now\n`,
  );
  // A stop while the first was starting: the others never start (and count as failed).
  if (!stopping) rest.forEach(start);
}
const codes = await Promise.all(runs.map((r) => r.exit ?? Promise.resolve(1)));
process.stdout.write(`[e2e-lanes] ${runs.map((r, i) => `${r.name}: ${codes[i] === 0 ? "passed" : `failed (exit ${codes[i]})`}`).join("; ")}; ${((Date.now() - started) / 60_000).toFixed(1)} min\n`);
process.exit(codes.every((c) => c === 0) ? 0 : 1);
