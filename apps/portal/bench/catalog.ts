/*
 * The catalog at scale (`npm run bench -w apps/portal`, part of `npm run
 * bench`; issue 14's table): `npm start` on a fresh data folder with the
 * worker off, the demo data plus a seeded catalog of 10,000 and then 100,000
 * products (50 domains, 85 % ACTIVE, ~0.3 subscriptions per product; SQL,
 * tables analysed — packages/catalog/src/testing/scale-catalog.ts), signed in
 * as the payments owner (a member of one domain: the visibility rules apply).
 *
 * For each case: 5 warm-up and 50 sequential requests, p50/p95, next to the
 * same SQL run directly over a pg connection (the statements the catalog's
 * search executes, from searchStatements), and the catalog page's time to
 * first byte; then 20 concurrent clients for 20 s over the search mix:
 * requests per second, p95, and every status other than 200; then the same
 * for the catalog page (an overload there must be a 503, never a 500).
 *
 * The worker stays off: the seeded products have no topics on the broker, and
 * a worker would (rightly) create 85,000 of them as drift.
 * BENCH_SCALES=10000,100000 (default), BENCH_SEQUENTIAL=50, BENCH_CONCURRENT_S=20.
 */
import os from "node:os";
import pg from "pg";
import * as catalog from "@kappa/catalog";
import { createPrismaClient, loadActor } from "@kappa/catalog";
import { seedScaleCatalog } from "@kappa/catalog/testing/scale";
import { demoPortal, signIn } from "../scripts/demo-portal";

const SCALES = (process.env.BENCH_SCALES ?? "10000,100000").split(",").map(Number);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 50);
const CONCURRENT_S = Number(process.env.BENCH_CONCURRENT_S ?? 20);
const CLIENTS = 20;
const PAGE_SIZE = 12;

const CASES: { name: string; query: Record<string, string> }[] = [
  { name: "no filter", query: {} },
  { name: "q=orders", query: { q: "orders" } },
  { name: "q=chargeback (rare)", query: { q: "chargeback" } },
  { name: "q=ref (prefix)", query: { q: "ref" } },
  { name: "q=payments&sort=name", query: { q: "payments", sort: "name" } },
  { name: "q=refnds (typo)", query: { q: "refnds" } },
  { name: "tag=pii&classification=CONFIDENTIAL", query: { tag: "pii", classification: "CONFIDENTIAL" } },
  { name: "domain=logistics&sort=created", query: { domain: "logistics", sort: "created" } },
];

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;
const qs = (query: Record<string, string>) => new URLSearchParams({ ...query, pageSize: String(PAGE_SIZE) }).toString();

async function time(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

async function sample(f: () => Promise<unknown>, n = SEQUENTIAL): Promise<number[]> {
  for (let i = 0; i < 5; i++) await f();
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await time(f));
  return out;
}

/** The 1/5/15-minute load averages: the machine is shared, so every figure carries the load it was taken under. */
function loadAverage(): string {
  return os.loadavg().map((x) => x.toFixed(1)).join(" ");
}

/** CLIENTS loops fetching `url(i)` for `seconds`: throughput, p95 and every status seen. */
async function concurrently(seconds: number, url: (i: number) => string, cookie: string) {
  const statuses = new Map<string, number>();
  const latencies: number[] = [];
  const deadline = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = client; Date.now() < deadline; i++) {
        const t = performance.now();
        let status = "network error";
        try {
          const res = await fetch(url(i), { headers: { cookie }, redirect: "manual" });
          await res.arrayBuffer();
          status = String(res.status);
        } catch {
          // counted below
        }
        latencies.push(performance.now() - t);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  return {
    seconds: elapsed,
    perSecond: latencies.length / elapsed,
    p95: quantile(latencies, 0.95),
    errors: latencies.length - (statuses.get("200") ?? 0),
    statuses: [...statuses].map(([s, n]) => `${s}: ${n}`).join(", "),
  };
}

async function benchScale(products: number, offset: number) {
  const pgPort = Number(process.env.BENCH_PG_PORT ?? 55640) + offset;
  process.env.KAPPA_START_WORKER = "false";
  process.env.KAPPA_DEMO_TRAFFIC = "0";
  const portal = await demoPortal({
    port: Number(process.env.BENCH_PORTAL_PORT ?? 3340) + offset,
    pgPort,
    kafkaPort: Number(process.env.BENCH_KAFKA_PORT ?? 19340) + offset,
    settleMs: 2_000,
    label: `catalog-bench-${products}`,
  });
  const dbUrl = `postgresql://kappa:kappa-local@127.0.0.1:${pgPort}/kappa`;
  const raw = new pg.Client({ connectionString: dbUrl });
  const db = createPrismaClient(dbUrl);
  try {
    const seeded = await seedScaleCatalog(dbUrl, { products });
    console.log(`\n## ${products.toLocaleString("en")} products (seeded ${seeded.subscriptions.toLocaleString("en")} subscriptions in ${(seeded.ms / 1000).toFixed(1)} s; load average ${loadAverage()})`);
    await raw.connect();
    const cookie = (await signIn(portal.base, "owner@payments.example", "kappa-demo")).header;
    const get = async (path: string) => {
      const res = await fetch(`${portal.base}${path}`, { headers: { cookie } });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${body.slice(0, 200)}`);
      return body;
    };
    const me = JSON.parse(await get("/api/v1/me")) as { id?: string; user?: { id: string } };
    const actor = await loadActor(db, me.user?.id ?? me.id ?? "");

    // The route's fixed cost: session, actor and the HTTP round trip, without the search (GET /api/v1/me).
    const fixed = await sample(() => get("/api/v1/me"));
    console.log(`\nfixed cost (GET /api/v1/me: session decode + actor + HTTP): p50 ${ms(quantile(fixed, 0.5))}, p95 ${ms(quantile(fixed, 0.95))}; load ${loadAverage()}`);
    console.log("\n| case | API p50 | API p95 | raw SQL p50 | raw SQL p95 | API/SQL (p50) | API/SQL (p95) | results | load |\n|---|---|---|---|---|---|---|---|---|");
    for (const c of CASES) {
      const path = `/api/v1/products?${qs(c.query)}`;
      const result = JSON.parse(await get(path)) as { total: number; totalIsExact?: boolean; match?: string };
      const api = await sample(() => get(path));
      // The statements the search runs, when the catalog can list them (not before the scale work).
      const statements = "searchStatements" in catalog ? await catalog.searchStatements(db, actor, { ...c.query, pageSize: PAGE_SIZE }) : null;
      const sql = statements
        ? await sample(async () => {
            for (const s of statements) await raw.query(s.text, s.values);
          })
        : [NaN];
      const label = `${result.total}${result.totalIsExact === false ? "+" : ""}${result.match && result.match !== "text" ? ` (${result.match})` : ""}`;
      console.log(`| ${c.name} | ${ms(quantile(api, 0.5))} | ${ms(quantile(api, 0.95))} | ${ms(quantile(sql, 0.5))} | ${ms(quantile(sql, 0.95))} | ${(quantile(api, 0.5) / quantile(sql, 0.5)).toFixed(1)}× | ${(quantile(api, 0.95) / quantile(sql, 0.95)).toFixed(1)}× | ${label} | ${loadAverage()} |`);
    }

    // Time to first byte of the catalog page: fetch resolves once the headers (and the first flushed bytes) arrive.
    const ttfb: number[] = [];
    const full: number[] = [];
    for (let i = 0; i < 5 + SEQUENTIAL; i++) {
      const t = performance.now();
      const res = await fetch(`${portal.base}/`, { headers: { cookie } });
      const reader = res.body?.getReader();
      await reader?.read();
      const first = performance.now() - t;
      while (reader && !(await reader.read()).done);
      if (i >= 5) {
        ttfb.push(first);
        full.push(performance.now() - t);
      }
    }
    console.log(`\ncatalog page: time to first byte p50 ${ms(quantile(ttfb, 0.5))}, p95 ${ms(quantile(ttfb, 0.95))} (target ≤ 100 ms); whole page p95 ${ms(quantile(full, 0.95))}; load ${loadAverage()}`);

    // 20 concurrent clients over the search mix, then over the catalog page itself.
    const api = await concurrently(CONCURRENT_S, (i) => `${portal.base}/api/v1/products?${qs(CASES[i % CASES.length]!.query)}`, cookie);
    console.log(`${CLIENTS} concurrent clients for ${api.seconds.toFixed(0)} s (API search mix): ${api.perSecond.toFixed(0)} req/s (target ≥ 150), p95 ${ms(api.p95)}, ${api.errors} not 200 (${api.statuses}; target 0); load ${loadAverage()}`);
    const page = await concurrently(Math.max(5, CONCURRENT_S / 2), (i) => `${portal.base}/?${qs(CASES[i % CASES.length]!.query)}`, cookie);
    console.log(`${CLIENTS} concurrent clients for ${page.seconds.toFixed(0)} s (catalog page, same mix): ${page.perSecond.toFixed(0)} req/s, p95 ${ms(page.p95)}, ${page.errors} not 200 (${page.statuses}; an overload must be 503, never 500); load ${loadAverage()}`);
  } finally {
    await raw.end().catch(() => undefined);
    await db.$disconnect();
    await portal.stop();
  }
}

async function main() {
  console.log(`catalog benchmark, ${new Date().toISOString()}, load average ${loadAverage()}`);
  for (const [i, products] of SCALES.entries()) await benchScale(products, i);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
