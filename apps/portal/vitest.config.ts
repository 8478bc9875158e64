import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@": path.join(import.meta.dirname, "src"),
      "server-only": path.join(import.meta.dirname, "vitest.server-only.ts"),
    },
  },
  // e2e/*.spec.ts belong to Playwright, not Vitest.
  test: { include: ["src/**/*.test.ts"], environment: "node" },
});
