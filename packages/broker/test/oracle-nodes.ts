// The oracle run's Apache Kafka nodes for tests that configure their broker
// (test/helpers.ts startTestBroker): each distinct set of Kafka settings gets
// one single node, started on first use and shared by the rest of the test
// file; test/oracle-file-setup.ts stops them after the file.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ApacheKafkaCluster } from "@kappa/engines";

export interface OracleNodeSpec {
  /** Broker settings that differ from the launcher's (Kafka names). */
  overrides: Record<string, string>;
  /** Extra users (SCRAM-SHA-512/256 and PLAIN). */
  users: Array<{ name: string; password: string }>;
  /** Whether the node needs the unauthenticated listener, and whether its ANONYMOUS is a super user. */
  openListener: boolean;
  openSuperUser: boolean;
}

/**
 * What every oracle node runs with beside the launcher's production settings:
 * the embedded broker's defaults where Kafka's launcher differs (auto-created
 * topics, no tiered storage unless asked), and the tests' short group delays.
 * test/oracle-setup.ts starts the run's shared node with these too.
 */
export const ORACLE_DEFAULTS: Readonly<Record<string, string>> = {
  "auto.create.topics.enable": "true",
  "group.initial.rebalance.delay.ms": "50",
  "group.consumer.heartbeat.interval.ms": "1000",
  "group.consumer.min.heartbeat.interval.ms": "1000",
};

interface Started {
  cluster: ApacheKafkaCluster;
  dataDir: string;
}

const nodes = new Map<string, Promise<Started>>();

/** The node for `spec`, started once per test file (the same spec answers the same node). */
export async function oracleNode(spec: OracleNodeSpec): Promise<ApacheKafkaCluster> {
  const key = JSON.stringify(spec);
  let started = nodes.get(key);
  if (!started) {
    started = (async () => {
      const { startApacheKafka } = await import("@kappa/engines");
      const dataDir = mkdtempSync(path.join(os.tmpdir(), "kappa-broker-oracle-node-"));
      const cluster = await startApacheKafka({
        nodes: 1,
        dataDir,
        openListener: spec.openListener,
        openListenerSuperUser: spec.openSuperUser,
        users: spec.users,
        heapMb: 384,
        // Tiered storage only where a test asks for it: its metadata manager costs seconds at start.
        overrides: { ...ORACLE_DEFAULTS, "remote.log.storage.system.enable": "false", ...spec.overrides },
        log: (l) => console.log(`[oracle] ${l}`),
      });
      return { cluster, dataDir };
    })();
    nodes.set(key, started);
  }
  return (await started).cluster;
}

/** Stops every node this file started (test/oracle-file-setup.ts, after the file). */
export async function stopOracleNodes(): Promise<void> {
  const all = [...nodes.values()];
  nodes.clear();
  await Promise.all(
    all.map(async (p) => {
      const s = await p.catch(() => null);
      if (!s) return;
      await s.cluster.stop();
      rmSync(s.dataDir, { recursive: true, force: true });
    }),
  );
}
