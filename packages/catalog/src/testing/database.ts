import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { createPrismaClient, type Db } from "../db.ts";
import { postmasterPid, startEmbeddedPostgres, type RunningPostgres } from "../embedded-postgres.ts";
import { migrateDatabase } from "../migrate.ts";

/*
 * Test databases on a real PostgreSQL: one embedded server per test run, a
 * migrated template database, and a fresh copy of it per test file (CREATE
 * DATABASE ... TEMPLATE takes milliseconds). Nothing here fakes the database.
 */

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export const TEMPLATE_DATABASE = "kappa_test_template";

const FOLDER_PREFIX = "kappa-test-pg-";
/** The pid of the process that made a test folder, written into it: a folder whose maker is gone was abandoned. */
const OWNER_FILE = "owner.pid";

function readPid(file: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(file, "utf8").trim().split("\n")[0] ?? "", 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the test PostgreSQL folders (~150 MB each) of runs killed before their teardown: those whose maker is no
 * longer alive and in which no postmaster runs. A folder without an owner file (being made, or made by an older
 * version of this code) is left alone. Returns the folders removed.
 */
export function removeAbandonedTestFolders(tmp: string = os.tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(tmp);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!name.startsWith(FOLDER_PREFIX)) continue;
    const dir = path.join(tmp, name);
    const owner = readPid(path.join(dir, OWNER_FILE));
    if (owner === null || isAlive(owner)) continue;
    const postmaster = postmasterPid(path.join(dir, "data"));
    if (postmaster !== null && isAlive(postmaster)) continue;
    rmSync(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}

/** Starts PostgreSQL under the OS temp dir and migrates the template database; `stop` removes its folder. */
export async function startTestPostgres(): Promise<RunningPostgres & { templateUrl: string; folder: string }> {
  removeAbandonedTestFolders();
  // Under /tmp so the `postgres` OS user (used when tests run as root) can reach it.
  const parent = mkdtempSync(path.join(os.tmpdir(), FOLDER_PREFIX));
  writeFileSync(path.join(parent, OWNER_FILE), `${process.pid}\n`);
  chmodSync(parent, 0o755); // mkdtemp makes it 0700
  const dataDir = path.join(parent, "data");
  const started = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  const running: RunningPostgres = {
    ...started,
    stop: async () => {
      await started.stop();
      rmSync(parent, { recursive: true, force: true });
    },
  };
  const admin = new pg.Client(running.adminUrl);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  const templateUrl = running.urlFor(TEMPLATE_DATABASE);
  await migrateDatabase(templateUrl);
  return { ...running, templateUrl, folder: parent };
}

/** A fresh, migrated database cloned from the template; drop it with `dispose`. */
export async function createTestDatabase(adminUrl: string): Promise<{ url: string; db: Db; dispose: () => Promise<void> }> {
  const name = `kappa_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client(adminUrl);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = createPrismaClient(url.toString());
  return {
    url: url.toString(),
    db,
    dispose: async () => {
      await db.$disconnect();
      const cleanup = new pg.Client(adminUrl);
      await cleanup.connect();
      try {
        await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await cleanup.end();
      }
    },
  };
}
