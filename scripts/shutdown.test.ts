import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { childStep, createShutdown, launcherGone, takeDataDir } from "./shutdown.ts";

class Exited extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}
const exit = (code: number): never => {
  throw new Exited(code);
};
const exitCodeOf = (p: Promise<never>) => p.then(() => -1, (e: unknown) => (e instanceof Exited ? e.code : -2));

describe("the launcher's stop", () => {
  it("stops every step once, in reverse order, the last ones last; a second call waits for the same stop", async () => {
    const order: string[] = [];
    let releaseBroker: () => void = () => {};
    const shutdown = createShutdown({ log: () => {}, exit });
    shutdown.addLast({ name: "logs", stop: async () => void order.push("logs") });
    shutdown.add({ name: "postgres", stop: async () => void order.push("postgres") });
    shutdown.add({ name: "broker", stop: () => new Promise<void>((r) => (releaseBroker = () => { order.push("broker"); r(); })) });
    shutdown.add({ name: "portal", stop: async () => void order.push("portal") });

    const first = exitCodeOf(shutdown.run(0));
    // Ctrl-C again, or the launching npm gone: must not exit while the broker is still stopping.
    const second = exitCodeOf(shutdown.run(0));
    let settled = false;
    void second.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toBe(false);
    expect(order).toEqual(["portal"]);

    releaseBroker();
    expect(await first).toBe(0);
    expect(await second).toBe(0);
    expect(order).toEqual(["portal", "broker", "postgres", "logs"]);
  });

  it("names a slow step, and after the bounded wait forces it and exits non-zero", async () => {
    const said: string[] = [];
    let forced = false;
    const shutdown = createShutdown({ log: (m) => said.push(m), exit, slowStepMs: 20, giveUpMs: 100 });
    shutdown.add({ name: "the Kafka broker", stop: () => new Promise<void>(() => {}), force: () => (forced = true) });
    expect(await exitCodeOf(shutdown.run(0))).toBe(1);
    expect(forced).toBe(true);
    expect(said).toEqual(["stopping…", "still stopping the Kafka broker…", "the Kafka broker did not stop within 0 s; ending it"]);
  });

  it("waits for a child process to exit", async () => {
    const child = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => setTimeout(() => process.exit(0), 200)); setInterval(() => {}, 1000); process.stdout.write('ready\\n')"], { stdio: ["ignore", "pipe", "ignore"] });
    // Only once it says its handler is installed (a fixed wait lost the race on a loaded machine: killed by the signal).
    await new Promise((r) => child.stdout.once("data", r));
    const shutdown = createShutdown({ log: () => {}, exit });
    shutdown.add(childStep("child", child, (c) => c.kill("SIGTERM")));
    expect(await exitCodeOf(shutdown.run(0))).toBe(0);
    expect(child.exitCode).toBe(0);
  });
});

describe("the data folder between two launchers", () => {
  it("is taken and released by one launcher", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "kappa-lock-"));
    const release = await takeDataDir(dir, () => {});
    expect(readFileSync(path.join(dir, "launcher.pid"), "utf8").trim()).toBe(String(process.pid));
    release();
    expect(existsSync(path.join(dir, "launcher.pid"))).toBe(false);
  });

  it("ignores a claim whose process is gone", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "kappa-lock-"));
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    await new Promise((r) => child.once("exit", r));
    writeFileSync(path.join(dir, "launcher.pid"), `${child.pid}\n`);
    const said: string[] = [];
    (await takeDataDir(dir, (m) => said.push(m)))();
    expect(said).toEqual([]);
  });

  it("waits for a launcher that is still stopping, says so, and takes the folder when it is gone", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "kappa-lock-"));
    // Stands in for an old launcher (its command line names start.ts) that exits after a moment.
    const script = path.join(dir, "start.mjs");
    writeFileSync(script, "setTimeout(() => {}, 600);");
    const old = spawn(process.execPath, [script], { stdio: "ignore" });
    await new Promise((r) => old.once("spawn", r));
    writeFileSync(path.join(dir, "launcher.pid"), `${old.pid}\n`);
    const said: string[] = [];
    const release = await takeDataDir(dir, (m) => said.push(m));
    expect(said).toEqual([`waiting for the previous launcher (pid ${old.pid}) to finish stopping…`]);
    expect(readFileSync(path.join(dir, "launcher.pid"), "utf8").trim()).toBe(String(process.pid));
    release();
  });

  it("lets a script wait until the launcher it stopped is gone", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "kappa-lock-"));
    const script = path.join(dir, "start.mjs");
    writeFileSync(script, "setTimeout(() => {}, 400);");
    const old = spawn(process.execPath, [script], { stdio: "ignore" });
    await new Promise((r) => old.once("spawn", r));
    writeFileSync(path.join(dir, "launcher.pid"), `${old.pid}\n`);
    const exited = new Promise((r) => old.once("exit", r));
    await launcherGone(dir);
    // Gone when it resolves: a zombie (not yet reaped) has an empty command line.
    const cmdline = `/proc/${old.pid}/cmdline`;
    expect(existsSync(cmdline) ? readFileSync(cmdline, "utf8") : "").not.toContain("start.mjs");
    await exited;
    await launcherGone(path.join(dir, "nothing-here"));
  });

  it("gives up after the bounded wait, naming the other launcher", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "kappa-lock-"));
    const script = path.join(dir, "start.mjs");
    writeFileSync(script, "setTimeout(() => {}, 5000);");
    const old = spawn(process.execPath, [script], { stdio: "ignore" });
    await new Promise((r) => old.once("spawn", r));
    writeFileSync(path.join(dir, "launcher.pid"), `${old.pid}\n`);
    try {
      await expect(takeDataDir(dir, () => {}, 200)).rejects.toThrow(`another launcher (pid ${old.pid}) still uses ${dir}`);
    } finally {
      old.kill();
    }
  });
});

describe("the portal's parent watch (apps/portal/parent-watch.cjs)", () => {
  it("ends the portal process when its launcher is killed outright", async () => {
    const watch = path.join(import.meta.dirname, "..", "apps", "portal", "parent-watch.cjs");
    // launcher → "portal" (a process that would run for ever, SIGTERM ignored as a busy next-server may); the
    // launcher prints the portal's pid, then is SIGKILLed and cannot stop it.
    const portalCode = "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); process.stdout.write('up\\n')";
    const launcherCode = `const c = require('node:child_process').spawn(process.execPath, ['--require', ${JSON.stringify(watch)}, '-e', ${JSON.stringify(portalCode)}], { stdio: ['ignore', 'pipe', 'ignore'] }); c.stdout.once('data', () => process.stdout.write(c.pid + '\\n')); setInterval(() => {}, 1000);`;
    const launcher = spawn(process.execPath, ["-e", launcherCode], { stdio: ["ignore", "pipe", "ignore"] });
    const portalPid = Number(await new Promise<string>((r) => launcher.stdout.once("data", (d: Buffer) => r(d.toString().trim()))));
    const alive = () => {
      try {
        process.kill(portalPid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(alive()).toBe(true);
    launcher.kill("SIGKILL");
    const deadline = Date.now() + 10_000;
    while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const survived = alive();
    if (survived) process.kill(portalPid, "SIGKILL");
    expect(survived, "the orphaned portal still ran 10 s after its launcher was killed").toBe(false);
  });
});
