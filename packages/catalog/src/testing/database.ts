import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { createPrismaClient, type Db } from "../db.ts";
import { startEmbeddedPostgres, type RunningPostgres } from "../embedded-postgres.ts";
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

/** Starts PostgreSQL under the OS temp dir and migrates the template database. */
export async function startTestPostgres(): Promise<RunningPostgres & { templateUrl: string }> {
  // Under /tmp so the `postgres` OS user (used when tests run as root) can reach it.
  const parent = mkdtempSync(path.join(os.tmpdir(), "kappa-test-pg-"));
  chmodSync(parent, 0o755); // mkdtemp makes it 0700
  const dataDir = path.join(parent, "data");
  const running = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  const admin = new pg.Client(running.adminUrl);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  const templateUrl = running.urlFor(TEMPLATE_DATABASE);
  await migrateDatabase(templateUrl);
  return { ...running, templateUrl };
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
