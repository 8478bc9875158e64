import type { Cluster, ClusterBroker, ClusterBrokerForget, ClusterBrokerOutage } from "@prisma/client";
import type { Actor } from "../actor.ts";
import type { Db, Tx } from "../db.ts";
import { ForbiddenError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";

/** What anyone may see of a cluster: never the password, only whether one is stored. */
export interface ClusterView {
  id: string;
  environment: string;
  primary: boolean;
  bootstrap: string;
  securityProtocol: string;
  saslMechanism: string;
  adminUser: string | null;
  hasPassword: boolean;
  maxPartitions: number | null;
  minRetentionMs: number | null;
  lastSeenAt: string | null;
  lastError: string | null;
  /** Whether its brokers offer tiered storage, as the worker last read it; null = not known yet. */
  tieredStorage: boolean | null;
  createdAt: string;
  /** Every broker the worker has seen in the cluster's metadata, by node id; `downSince` set while it is missing; `forgetRequestedAt` while an admin's request to forget it waits for the worker. Empty until observed. */
  brokers: { nodeId: number; address: string; lastSeenAt: string; downSince: string | null; forgetRequestedAt: string | null }[];
  /** The newest broker outages (at most RECENT_OUTAGES), newest first; `endedAt` null while it lasts; `forgottenAt` set when an admin forgot the broker (it then ended at that moment, not by coming back). */
  brokerOutages: { nodeId: number; address: string; startedAt: string; endedAt: string | null; forgottenAt: string | null }[];
}

/** How many past broker outages a cluster's view lists. */
export const RECENT_OUTAGES = 10;

export function clusterView(c: Cluster & { brokers?: ClusterBroker[]; brokerOutages?: ClusterBrokerOutage[]; brokerForgets?: ClusterBrokerForget[] }): ClusterView {
  const forgets = new Map((c.brokerForgets ?? []).map((f) => [f.nodeId, f.requestedAt.toISOString()]));
  return {
    id: c.id,
    environment: c.environment,
    primary: c.primary,
    bootstrap: c.bootstrap,
    securityProtocol: c.securityProtocol,
    saslMechanism: c.saslMechanism,
    adminUser: c.adminUser,
    hasPassword: c.adminPasswordSealed !== null,
    maxPartitions: c.maxPartitions,
    minRetentionMs: c.minRetentionMs === null ? null : Number(c.minRetentionMs),
    lastSeenAt: c.lastSeenAt?.toISOString() ?? null,
    lastError: c.lastError,
    tieredStorage: c.tieredStorage,
    createdAt: c.createdAt.toISOString(),
    brokers: (c.brokers ?? [])
      .map((b) => ({ nodeId: b.nodeId, address: b.address, lastSeenAt: b.lastSeenAt.toISOString(), downSince: b.downSince?.toISOString() ?? null, forgetRequestedAt: forgets.get(b.nodeId) ?? null }))
      .sort((a, b) => a.nodeId - b.nodeId),
    brokerOutages: (c.brokerOutages ?? []).map((o) => ({ nodeId: o.nodeId, address: o.address, startedAt: o.startedAt.toISOString(), endedAt: o.endedAt?.toISOString() ?? null, forgottenAt: o.forgottenAt?.toISOString() ?? null })),
  };
}

export { clusterTargetChanges, openClusterPassword, sealClusterPassword, type ClusterTarget } from "./cluster-password.ts";

/** Every cluster, primary first: the admin page. */
export async function listClusters(db: Db | Tx, actor: Actor): Promise<ClusterView[]> {
  if (!hasGlobal(actor, "cluster:manage")) throw new ForbiddenError("Only platform admins can see the registered clusters.");
  const rows = await db.cluster.findMany({
    orderBy: [{ primary: "desc" }, { environment: "asc" }],
    include: { brokers: true, brokerOutages: { orderBy: { startedAt: "desc" }, take: RECENT_OUTAGES }, brokerForgets: true },
  });
  return rows.map(clusterView);
}

/** The name of the worker's own environment (KAFKA_BROKERS); "default" until a worker has recorded it. */
export async function primaryEnvironment(db: Db | Tx): Promise<string> {
  return (await db.cluster.findFirst({ where: { primary: true }, select: { environment: true } }))?.environment ?? "default";
}

/** The clusters the worker reconciles besides its own, with their sealed credentials. */
export async function registeredClusters(db: Db | Tx): Promise<Cluster[]> {
  return db.cluster.findMany({ where: { primary: false }, orderBy: { environment: "asc" } });
}

export interface PrimaryClusterFacts {
  environment: string;
  bootstrap: string;
  securityProtocol: string;
  saslMechanism: string;
  adminUser: string | null;
}

/**
 * The worker records its own cluster (KAFKA_BROKERS) as the primary
 * environment at start: no credentials are stored (the worker has them in its
 * configuration). A registered cluster of that name is left alone and the
 * conflict reported: two clusters must never share an environment name.
 */
export async function recordPrimaryCluster(db: Db, facts: PrimaryClusterFacts): Promise<{ recorded: boolean; reason?: string }> {
  return db.$transaction(async (tx) => {
    const holder = await tx.cluster.findUnique({ where: { environment: facts.environment } });
    if (holder && !holder.primary) return { recorded: false, reason: `a registered cluster is already named ${facts.environment}` };
    // The worker's environment was renamed (KAFKA_ENVIRONMENT): its old primary row goes.
    await tx.cluster.deleteMany({ where: { primary: true, environment: { not: facts.environment } } });
    const data = { bootstrap: facts.bootstrap, securityProtocol: facts.securityProtocol, saslMechanism: facts.saslMechanism, adminUser: facts.adminUser, primary: true, lastSeenAt: new Date(), lastError: null };
    await tx.cluster.upsert({ where: { environment: facts.environment }, create: { environment: facts.environment, ...data }, update: data });
    return { recorded: true };
  });
}
