import type { TestProject } from "vitest/node";
import { startTestPostgres } from "@kappa/catalog/testing";

declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

/** One real PostgreSQL for the run; each test file clones its own database from the migrated template. */
export default async function setup(project: TestProject) {
  const postgres = await startTestPostgres();
  project.provide("pgAdminUrl", postgres.adminUrl);
  return async () => {
    await postgres.stop();
  };
}
