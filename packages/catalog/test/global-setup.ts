import type { TestProject } from "vitest/node";
import { startTestPostgres } from "../src/testing/database.ts";

declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

/** One real PostgreSQL for the whole run; each test file clones a database from its template. */
export default async function setup(project: TestProject) {
  const postgres = await startTestPostgres();
  project.provide("pgAdminUrl", postgres.adminUrl);
  return async () => {
    await postgres.stop();
  };
}
