import { randomBytes, scryptSync } from "node:crypto";
import pg from "pg";

/*
 * Direct database access for e2e tests that stand in for the worker: they
 * write what the worker would (a failed task, an observation, an issued
 * secret), then check what a user sees. Every such write is marked in the
 * test that makes it. The URL is the one `npm start` gives its embedded
 * PostgreSQL (playwright.config.ts picks the port).
 */
export function e2eDatabaseUrl(): string {
  const port = Number(process.env.KAPPA_E2E_PG_PORT ?? 55433);
  return `postgresql://kappa:kappa-local@127.0.0.1:${port}/kappa`;
}

export async function withDb<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(e2eDatabaseUrl());
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function one<T>(client: pg.Client, sql: string, params: unknown[] = []): Promise<T> {
  const result = await client.query(sql, params);
  if (result.rows.length !== 1) throw new Error(`expected one row from ${sql}, got ${result.rows.length}`);
  return result.rows[0] as T;
}

/**
 * A throwaway person with a password (the catalog's scrypt format), for tests
 * that sign out: signing out ends every session of that person, so the demo
 * accounts' stored sessions (auth.setup.ts) must not be the ones signed out.
 */
export async function createPasswordUser(email: string, password: string): Promise<string> {
  const id = `e2e-${randomBytes(6).toString("hex")}`;
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32, { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  await withDb((c) =>
    c.query(`INSERT INTO "User" (id, email, name, "passwordHash", "updatedAt") VALUES ($1, $2, 'E2E Person', $3, now())`, [
      id,
      email,
      ["scrypt", 1 << 15, 8, 1, salt.toString("base64"), hash.toString("base64")].join("$"),
    ]),
  );
  return id;
}
