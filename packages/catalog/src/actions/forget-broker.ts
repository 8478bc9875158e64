import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";
import { reasonInput } from "../validation.ts";

/** Kafka node ids are non-negative 32-bit integers; the route passes the path segment as it came. */
const NODE_ID = /^(0|[1-9][0-9]{0,9})$/;
const NODE_ID_MESSAGE = "The broker's node id must be a whole number from 0 to 2147483647.";

/**
 * Asks to forget a broker that is down for good (issue 28: a decommissioned
 * node would otherwise be listed as down, and its cluster as "2 of 3 up", for
 * ever). Only a broker the worker currently sees as down can be forgotten: one
 * that is up is refused (BROKER_UP), so a typo cannot hide a live node. The
 * request is an intent (ClusterBrokerForget): the worker, which alone writes
 * the brokers and their outages, carries it out at its next look at the
 * cluster if the broker is still down — its row goes and its open outage
 * ends, marked forgotten — or drops it if the broker came back meanwhile. If
 * the node ever joins the cluster again, it is listed as a new broker.
 * Platform admins only; audited with the reason.
 */
export async function forgetBroker(db: Db, acting: ActingUser, clusterId: string, rawNodeId: string, rawInput: unknown) {
  if (!NODE_ID.test(rawNodeId) || Number(rawNodeId) > 2_147_483_647) throw new ValidationError(NODE_ID_MESSAGE, { nodeId: [NODE_ID_MESSAGE] });
  const nodeId = Number(rawNodeId);
  const { reason } = parseInput(reasonInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "cluster:manage")) throw new ForbiddenError("Only platform admins can forget a cluster's brokers.");
    const cluster = await tx.cluster.findUnique({ where: { id: clusterId } });
    if (!cluster) throw new NotFoundError("Cluster", clusterId);
    const broker = await tx.clusterBroker.findUnique({ where: { clusterId_nodeId: { clusterId, nodeId } } });
    if (!broker) throw new NotFoundError(`Broker ${nodeId} of`, `${cluster.environment} (the worker has not seen it)`);
    if (broker.downSince === null) throw new ConflictError(`Broker ${nodeId} (${broker.address}) is up: only a broker that is down can be forgotten.`, "BROKER_UP");
    const existing = await tx.clusterBrokerForget.findUnique({ where: { clusterId_nodeId: { clusterId, nodeId } } });
    if (existing) throw new ConflictError(`Broker ${nodeId} of ${cluster.environment} is already being forgotten (asked ${existing.requestedAt.toISOString()}): the worker removes it at its next look at the cluster.`, "FORGET_PENDING");
    const request = await tx.clusterBrokerForget.create({ data: { clusterId, nodeId, requestedById: actor.id, reason } });
    await recordAudit(tx, actor, "cluster.brokerForgetRequested", "Cluster", clusterId, { environment: cluster.environment, nodeId, address: broker.address, downSince: broker.downSince.toISOString(), reason });
    return { clusterId, environment: cluster.environment, nodeId, address: broker.address, status: "PENDING" as const, requestedAt: request.requestedAt.toISOString() };
  });
}
