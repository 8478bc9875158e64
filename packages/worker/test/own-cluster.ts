import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startApacheKafka, type ApacheKafkaCluster } from "@kappa/engines";
import { FAILOVER_OVERRIDES } from "./failover-trial.ts";

/**
 * A 3-node Apache Kafka cluster of the calling file's own, for tests that kill
 * its nodes (the suite's shared cluster must never lose one): started in the
 * enclosing describe's beforeAll with the failover trials' settings, stopped
 * and its folder removed in its afterAll. The returned function gives the
 * cluster once beforeAll has run.
 */
export function ownApacheKafkaCluster(folderPrefix: string): () => ApacheKafkaCluster {
  let cluster: ApacheKafkaCluster | undefined;
  let dataDir: string | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), folderPrefix));
    cluster = await startApacheKafka({ nodes: 3, dataDir, overrides: FAILOVER_OVERRIDES });
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  return () => {
    if (!cluster) throw new Error("the file's own Apache Kafka cluster is not started yet (use it inside a test)");
    return cluster;
  };
}
