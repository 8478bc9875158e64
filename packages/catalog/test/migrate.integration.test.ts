import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { migrateDatabase } from "../src/migrate.ts";

/** Runs the migrator on an empty database (the template used by other tests is already migrated). */
describe("migrateDatabase", () => {
  const name = `kappa_migrate_${Date.now()}`;
  let url: string;
  beforeAll(async () => {
    const admin = new pg.Client(inject("pgAdminUrl"));
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(inject("pgAdminUrl"));
    u.pathname = `/${name}`;
    url = u.toString();
  });
  afterAll(async () => {
    const admin = new pg.Client(inject("pgAdminUrl"));
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it("applies every migration once, records it as Prisma does, and is idempotent under concurrency", async () => {
    const [first, second] = await Promise.all([migrateDatabase(url), migrateDatabase(url)]);
    const all = [...first, ...second];
    expect(all.length).toBeGreaterThan(0);
    expect(new Set(all).size).toBe(all.length); // nothing applied twice
    expect(await migrateDatabase(url)).toEqual([]);
    const client = new pg.Client(url);
    await client.connect();
    try {
      const rows = await client.query(`SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" ORDER BY migration_name`);
      expect(rows.rows.map((r) => r.migration_name)).toEqual([...all].sort());
      expect(rows.rows.every((r) => /^[0-9a-f]{64}$/.test(r.checksum) && r.finished_at)).toBe(true);
      const tables = await client.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name IN ('DataProduct', 'AuditEvent', 'ProvisioningTask')`);
      expect(tables.rows[0].n).toBe(3);
    } finally {
      await client.end();
    }
  });
});
