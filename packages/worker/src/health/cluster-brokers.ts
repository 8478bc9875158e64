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
  /** Brokers an admin asked to forget (ClusterBrokerForget) that were still down, now forgotten. */
  forgotten: { nodeId: number; address: string }[];
}

const seconds = (ms: number) => (ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);

/**
 * Records the brokers the cluster's metadata lists now (`live`: node id →
 * host:port). An empty list says nothing (a cluster that answered has at least
 * the broker that answered) and changes nothing.
 */
export async function recordLiveBrokers(db: Db, cluster: { id: string; environment: string }, live: ReadonlyMap<number, string>, now = new Date()): Promise<BrokerChanges> {
  const changes: BrokerChanges = { down: [], back: [], forgotten: [] };
  if (live.size === 0) return changes;
  changes.forgotten = await forgetRequested(db, cluster, live, now);
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

/**
 * Carries out the platform admins' requests to forget a broker that is down
 * for good: a broker still missing from the metadata loses its row and its
 * open outage ends, marked forgotten; one that is listed again is kept and
 * the request dropped (audited as refused). Each request is claimed by
 * deleting it, so with two workers one carries it out.
 */
async function forgetRequested(db: Db, cluster: { id: string; environment: string }, live: ReadonlyMap<number, string>, now: Date): Promise<{ nodeId: number; address: string }[]> {
  const requests = await db.clusterBrokerForget.findMany({ where: { clusterId: cluster.id } });
  const forgotten: { nodeId: number; address: string }[] = [];
  for (const request of requests) {
    const done = await db.$transaction(async (tx) => {
      const { count } = await tx.clusterBrokerForget.deleteMany({ where: { clusterId: cluster.id, nodeId: request.nodeId } });
      if (count !== 1) return null; // another worker took it
      const asked = { environment: cluster.environment, nodeId: request.nodeId, requestedBy: request.requestedById, reason: request.reason };
      if (live.has(request.nodeId)) {
        await auditAsWorker(tx, "cluster.brokerForgetRefused", "Cluster", cluster.id, { ...asked, why: "the broker is listed in the cluster's metadata again" });
        return null;
      }
      const row = await tx.clusterBroker.findUnique({ where: { clusterId_nodeId: { clusterId: cluster.id, nodeId: request.nodeId } } });
      if (!row) return null;
      await tx.clusterBroker.delete({ where: { clusterId_nodeId: { clusterId: cluster.id, nodeId: request.nodeId } } });
      await tx.clusterBrokerOutage.updateMany({ where: { clusterId: cluster.id, nodeId: request.nodeId, endedAt: null }, data: { endedAt: now, forgottenAt: now } });
      await auditAsWorker(tx, "cluster.brokerForgotten", "Cluster", cluster.id, { ...asked, address: row.address, downSince: row.downSince?.toISOString() ?? null });
      return { nodeId: request.nodeId, address: row.address };
    });
    if (done) forgotten.push(done);
  }
  return forgotten;
}
