import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

/** The repository root, where prisma.config.ts and prisma/migrations live. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const MIGRATIONS_DIR = path.join(REPO_ROOT, "prisma", "migrations");

// Any fixed number: serialises concurrent start-ups migrating one database.
const MIGRATION_LOCK_ID = 72_707_369;

/**
 * Applies the committed Prisma migrations that the database lacks, each in its
 * own transaction together with its `_prisma_migrations` row — the same table
 * and checksums `prisma migrate` keeps, so the Prisma CLI stays usable for
 * authoring migrations. Done here rather than through `prisma migrate deploy`
 * because the CLI's WASM engine idles ~10 s on a timer before exiting, on
 * every start.
 */
export async function migrateDatabase(databaseUrl: string, log: (line: string) => void = () => {}): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const done = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Map(done.rows.map((r) => [r.migration_name, r.checksum]));
    const names = (await readdir(MIGRATIONS_DIR, { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    const newlyApplied: string[] = [];
    for (const name of names) {
      const sql = await readFile(path.join(MIGRATIONS_DIR, name, "migration.sql"), "utf8");
      const checksum = createHash("sha256").update(sql).digest("hex");
      const previous = applied.get(name);
      if (previous !== undefined) {
        if (previous !== checksum) log(`warning: migration ${name} was changed after it was applied; not re-applying it`);
        continue;
      }
      log(`applying migration ${name}`);
      await client.query("BEGIN");
      try {
        // One multi-statement simple query: dollar-quoted bodies stay intact.
        await client.query(sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), checksum, name],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`Migration ${name} failed and was rolled back: ${(error as Error).message}`, { cause: error });
      }
      newlyApplied.push(name);
    }
    return newlyApplied;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}
