import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { clusterView, sealClusterPassword } from "../environments/clusters.ts";
import { registerClusterInput } from "../environments/validation.ts";
import { ConflictError, ForbiddenError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";

/**
 * A platform admin registers a Kafka cluster as an environment. The admin
 * password is sealed under KAPPA_SECRETS_KEY before it reaches the database
 * and is never returned or audited; only the worker opens it.
 */
export async function registerCluster(db: Db, acting: ActingUser, secretsKey: Buffer, rawInput: unknown) {
  const input = parseInput(registerClusterInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "cluster:manage")) throw new ForbiddenError("Only platform admins can register clusters.");
    // The unique index decides races; this check gives the clear message.
    const taken = await tx.cluster.findUnique({ where: { environment: input.environment }, select: { primary: true } });
    if (taken) {
      throw new ConflictError(
        taken.primary ? `${input.environment} is the worker's own environment (KAFKA_BROKERS); choose another name.` : `An environment named ${input.environment} is already registered.`,
        "ENVIRONMENT_TAKEN",
      );
    }
    const sasl = input.securityProtocol.startsWith("SASL_");
    const cluster = await tx.cluster.create({
      data: {
        environment: input.environment,
        bootstrap: input.bootstrap,
        securityProtocol: input.securityProtocol,
        saslMechanism: input.saslMechanism,
        adminUser: sasl ? (input.adminUser ?? null) : null,
        adminPasswordSealed: sasl && input.adminPassword ? sealClusterPassword(secretsKey, input, input.adminPassword) : null,
        maxPartitions: input.maxPartitions ?? null,
        minRetentionMs: input.minRetentionMs === undefined || input.minRetentionMs === null ? null : BigInt(input.minRetentionMs),
        createdById: actor.id,
      },
    });
    await recordAudit(tx, actor, "cluster.registered", "Cluster", cluster.id, {
      environment: cluster.environment,
      bootstrap: cluster.bootstrap,
      securityProtocol: cluster.securityProtocol,
      saslMechanism: cluster.saslMechanism,
      adminUser: cluster.adminUser,
      maxPartitions: cluster.maxPartitions,
      minRetentionMs: input.minRetentionMs ?? null,
    });
    return clusterView(cluster);
  });
}
