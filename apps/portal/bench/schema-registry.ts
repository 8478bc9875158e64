/*
 * `npm run bench -w apps/portal`: GET /api/schema-registry/schemas/ids/{id}
 * over HTTP against the real portal (`next start` of the production build, on
 * an embedded PostgreSQL started here), as a Schema Registry client in a
 * consumer calls it: HTTP Basic with a service account's Kafka credentials.
 * Target: p95 ≤ 5 ms warm (after the first requests; clients cache ids, so
 * the warm path is the one that matters). Builds the portal first when no
 * build exists. Prints the figures and the machine's load average; exits
 * non-zero only on errors. Each warm request costs two PostgreSQL queries (the
 * service account's stored hash, then the schema among those it may read);
 * scrypt runs only on the first request of a credential.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import path from "node:path";
import {
  approveProduct,
  approveSubscription,
  createServiceAccount,
  hashPassword,
  registerProduct,
  requestSubscription,
  submitForReview,
} from "@kappa/catalog";
import { createTestDatabase, freePort, startTestPostgres } from "@kappa/catalog/testing";

const WARMUP = 200;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const PORTAL = path.resolve(import.meta.dirname, "..");
const NEXT = path.join(PORTAL, "node_modules", ".bin", "next");
const NEXT_BIN = existsSync(NEXT) ? NEXT : path.resolve(PORTAL, "../../node_modules/.bin/next");

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function seed(db: Awaited<ReturnType<typeof createTestDatabase>>["db"]) {
  const orders = await db.domain.create({ data: { slug: "orders", name: "Orders" } });
  const payments = await db.domain.create({ data: { slug: "payments", name: "Payments" } });
  const owner = await db.user.create({ data: { email: "owner@orders.bench", name: "Owner" } });
  const consumerOwner = await db.user.create({ data: { email: "owner@payments.bench", name: "Consumer" } });
  const reviewer = await db.user.create({ data: { email: "reviewer@gov.bench", name: "Reviewer", globalRole: "GOVERNANCE" } });
  await db.membership.createMany({ data: [{ userId: owner.id, domainId: orders.id, role: "OWNER" }, { userId: consumerOwner.id, domainId: payments.id, role: "OWNER" }] });
  const fields = Array.from({ length: 50 }, (_, i) => ({ name: `field${i}`, type: i % 2 ? "long" : ["null", "string"], ...(i % 2 ? {} : { default: null }) }));
  const product = await registerProduct(db, { userId: owner.id }, {
    domainId: orders.id,
    name: "Bench Events",
    description: "Records for the registry benchmark.",
    classification: "INTERNAL",
    tags: [],
    freshnessSeconds: 60,
    availabilityPct: 99.9,
    partitions: 1,
    contactEmail: "owner@orders.bench",
    schema: { format: "AVRO", definition: JSON.stringify({ type: "record", name: "BenchEvent", namespace: "bench", fields }) },
  });
  await submitForReview(db, { userId: owner.id }, product.id);
  await approveProduct(db, { userId: reviewer.id }, product.id);
  const account = await createServiceAccount(db, { userId: consumerOwner.id }, { domainId: payments.id, name: "payments-bench" });
  const subscription = await requestSubscription(db, { userId: consumerOwner.id }, { productId: product.id, serviceAccountId: account.id, purpose: "Benchmark the registry reads." });
  await approveSubscription(db, { userId: owner.id }, subscription.id);
  // As the worker does when it issues SCRAM credentials: the scrypt hash of the password.
  const password = "bench-password-0123456789";
  await db.serviceAccount.update({ where: { id: account.id }, data: { secretHash: await hashPassword(password), secretIssuedAt: new Date() } });
  const version = await db.schemaVersion.findFirstOrThrow({ where: { productId: product.id } });
  return { username: account.name, password, schemaId: version.schemaId ?? 0, subject: `${product.topicName}-value` };
}

async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function measure(label: string, url: string, authorization: string, check: (body: unknown) => boolean) {
  const times: number[] = [];
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    const start = performance.now();
    const response = await fetch(url, { headers: { authorization } });
    const body: unknown = await response.json();
    const ms = performance.now() - start;
    if (response.status !== 200 || !check(body)) throw new Error(`${label}: unexpected answer ${response.status} ${JSON.stringify(body)}`);
    if (i >= WARMUP) times.push(ms);
  }
  times.sort((a, b) => a - b);
  const p95 = percentile(times, 95);
  console.log(`${label.padEnd(44)} p50 ${percentile(times, 50).toFixed(2)} ms · p95 ${p95.toFixed(2)} ms · p99 ${percentile(times, 99).toFixed(2)} ms · max ${(times[times.length - 1] ?? NaN).toFixed(2)} ms`);
  return p95;
}

async function main() {
  if (!existsSync(path.join(PORTAL, ".next", "BUILD_ID"))) {
    console.log("No portal build found: building it (next build)…");
    const build = spawnSync(NEXT_BIN, ["build"], { cwd: PORTAL, stdio: "inherit" });
    if (build.status !== 0) throw new Error("next build failed");
  }
  const postgres = await startTestPostgres();
  const database = await createTestDatabase(postgres.adminUrl);
  const port = await freePort();
  const server = spawn(NEXT_BIN, ["start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: PORTAL,
    env: { ...process.env, DATABASE_URL: database.url, NEXTAUTH_SECRET: "bench-secret-0123456789abcdef", NEXTAUTH_URL: `http://127.0.0.1:${port}`, NODE_ENV: "production" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  try {
    const { username, password, schemaId, subject } = await seed(database.db);
    const base = `http://127.0.0.1:${port}/api/schema-registry`;
    await waitFor(`${base}/schemas/types`, 60_000);
    const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
    // Wall-clock figures on a shared machine include time spent waiting for a core: the load average says how far to trust them.
    const load = loadavg().map((l) => l.toFixed(1)).join(" / ");
    console.log(`Schema Registry API over HTTP (next start, embedded PostgreSQL), ${REQUESTS} requests after ${WARMUP} warm-up, one client, Basic auth (load average ${load} on ${availableParallelism()} cores)`);
    const p95 = await measure(`GET /schemas/ids/${schemaId}`, `${base}/schemas/ids/${schemaId}`, authorization, (b) => typeof (b as { schema?: unknown }).schema === "string");
    await measure(`GET /subjects/${subject}/versions/latest`, `${base}/subjects/${subject}/versions/latest`, authorization, (b) => (b as { id?: unknown }).id === schemaId);
    console.log(`GET /schemas/ids/{id} p95 ${p95.toFixed(2)} ms (target ≤ 5 ms warm): ${p95 <= 5 ? "met" : "MISSED"}`);
  } finally {
    server.kill("SIGTERM");
    await database.dispose();
    await postgres.stop();
  }
}

await main();
