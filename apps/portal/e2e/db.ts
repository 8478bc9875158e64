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
