import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@": path.join(import.meta.dirname, "src"),
      "server-only": path.join(import.meta.dirname, "vitest.server-only.ts"),
    },
  },
  // e2e/*.spec.ts belong to Playwright, not Vitest. *.integration.test.ts run
  // against a real PostgreSQL (one per run, from the catalog's test harness)
  // and the project's broker over TCP.
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
    globalSetup: ["@kappa/catalog/testing/global-setup"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
