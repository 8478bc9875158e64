import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // An oracle run starts an Apache Kafka node inside a test that first asks for its settings: up to a minute under load.
    testTimeout: process.env.KAPPA_BROKER_ORACLE === "apache" ? 180_000 : 60_000,
    // An oracle run starts Apache Kafka nodes in beforeAll hooks (test/oracle-nodes.ts): seconds to a minute each on a loaded machine.
    hookTimeout: process.env.KAPPA_BROKER_ORACLE === "apache" ? 240_000 : 60_000,
    // Integration files each start their own brokers; two at a time fits CI's 2 cores.
    maxWorkers: 2,
    // KAPPA_BROKER_ORACLE=apache runs the tests against Apache Kafka instead (test/oracle-setup.ts).
    globalSetup: ["./test/oracle-setup.ts"],
    // …and stops, after each file, the Apache Kafka nodes its configured tests started (test/oracle-nodes.ts).
    setupFiles: ["./test/oracle-file-setup.ts"],
  },
});
