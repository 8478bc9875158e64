/*
 * A portal to measure or photograph, as a new user sees it: `npm start` on a
 * fresh data folder (demo mode, live demo traffic) on its own ports, or the
 * running portal named by an environment variable. Shared by the Lighthouse
 * benchmark and the README screenshots.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");

export interface DemoPortal {
  base: string;
  stop(): Promise<void>;
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

/**
 * `existing` (a URL) measures that portal; otherwise starts one and waits
 * `settleMs` for the worker to provision the demo and the traffic to show.
 */
export async function demoPortal(options: { existing?: string; port: number; pgPort: number; kafkaPort: number; settleMs: number; label: string }): Promise<DemoPortal> {
  if (options.existing) return { base: options.existing.replace(/\/$/, ""), stop: async () => {} };
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `kappa-${options.label}-`));
  chmodSync(dataDir, 0o755); // the embedded PostgreSQL runs as OS user postgres under root
  const base = `http://localhost:${options.port}`;
  // Without a local Flink (KAPPA_FLINK=on to include it): its start-up would take the two cores the pages are measured on.
  console.log(`${options.label}: starting npm start on ${base} (data in ${dataDir})…`);
  const server = spawn("npm", ["start"], {
    cwd: REPO_ROOT,
    env: { ...process.env, KAPPA_DATA_DIR: dataDir, PORT: String(options.port), KAPPA_PG_PORT: String(options.pgPort), KAFKA_PORT: String(options.kafkaPort), NEXTAUTH_URL: base, KAPPA_FLINK: process.env.KAPPA_FLINK ?? "off" },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  await waitFor(`${base}/signin`, server, 600_000);
  await new Promise((r) => setTimeout(r, options.settleMs));
  return {
    base,
    async stop() {
      if (server.exitCode === null && server.pid) {
        process.kill(-server.pid, "SIGTERM");
        await new Promise((r) => server.once("exit", r));
      }
      // npm exits before the launcher has stopped its brokers and PostgreSQL; the launcher holds launcher.pid until it is done.
      const lock = path.join(dataDir, "launcher.pid");
      const launcherRuns = () => {
        try {
          const pid = Number(readFileSync(lock, "utf8").trim());
          if (!(pid > 0)) return false;
          process.kill(pid, 0);
          return true;
        } catch {
          return false; // no lock, or its process is gone
        }
      };
      for (const deadline = Date.now() + 60_000; launcherRuns() && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** next-auth's CSRF + credentials flow, as a script signs in; returns the session cookies. */
export async function signIn(base: string, email: string, password: string): Promise<{ header: string; cookies: { name: string; value: string }[] }> {
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair!.indexOf("=");
      jar.set(pair!.slice(0, i), pair!.slice(i + 1));
    }
  };
  const csrf = await fetch(`${base}/api/auth/csrf`);
  keep(csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const header = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const res = await fetch(`${base}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: header(), origin: base },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: `${base}/`, json: "true" }),
  });
  keep(res);
  if (![...jar.keys()].some((k) => k.includes("session-token"))) throw new Error(`sign-in as ${email} failed (HTTP ${res.status})`);
  return { header: header(), cookies: [...jar].map(([name, value]) => ({ name, value })) };
}

/** The demo's Order Events product and the payments domain's subscription to it. */
export async function demoIds(base: string, cookie: string): Promise<{ productId: string; subscriptionId: string }> {
  const api = async <T>(p: string): Promise<T> => (await (await fetch(`${base}${p}`, { headers: { cookie } })).json()) as T;
  const found = await api<{ items: { id: string; name: string }[] }>(`/api/v1/products?q=${encodeURIComponent("Order Events")}`);
  const product = found.items.find((p) => p.name === "Order Events");
  if (!product) throw new Error("the demo product Order Events is not in the catalog");
  const detail = await api<{ subscriptions: { id: string }[] }>(`/api/v1/products/${product.id}`);
  const subscription = detail.subscriptions[0];
  if (!subscription) throw new Error("the demo subscription to Order Events is missing");
  return { productId: product.id, subscriptionId: subscription.id };
}
