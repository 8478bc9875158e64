import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["./test/global-setup.ts"],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    // Each integration file starts its own broker and database; two cores.
    fileParallelism: true,
    maxWorkers: 2,
    pool: "forks",
  },
});
