import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { clusterView, sealClusterPassword } from "../environments/clusters.ts";
import { updateClusterInput } from "../environments/validation.ts";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";

/**
 * Changes a registered cluster's connection or bounds. The environment name
 * stays (deployments and the sealed password are bound to it). A password
 * given replaces the stored one; none keeps it. The audit records that it was
 * replaced, never what it is.
 */
export async function updateCluster(db: Db, acting: ActingUser, secretsKey: Buffer, clusterId: string, rawInput: unknown) {
  const input = parseInput(updateClusterInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "cluster:manage")) throw new ForbiddenError("Only platform admins can change clusters.");
    const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "Cluster" WHERE id = ${clusterId} FOR UPDATE`;
    if (rows.length === 0) throw new NotFoundError("Cluster", clusterId);
    const before = await tx.cluster.findUniqueOrThrow({ where: { id: clusterId } });
    if (before.primary) throw new ConflictError(`${before.environment} is the worker's own cluster: change KAFKA_BROKERS and the worker's Kafka settings instead.`, "PRIMARY_CLUSTER");
    const sasl = input.securityProtocol.startsWith("SASL_");
    if (sasl && !input.adminPassword && before.adminPasswordSealed === null) throw new ValidationError("Give the admin user's password.", { adminPassword: ["Give the admin user's password."] });
    const replaced = sasl && input.adminPassword !== undefined && input.adminPassword.length > 0;
    const cluster = await tx.cluster.update({
      where: { id: clusterId },
      data: {
        bootstrap: input.bootstrap,
        securityProtocol: input.securityProtocol,
        saslMechanism: input.saslMechanism,
        adminUser: sasl ? (input.adminUser ?? null) : null,
        adminPasswordSealed: !sasl ? null : replaced ? sealClusterPassword(secretsKey, before.environment, input.adminPassword ?? "") : before.adminPasswordSealed,
        ...(input.maxPartitions !== undefined ? { maxPartitions: input.maxPartitions } : {}),
        ...(input.minRetentionMs !== undefined ? { minRetentionMs: input.minRetentionMs === null ? null : BigInt(input.minRetentionMs) } : {}),
        lastError: null,
      },
    });
    await recordAudit(tx, actor, "cluster.updated", "Cluster", clusterId, {
      environment: cluster.environment,
      from: { bootstrap: before.bootstrap, securityProtocol: before.securityProtocol, saslMechanism: before.saslMechanism, adminUser: before.adminUser, maxPartitions: before.maxPartitions },
      to: { bootstrap: cluster.bootstrap, securityProtocol: cluster.securityProtocol, saslMechanism: cluster.saslMechanism, adminUser: cluster.adminUser, maxPartitions: cluster.maxPartitions },
      passwordReplaced: replaced,
    });
    return clusterView(cluster);
  });
}
