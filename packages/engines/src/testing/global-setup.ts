import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startApacheKafka, type ApacheKafkaCluster } from "../apache-kafka/cluster.ts";

/** What a suite's test files see of the shared Apache Kafka cluster (`inject("apacheKafka")`). */
export interface SharedApacheKafka {
  version: string;
  bootstrap: string;
  brokers: string[];
  adminUser: string;
  adminPassword: string;
  /** The folder LocalTieredStorage writes remote segments to. */
  remoteDir: string;
  nodes: { id: number; port: number; pid: number }[];
}

declare module "vitest" {
  export interface ProvidedContext {
    apacheKafka: SharedApacheKafka;
  }
}

/**
 * Vitest global setup: one 3-node Apache Kafka cluster (KRaft, SCRAM,
 * StandardAuthorizer, tiered storage) for the whole suite, shared by its test
 * files through `inject("apacheKafka")`, stopped at the end. Tests that kill
 * nodes start a cluster of their own with `startApacheKafka`, so the shared
 * one stays whole. `KAPPA_APACHE_KAFKA_NODES=1` makes it a single node.
 */
export async function setupSharedApacheKafka(project: TestProject): Promise<() => Promise<void>> {
  const nodes = process.env.KAPPA_APACHE_KAFKA_NODES === "1" ? 1 : 3;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "kappa-apache-kafka-"));
  let cluster: ApacheKafkaCluster;
  try {
    cluster = await startApacheKafka({ nodes, dataDir, overrides: { "group.initial.rebalance.delay.ms": "0" }, log: (line) => console.log(`[apache-kafka] ${line}`) });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  project.provide("apacheKafka", {
    version: cluster.version,
    bootstrap: cluster.bootstrap,
    brokers: cluster.brokers,
    adminUser: cluster.adminUser,
    adminPassword: cluster.adminPassword,
    remoteDir: cluster.remoteDir,
    nodes: cluster.nodes.map((n) => ({ id: n.id, port: n.port, pid: n.pid() ?? 0 })),
  });
  return async () => {
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
