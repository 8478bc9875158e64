import type { TestProject } from "vitest/node";
import { startTestPostgres } from "./database.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Admin URL of the run's PostgreSQL; `createTestDatabase(inject("pgAdminUrl"))` clones a fresh database. */
    pgAdminUrl: string;
  }
}

/**
 * Vitest global setup shared by every package whose tests need the catalog
 * database: one real PostgreSQL for the run, a migrated template, and each
 * test file clones its own database from it.
 */
export default async function setup(project: TestProject) {
  const postgres = await startTestPostgres();
  project.provide("pgAdminUrl", postgres.adminUrl);
  return async () => {
    await postgres.stop();
  };
}
