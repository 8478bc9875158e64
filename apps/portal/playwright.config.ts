import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";

/*
 * End-to-end journeys in Debian's Chromium (never a downloaded browser)
 * against the real product: `npm start` with a fresh data folder starts
 * embedded PostgreSQL, migrates, seeds the demo data, builds and serves the
 * portal. Each run gets its own database, so tests never see stale state.
 */
const PORT = Number(process.env.KAPPA_E2E_PORT ?? 3100);
// The embedded broker's port in e2e runs (not 9092, so a developer's `npm start`
// can keep running); set here so the tests, in worker processes, see it too.
process.env.KAPPA_E2E_KAFKA_PORT ??= "19092";
/*
 * KAPPA_E2E_KAFKA=apache runs the worker project on Apache Kafka instead of
 * the embedded broker (project `worker-apache`): `npm start` with
 * KAPPA_KAFKA=apache starts the pinned release of packages/engines — a 3-node
 * KRaft cluster (SCRAM-SHA-512, StandardAuthorizer, tiered storage) on
 * KAPPA_E2E_KAFKA_PORT, +2 and +3 — once for the run, and stops it at its
 * end. The specs reach Kafka through KAPPA_E2E_KAFKA_BOOTSTRAP, which
 * lists every node of the dev cluster.
 */
const kafkaEngine = process.env.KAPPA_E2E_KAFKA ?? "embedded";
if (kafkaEngine !== "embedded" && kafkaEngine !== "apache") throw new Error(`KAPPA_E2E_KAFKA must be embedded or apache, not ${kafkaEngine}`);
const kafkaPort = Number(process.env.KAPPA_E2E_KAFKA_PORT);
process.env.KAPPA_E2E_KAFKA_BOOTSTRAP ??= (kafkaEngine === "apache" ? [kafkaPort, kafkaPort + 2, kafkaPort + 3] : [kafkaPort]).map((p) => `127.0.0.1:${p}`).join(",");
/*
 * KAPPA_E2E_FLINK=1 (the embedded-broker worker lane, `npm run test:e2e:worker`) has `npm start` start a local Flink
 * session cluster (e2e/worker-derived.spec.ts): its JobManager's REST API and SQL Gateway on the Kafka port plus 20
 * and 21 — not `npm start`'s 8081 and 8083, which two runs (or a developer's `npm start`) would both take.
 */
const withFlink = process.env.KAPPA_E2E_FLINK === "1";
process.env.KAPPA_E2E_FLINK_PORT ??= String(kafkaPort + 20);
process.env.KAPPA_E2E_FLINK_GATEWAY_PORT ??= String(kafkaPort + 21);
// The test identity provider of the SSO journey (e2e/oidc-provider.ts): next to the portal's port.
process.env.KAPPA_E2E_OIDC_PORT ??= String(PORT + 1);
const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
const DATA_PREFIX = "kappa-e2e-";

function postmasterRunning(dir: string): boolean {
  const pidFile = path.join(dir, "postgres", "postmaster.pid");
  if (!existsSync(pidFile)) return false;
  const pid = Number.parseInt(readFileSync(pidFile, "utf8").split("\n")[0] ?? "", 10);
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Data folders of earlier runs (~40 MB each) whose PostgreSQL is gone: drop them. A folder younger than
 * ten minutes may belong to a run beside this one whose PostgreSQL is still starting
 * (`npm run test:e2e:workers` runs two at once): it stays.
 */
function removeStaleDataDirs(): void {
  for (const name of readdirSync("/tmp")) {
    const dir = path.join("/tmp", name);
    if (!name.startsWith(DATA_PREFIX) || postmasterRunning(dir)) continue;
    const modified = statSync(dir, { throwIfNoEntry: false })?.mtimeMs;
    if (modified !== undefined && Date.now() - modified > 10 * 60_000) rmSync(dir, { recursive: true, force: true });
  }
}

// Set once in the runner process; workers inherit it, so all agree on one folder.
if (!process.env.KAPPA_E2E_DATA_DIR) {
  removeStaleDataDirs();
  process.env.KAPPA_E2E_DATA_DIR = `/tmp/${DATA_PREFIX}${Date.now()}-${process.pid}`;
  // One key per run, shared by the portal, the worker and the tests that stand
  // in for the worker when they seal an issued password.
  process.env.KAPPA_SECRETS_KEY ??= randomBytes(32).toString("hex");
  // The SSO client's secret, shared by the portal and the test's provider.
  process.env.KAPPA_E2E_OIDC_SECRET ??= randomBytes(24).toString("hex");
}
/*
 * KAPPA_E2E_WORKER=1 runs the full journey with the real worker and broker
 * (e2e/worker-journey.spec.ts). Without it the worker must not run: the other
 * specs stand in for it by writing its rows, and a live worker would race them.
 */
const withWorker = process.env.KAPPA_E2E_WORKER === "1" || kafkaEngine === "apache";
const baseURL = `http://localhost:${PORT}`;

export default defineConfig({
  testDir: "./e2e",
  // Per portal port: two runs side by side (`npm run test:e2e:workers`) must not clear each other's results.
  outputDir: path.join("test-results", String(PORT)),
  // Journeys share one database and build on each other's products.
  fullyParallel: false,
  workers: 1,
  retries: 0,
  // Upper bounds, not speed targets: a journey with three browser contexts
  // takes over a minute when the two cores are shared with other test runs.
  timeout: 120_000,
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  forbidOnly: true,
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    ...devices["Desktop Chrome"],
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  projects: [
    { name: "setup", testMatch: /.*\.setup\.ts/ },
    ...(withWorker
      ? [{ name: kafkaEngine === "apache" ? "worker-apache" : "worker", testMatch: /(worker-.*|cli)\.spec\.ts/, dependencies: ["setup"] }]
      : [
          { name: "journeys", testMatch: /.*\.spec\.ts/, testIgnore: /(worker-.*|cli|api-fuzz)\.spec\.ts/, dependencies: ["setup"] },
          // The property-based API tester (e2e/api-fuzz.spec.ts), in `npm test` as `npm run test:api-fuzz`: on a portal of
          // its own with the demo data only (KAPPA_E2E_API_FUZZ=1), the configuration verified to have zero failures; it signs in by itself.
          ...(process.env.KAPPA_E2E_API_FUZZ === "1" ? [{ name: "api-fuzz", testMatch: /api-fuzz\.spec\.ts/ }] : []),
        ]),
  ],
  webServer: {
    command: "npm start",
    cwd: REPO_ROOT,
    url: `${baseURL}/signin`,
    // The first start builds the portal: about a minute on a quiet 2-core machine,
    // several under load (Apache Kafka's clusters start before it: 10–30 s, more under load).
    // The wait ends as soon as the sign-in page answers.
    timeout: 600_000,
    reuseExistingServer: false,
    // SIGTERM (not Playwright's default SIGKILL) lets `npm start` stop PostgreSQL cleanly.
    gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
    stdout: "pipe",
    stderr: "pipe",
    env: {
      KAPPA_DATA_DIR: process.env.KAPPA_E2E_DATA_DIR,
      PORT: String(PORT),
      // Its own PostgreSQL port, so a developer's `npm start` can keep running.
      KAPPA_PG_PORT: String(Number(process.env.KAPPA_E2E_PG_PORT ?? 55433)),
      KAPPA_DEMO_MODE: "true",
      // Loopback, as demo mode defaults to — stated, because containers (CI)
      // export HOSTNAME=<container id>, which would bind elsewhere.
      HOSTNAME: "127.0.0.1",
      NEXTAUTH_URL: baseURL,
      KAPPA_SECRETS_KEY: process.env.KAPPA_SECRETS_KEY ?? "",
      // For scripts/start.ts once it runs the worker (see the portal README).
      KAPPA_START_WORKER: withWorker ? "true" : "false",
      // The demo's live traffic would only add load and noise to the journeys
      // (scripts/demo-traffic.test.ts tests it against the broker).
      KAPPA_DEMO_TRAFFIC: "0",
      // No local Flink session cluster (~1 GiB, a minute of two cores) unless a run asks for it: the embedded-broker
      // worker lane does (e2e/worker-derived.spec.ts); the worker's integration suite runs derived products on its own Flink.
      KAPPA_FLINK: withFlink ? "on" : "off",
      FLINK_PORT: process.env.KAPPA_E2E_FLINK_PORT,
      FLINK_GATEWAY_PORT: process.env.KAPPA_E2E_FLINK_GATEWAY_PORT,
      // SLO alerts fire and resolve after 5 s above/below the objective (default 1 and 2 min), so the journey sees both.
      WORKER_ALERT_FIRE_AFTER_MS: "5000",
      WORKER_ALERT_RESOLVE_AFTER_MS: "5000",
      // The worker observes lag, offsets and tiers every 2 s (default 5 s) and grants the message browser new topics
      // within 2 s (default 10 s), so the journeys' waits for a figure or a grant end sooner.
      WORKER_OBSERVE_INTERVAL_MS: "2000",
      WORKER_MESSAGE_BROWSER_RECONCILE_MS: "2000",
      WORKER_CLUSTER_SCAN_MS: "5000", // unmanaged topics listed within 5 s (default 30 s): e2e/worker-operate.spec.ts
      WORKER_RECERTIFICATION_MS: "3000", // the recertification sweep every 3 s (default 1 h): the same spec
      // Its own Kafka port too (Apache Kafka: the first of the dev cluster's nodes).
      KAFKA_PORT: process.env.KAPPA_E2E_KAFKA_PORT,
      KAPPA_KAFKA: kafkaEngine,
      // No second Apache Kafka cluster as `prod` (a fourth JVM): no spec of the worker project promotes. The embedded
      // prod broker costs next to nothing and stays.
      ...(kafkaEngine === "apache" ? { KAPPA_PROD_ENVIRONMENT: "false" } : {}),
      // Single sign-on against the provider the SSO journey starts (e2e/sso.spec.ts);
      // next-auth reads its discovery document only when someone signs in with it.
      OIDC_ISSUER: `http://127.0.0.1:${process.env.KAPPA_E2E_OIDC_PORT}`,
      OIDC_CLIENT_ID: "kappa-portal-e2e",
      OIDC_CLIENT_SECRET: process.env.KAPPA_E2E_OIDC_SECRET ?? "",
      OIDC_NAME: "Kappa Test IdP",
      // The test provider releases the groups claim for its `groups` scope, as many directories do.
      OIDC_SCOPE: "openid email profile groups",
    },
  },
});
