import { defineConfig } from "vitest/config";

export default defineConfig({
  // e2e/*.spec.ts belong to Playwright, not Vitest.
  test: { include: ["src/**/*.test.ts"], environment: "node" },
});
