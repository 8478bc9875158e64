import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration files each start their own brokers; two at a time fits CI's 2 cores.
    maxWorkers: 2,
    // KAPPA_BROKER_ORACLE=apache runs the tests against Apache Kafka instead (test/oracle-setup.ts).
    globalSetup: ["./test/oracle-setup.ts"],
  },
});
