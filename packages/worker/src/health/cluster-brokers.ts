/*
 * Which brokers of a cluster are up (issue 28: "the portal shows the broker
 * outage and its end"). A KRaft cluster's metadata lists only the brokers that
 * are registered and not fenced; a node it listed before and lists no more is
 * down. The worker remembers every node it has seen (ClusterBroker), opens an
 * outage (ClusterBrokerOutage) when one goes missing and closes it when the
 * node is back, telling the platform admins both times.
 *
 * Two workers may look at once: each change is a conditional update of the
 * broker's row (downSince NULL → now, or set → NULL), so only the worker whose
 * update moved the row opens or closes the outage and notifies.
 */
import { notify, type Db } from "@kappa/catalog";
import { auditAsWorker } from "../reconcile/entities.ts";

export interface BrokerChanges {
  down: { nodeId: number; address: string }[];
  back: { nodeId: number; address: string; downForMs: number }[];
}

const seconds = (ms: number) => (ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);

/**
 * Records the brokers the cluster's metadata lists now (`live`: node id →
 * host:port). An empty list says nothing (a cluster that answered has at least
 * the broker that answered) and changes nothing.
 */
export async function recordLiveBrokers(db: Db, cluster: { id: string; environment: string }, live: ReadonlyMap<number, string>, now = new Date()): Promise<BrokerChanges> {
  const changes: BrokerChanges = { down: [], back: [] };
  if (live.size === 0) return changes;
  const known = await db.clusterBroker.findMany({ where: { clusterId: cluster.id } });
  for (const [nodeId, address] of live) {
    const row = known.find((b) => b.nodeId === nodeId);
    if (!row) {
      await db.clusterBroker.upsert({ where: { clusterId_nodeId: { clusterId: cluster.id, nodeId } }, create: { clusterId: cluster.id, nodeId, address, lastSeenAt: now }, update: { address, lastSeenAt: now } });
      continue;
    }
    if (row.downSince === null) {
      await db.clusterBroker.updateMany({ where: { clusterId: cluster.id, nodeId }, data: { address, lastSeenAt: now } });
      continue;
    }
    const downForMs = now.getTime() - row.downSince.getTime();
    const closed = await db.$transaction(async (tx) => {
      const { count } = await tx.clusterBroker.updateMany({ where: { clusterId: cluster.id, nodeId, downSince: { not: null } }, data: { address, lastSeenAt: now, downSince: null } });
      if (count !== 1) return false;
      await tx.clusterBrokerOutage.updateMany({ where: { clusterId: cluster.id, nodeId, endedAt: null }, data: { endedAt: now } });
      await auditAsWorker(tx, "cluster.brokerBack", "Cluster", cluster.id, { environment: cluster.environment, nodeId, address, downForMs });
      await notify(tx, {
        kind: "cluster.broker-back",
        title: `Broker ${nodeId} of ${cluster.environment} is back`,
        body: `Broker ${nodeId} (${address}) is listed in the cluster's metadata again, after ${seconds(downForMs)} away.`,
        link: "/admin/clusters",
        entityType: "Cluster",
        entityId: cluster.id,
        audience: { admins: true },
        webhookDomains: [],
        data: { environment: cluster.environment, nodeId, address, downForMs },
      });
      return true;
    });
    if (closed) changes.back.push({ nodeId, address, downForMs });
  }
  for (const row of known) {
    if (live.has(row.nodeId) || row.downSince !== null) continue;
    const opened = await db.$transaction(async (tx) => {
      const { count } = await tx.clusterBroker.updateMany({ where: { clusterId: cluster.id, nodeId: row.nodeId, downSince: null }, data: { downSince: now } });
      if (count !== 1) return false;
      await tx.clusterBrokerOutage.create({ data: { clusterId: cluster.id, nodeId: row.nodeId, address: row.address, startedAt: now } });
      await auditAsWorker(tx, "cluster.brokerDown", "Cluster", cluster.id, { environment: cluster.environment, nodeId: row.nodeId, address: row.address, lastSeenAt: row.lastSeenAt.toISOString() });
      await notify(tx, {
        kind: "cluster.broker-down",
        title: `Broker ${row.nodeId} of ${cluster.environment} is down`,
        body: `Broker ${row.nodeId} (${row.address}) is missing from the cluster's metadata since ${now.toISOString()}: its partitions are led elsewhere or offline until it is back.`,
        link: "/admin/clusters",
        entityType: "Cluster",
        entityId: cluster.id,
        audience: { admins: true },
        webhookDomains: [],
        data: { environment: cluster.environment, nodeId: row.nodeId, address: row.address },
      });
      return true;
    });
    if (opened) changes.down.push({ nodeId: row.nodeId, address: row.address });
  }
  return changes;
}
