import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["./test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration files share one PostgreSQL server; each gets its own database.
    fileParallelism: true,
    // Two at a time: vitest's default is one fewer than the cores, so one at a time on CI's two.
    maxWorkers: 2,
    pool: "forks",
  },
});
