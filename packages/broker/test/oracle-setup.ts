import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startApacheKafka } from "@kappa/engines";
import { ORACLE_DEFAULTS } from "./oracle-nodes.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Set in an oracle run (KAPPA_BROKER_ORACLE=apache): the bootstrap of Apache Kafka's unauthenticated listener. */
    brokerOracle: string | null;
  }
}

/**
 * The oracle run (`npm run test:oracle -w packages/broker`): the broker's
 * tests against a single Apache Kafka node — the reference the broker is built
 * to — instead of the embedded broker. `startTestBroker()` then answers that
 * node (test/helpers.ts); a test that needs the embedded broker's insides or
 * settings fails with a message saying so.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (process.env.KAPPA_BROKER_ORACLE !== "apache") {
    project.provide("brokerOracle", null);
    return undefined;
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "kappa-broker-oracle-"));
  // No authorizer, as the embedded broker's default: everything is allowed and the ACL APIs answer SECURITY_DISABLED.
  const cluster = await startApacheKafka({ nodes: 1, dataDir, openListener: true, overrides: { ...ORACLE_DEFAULTS, "authorizer.class.name": "" }, log: (l) => console.log(`[oracle] ${l}`) });
  project.provide("brokerOracle", cluster.openBootstrap);
  return async () => {
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
