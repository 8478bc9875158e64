import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { clusterTargetChanges, clusterView, sealClusterPassword } from "../environments/clusters.ts";
import { updateClusterInput } from "../environments/validation.ts";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";

/**
 * Changes a registered cluster's connection or bounds. The environment name
 * stays (deployments and the sealed password are bound to it). A password
 * given replaces the stored one; none keeps it — but only while the password
 * would still go where and how it was entered for: a change of bootstrap
 * servers, security protocol or SASL mechanism needs the password again
 * (issue 30, finding 2: otherwise an admin token could point the worker, with
 * the stored password, at its own broker over SASL PLAIN). The seal binds the
 * target too (cluster-password.ts). The audit names what changed and that the
 * password was replaced, never what it is.
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
    const targetChanged = clusterTargetChanges(before, input);
    if (sasl && !replaced && before.adminPasswordSealed !== null && targetChanged.length > 0) {
      const message = `Enter the admin password again: the stored one is only sent to the target it was entered for, and this changes the ${targetChanged.map((f) => TARGET_FIELD_NAMES[f]).join(", ")}.`;
      throw new ValidationError(message, { adminPassword: [message] });
    }
    const cluster = await tx.cluster.update({
      where: { id: clusterId },
      data: {
        bootstrap: input.bootstrap,
        securityProtocol: input.securityProtocol,
        saslMechanism: input.saslMechanism,
        adminUser: sasl ? (input.adminUser ?? null) : null,
        adminPasswordSealed: !sasl ? null : replaced ? sealClusterPassword(secretsKey, { ...input, environment: before.environment }, input.adminPassword ?? "") : before.adminPasswordSealed,
        ...(input.maxPartitions !== undefined ? { maxPartitions: input.maxPartitions } : {}),
        ...(input.minRetentionMs !== undefined ? { minRetentionMs: input.minRetentionMs === null ? null : BigInt(input.minRetentionMs) } : {}),
        lastError: null,
      },
    });
    await recordAudit(tx, actor, "cluster.updated", "Cluster", clusterId, {
      environment: cluster.environment,
      from: { bootstrap: before.bootstrap, securityProtocol: before.securityProtocol, saslMechanism: before.saslMechanism, adminUser: before.adminUser, maxPartitions: before.maxPartitions },
      to: { bootstrap: cluster.bootstrap, securityProtocol: cluster.securityProtocol, saslMechanism: cluster.saslMechanism, adminUser: cluster.adminUser, maxPartitions: cluster.maxPartitions },
      changed: [...targetChanged, ...(before.adminUser !== cluster.adminUser ? ["adminUser"] : []), ...(before.maxPartitions !== cluster.maxPartitions ? ["maxPartitions"] : []), ...(before.minRetentionMs !== cluster.minRetentionMs ? ["minRetentionMs"] : [])],
      passwordReplaced: replaced,
    });
    return clusterView(cluster);
  });
}

const TARGET_FIELD_NAMES = { bootstrap: "bootstrap servers", securityProtocol: "security protocol", saslMechanism: "SASL mechanism" } as const;
