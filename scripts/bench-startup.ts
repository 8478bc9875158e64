/*
 * Start-up benchmark (part of `npm run bench`): a fresh clone of this
 * checkout's HEAD, then `npm install && npm start` to a ready portal, then a
 * restart on the same data. Goals on two cores: fresh ≤ 90 s including the
 * install, restart ≤ 3 s. It also counts the console lines from `npm start` to
 * the ready block (goal ≤ 40, one screen).
 *
 * The install uses npm's local cache as any developer's second clone would;
 * the registry is only asked for what the cache lacks.
 */
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { launcherGone } from "./shutdown.ts";

const REPO_ROOT = path.resolve(import.meta.dirname, "..");
const PORT = Number(process.env.BENCH_PORTAL_PORT ?? 3310);
const ports = { PORT: String(PORT), KAPPA_PG_PORT: process.env.BENCH_PG_PORT ?? "55610", KAFKA_PORT: process.env.BENCH_KAFKA_PORT ?? "19310" };

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Runs `npm start` in `dir` until the ready block is printed; returns the time and the console lines up to then. */
function startUntilReady(dir: string, dataDir: string): Promise<{ ms: number; lines: string[]; stop: () => Promise<void> }> {
  const started = Date.now();
  const child = spawn("npm", ["start"], {
    cwd: dir,
    env: { ...process.env, ...ports, KAPPA_DATA_DIR: dataDir, NEXTAUTH_URL: `http://localhost:${PORT}` },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const lines: string[] = [];
  let buffer = "";
  // npm exits before the launcher has stopped; the restart is measured from a stopped launcher.
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      process.kill(-child.pid!, "SIGTERM");
    }).then(() => launcherGone(dataDir));
  return new Promise((resolve, reject) => {
    let done = false;
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split("\n");
      buffer = parts.pop() ?? "";
      for (const line of parts) {
        if (done) continue;
        lines.push(line);
        // The ready block ends with the Logs line.
        if (/^\s+Logs\s/.test(line)) {
          done = true;
          resolve({ ms: Date.now() - started, lines, stop });
        }
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      if (!done) reject(new Error(`npm start exited with ${code} before it was ready:\n${lines.slice(-30).join("\n")}`));
    });
    setTimeout(() => {
      if (!done) void stop().then(() => reject(new Error("npm start was not ready within 10 minutes")));
    }, 600_000).unref();
  });
}

async function main() {
  const work = mkdtempSync(path.join(os.tmpdir(), "kappa-bench-start-"));
  // As root, the embedded PostgreSQL runs as OS user postgres, which must enter the folder.
  chmodSync(work, 0o755);
  const clone = path.join(work, "kappa-mesh");
  const dataDir = path.join(work, "data");
  try {
    execFileSync("git", ["clone", "--quiet", "--no-hardlinks", REPO_ROOT, clone], { stdio: "inherit" });
    const installStarted = Date.now();
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: clone, stdio: ["ignore", "ignore", "inherit"] });
    const installMs = Date.now() - installStarted;
    const first = await startUntilReady(clone, dataDir);
    await first.stop();
    const again = await startUntilReady(clone, dataDir);
    await again.stop();
    const fresh = installMs + first.ms;
    console.log("| step | measured | goal |\n|---|---|---|");
    console.log(`| npm install (fresh clone, warm npm cache) | ${seconds(installMs)} | |`);
    console.log(`| first npm start to a ready portal (portal build included) | ${seconds(first.ms)} | |`);
    console.log(`| fresh: install + first start | ${seconds(fresh)} | ≤ 90 s ${fresh <= 90_000 ? "✓" : "✗"} |`);
    console.log(`| restart to a ready portal | ${seconds(again.ms)} | ≤ 3 s ${again.ms <= 3_000 ? "✓" : "✗"} |`);
    console.log(`| console lines, first start (npm's own 3 included) | ${first.lines.length} | ≤ 40 ${first.lines.length <= 40 ? "✓" : "✗"} |`);
    console.log(`| console lines, restart | ${again.lines.length} | ≤ 40 |`);
    console.log(`\nrestart, as printed:\n${again.lines.filter((l) => l.startsWith("[kappa")).join("\n")}`);
    console.log(`\nload average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(" ")} (${os.cpus().length} cores)`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
