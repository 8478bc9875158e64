import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeAbandonedTestFolders, startTestPostgres } from "./database.ts";

describe("test PostgreSQL folders (~150 MB each) do not pile up in the temp dir", () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "kappa-folders-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("removes the folders of runs that were killed, and only those", () => {
    // A process that has exited: its pid is free.
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    const folder = (name: string, owner: number | null, postmaster: number | null = null) => {
      const dir = path.join(tmp, `kappa-test-pg-${name}`);
      mkdirSync(path.join(dir, "data"), { recursive: true });
      if (owner !== null) writeFileSync(path.join(dir, "owner.pid"), `${owner}\n`);
      if (postmaster !== null) writeFileSync(path.join(dir, "data", "postmaster.pid"), `${postmaster}\n/some/data/dir\n`);
      return dir;
    };
    const killed = folder("killed", gone);
    const running = folder("running", process.pid);
    const legacy = folder("legacy", null);
    const serverLeft = folder("server-left", gone, process.pid);
    const other = path.join(tmp, "kappa-e2e-other");
    mkdirSync(other);

    expect(removeAbandonedTestFolders(tmp)).toEqual([killed]);
    expect([killed, running, legacy, serverLeft, other].map(existsSync)).toEqual([false, true, true, true, true]);
  });

  it("removes its own folder when the server stops", async () => {
    const postgres = await startTestPostgres();
    expect(existsSync(path.join(postgres.folder, "data", "PG_VERSION"))).toBe(true);
    await postgres.stop();
    expect(existsSync(postgres.folder)).toBe(false);
  }, 120_000);
});
