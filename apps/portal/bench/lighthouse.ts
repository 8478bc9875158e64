/*
 * Lighthouse scores of the portal's main pages (`npm run bench -w apps/portal`,
 * part of `npm run bench`): sign-in, catalog, product and subscription, each
 * for performance, accessibility and best practices, with Lighthouse's default
 * mobile emulation and throttling. Target: every score ≥ 95.
 *
 * By default it runs `npm start` on a fresh data folder (demo mode with live
 * demo traffic, as a new user sees it) on its own ports; LIGHTHOUSE_URL
 * measures a portal that is already running instead (demo accounts needed).
 * Lighthouse 12.2.3 is pinned: 13 needs Node 22.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
const TARGET = 95;
const CATEGORIES = ["performance", "accessibility", "best-practices"] as const;

interface Page {
  name: string;
  path: string;
  /** Sign in first (as the payments owner, who subscribes to Order Events). */
  signedIn: boolean;
}

async function waitFor(url: string, child: ChildProcess | null, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
    try {
      if ((await fetch(url, { redirect: "manual" })).status < 500) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
}

/** next-auth's CSRF + credentials flow, as a script signs in; returns the Cookie header. */
async function signIn(base: string, email: string, password: string): Promise<string> {
  const csrf = await fetch(`${base}/api/auth/csrf`);
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair!.indexOf("=");
      jar.set(pair!.slice(0, i), pair!.slice(i + 1));
    }
  };
  keep(csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const res = await fetch(`${base}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookie(), origin: base },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: `${base}/`, json: "true" }),
  });
  keep(res);
  if (![...jar.keys()].some((k) => k.includes("session-token"))) throw new Error(`sign-in as ${email} failed (HTTP ${res.status})`);
  return cookie();
}

async function main() {
  let base = process.env.LIGHTHOUSE_URL?.replace(/\/$/, "");
  let server: ChildProcess | null = null;
  let dataDir: string | null = null;
  if (!base) {
    const port = Number(process.env.BENCH_PORTAL_PORT ?? 3300);
    dataDir = mkdtempSync(path.join(os.tmpdir(), "kappa-lighthouse-"));
    base = `http://localhost:${port}`;
    console.log(`lighthouse: starting npm start on ${base} (data in ${dataDir})…`);
    server = spawn("npm", ["start"], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        KAPPA_DATA_DIR: dataDir,
        PORT: String(port),
        KAPPA_PG_PORT: process.env.BENCH_PG_PORT ?? "55600",
        KAFKA_PORT: process.env.BENCH_KAFKA_PORT ?? "19300",
        NEXTAUTH_URL: base,
      },
      stdio: ["ignore", "ignore", "inherit"],
      detached: true,
    });
    await waitFor(`${base}/signin`, server, 300_000);
    // Let the worker provision the demo and the demo traffic fill the charts.
    await new Promise((r) => setTimeout(r, 20_000));
  }
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROME_PATH ?? "/usr/bin/chromium",
    chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  try {
    const cookie = await signIn(base, "owner@payments.example", "kappa-demo");
    const api = async <T>(p: string): Promise<T> => (await (await fetch(`${base}${p}`, { headers: { cookie } })).json()) as T;
    const found = await api<{ items: { id: string; name: string }[] }>(`/api/v1/products?q=${encodeURIComponent("Order Events")}`);
    const product = found.items.find((p) => p.name === "Order Events");
    if (!product) throw new Error("the demo product Order Events is not in the catalog");
    const detail = await api<{ subscriptions: { id: string }[] }>(`/api/v1/products/${product.id}`);
    const subscription = detail.subscriptions[0];
    if (!subscription) throw new Error("the demo subscription to Order Events is missing");
    const pages: Page[] = [
      { name: "sign-in", path: "/signin", signedIn: false },
      { name: "catalog", path: "/", signedIn: true },
      { name: "product", path: `/products/${product.id}`, signedIn: true },
      { name: "subscription", path: `/subscriptions/${subscription.id}`, signedIn: true },
    ];
    const rows: { page: string; scores: Record<string, number>; failing: string[] }[] = [];
    for (const page of pages) {
      const result = await lighthouse(
        `${base}${page.path}`,
        { port: chrome.port, output: "json", logLevel: "error", onlyCategories: [...CATEGORIES], ...(page.signedIn ? { extraHeaders: { Cookie: cookie } } : {}) },
      );
      if (!result) throw new Error(`no Lighthouse result for ${page.path}`);
      const { lhr } = result;
      const scores = Object.fromEntries(CATEGORIES.map((c) => [c, Math.round((lhr.categories[c]?.score ?? 0) * 100)]));
      // The audits that cost points, so a low score says where to look.
      const failing = Object.values(lhr.audits)
        .filter((a) => a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== "informative" && a.scoreDisplayMode !== "notApplicable" && a.scoreDisplayMode !== "manual")
        .map((a) => `${a.id}${a.displayValue ? ` (${a.displayValue})` : ""}`);
      rows.push({ page: page.name, scores, failing });
      console.log(`lighthouse: ${page.name.padEnd(12)} ${CATEGORIES.map((c) => `${c} ${scores[c]}`).join(", ")}`);
    }
    console.log("\n| page | performance | accessibility | best practices |\n|---|---|---|---|");
    for (const r of rows) console.log(`| ${r.page} | ${r.scores.performance} | ${r.scores.accessibility} | ${r.scores["best-practices"]} |`);
    const below = rows.filter((r) => CATEGORIES.some((c) => (r.scores[c] ?? 0) < TARGET));
    for (const r of below) console.log(`\nbelow ${TARGET} on ${r.page}: ${r.failing.join(", ") || "(no single failing audit)"}`);
    console.log(below.length === 0 ? `\nevery score ≥ ${TARGET}` : `\n${below.length} page(s) below the target of ${TARGET}`);
  } finally {
    await chrome.kill();
    if (server?.pid) {
      process.kill(-server.pid, "SIGTERM");
      await new Promise((r) => server!.once("exit", r));
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
