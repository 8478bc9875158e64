/*
 * Environments besides the worker's own cluster (KAFKA_BROKERS): every
 * cluster an admin registered in the catalog is reconciled here, with the
 * admin credentials the catalog keeps sealed under KAPPA_SECRETS_KEY. For each
 * approved promotion (ProductDeployment) of that environment the copied topic
 * (partitions, configs) and the domain producer's ACLs are made to exist on
 * that cluster; an APPROVED deployment becomes ACTIVE once they do. Every step
 * is idempotent, so several workers may run it at once, and ACTIVE
 * deployments are checked again each cycle (a deleted topic comes back).
 * Subscriptions in that environment get their consumer ACLs there
 * (environment-grants.ts), and every account that needs access gets its SCRAM
 * credential there (environment-credentials.ts); provisioning tasks act on the
 * primary cluster only.
 */
import type { Cluster, ProductDeployment } from "@prisma/client";
import { openClusterPassword, registeredClusters, type Db } from "@kappa/catalog";
import { recordLiveBrokers } from "../health/cluster-brokers.ts";
import type { AclBinding, KafkaCluster, TopicDescription } from "../kafka/cluster.ts";
import { KafkaJsCluster, type KafkaConnectionSettings } from "../kafka/kafkajs-cluster.ts";
import { errorMessage, type Logger } from "../log.ts";
import { aclKey, diffTopic, producerBindings } from "../reconcile/diff.ts";
import { WORKER_ACTOR } from "../reconcile/entities.ts";
import { assertOwnedPrincipal, platformPrincipals } from "../reconcile/principal-guard.ts";
import { reconcileEnvironmentCredentials, type EnvironmentCredentialRun } from "./environment-credentials.ts";
import { reconcileEnvironmentGrants, type EnvironmentGrantRun } from "./environment-grants.ts";
import { retireDeployment } from "./environment-retirement.ts";

export interface EnvironmentReconcilerOptions {
  intervalMs: number;
  secretsKey: Buffer;
  clientId: string;
  /** Whether a retired product's topic is deleted on registered clusters too (WORKER_RETIRED_TOPICS); default keep. */
  retiredTopics?: "delete" | "keep";
  /** Tests and callers with their own connection factory; default: KafkaJsCluster. */
  connect?: (settings: KafkaConnectionSettings, log: Logger) => KafkaCluster;
}

export interface EnvironmentRun {
  environment: string;
  deployments: number;
  activated: number;
  /** Subscribers' ACLs on this cluster (null: not reached). */
  grants: EnvironmentGrantRun | null;
  /** SCRAM credentials installed on this cluster (null: not reached). */
  credentials: EnvironmentCredentialRun | null;
  error: string | null;
}

const MECHANISMS = { plain: "PLAIN", "scram-sha-256": "SCRAM-SHA-256", "scram-sha-512": "SCRAM-SHA-512" } as const;

/** Connection settings of a registered cluster; the password is opened here and kept in memory only. */
export function connectionSettings(cluster: Cluster, secretsKey: Buffer, clientId: string): KafkaConnectionSettings {
  const sasl = cluster.securityProtocol.startsWith("SASL_");
  const mechanism = cluster.saslMechanism in MECHANISMS ? MECHANISMS[cluster.saslMechanism as keyof typeof MECHANISMS] : null;
  if (sasl && !mechanism) throw new Error(`${cluster.environment}: ${cluster.securityProtocol} needs a SASL mechanism`);
  return {
    brokers: cluster.bootstrap.split(",").map((b) => b.trim()).filter((b) => b.length > 0),
    sasl: sasl && mechanism ? { mechanism, username: cluster.adminUser ?? "", password: openClusterPassword(secretsKey, cluster) ?? "" } : null,
    ssl: cluster.securityProtocol.endsWith("SSL"),
    clientId: `${clientId}-${cluster.environment}`,
  };
}

export class EnvironmentReconciler {
  private readonly connections = new Map<string, { version: string; cluster: KafkaCluster }>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<EnvironmentRun[]> | null = null;
  lastRun: EnvironmentRun[] = [];

  constructor(
    private readonly db: Db,
    private readonly options: EnvironmentReconcilerOptions,
    private readonly log: Logger,
  ) {}

  start(): void {
    void this.runNow();
    this.timer = setInterval(() => void this.runNow(), this.options.intervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
    await Promise.all([...this.connections.values()].map((c) => c.cluster.close().catch(() => undefined)));
    this.connections.clear();
  }

  /** One cycle over every registered cluster unless one is running. */
  runNow(): Promise<EnvironmentRun[]> {
    this.running ??= this.cycle()
      .then((runs) => (this.lastRun = runs))
      .catch((error: unknown) => {
        this.log.error("environment reconcile failed", { error: errorMessage(error) });
        return [];
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async cycle(): Promise<EnvironmentRun[]> {
    const clusters = await registeredClusters(this.db);
    const names = new Set(clusters.map((c) => c.environment));
    for (const [name, conn] of this.connections) {
      if (!names.has(name)) {
        this.connections.delete(name);
        await conn.cluster.close().catch(() => undefined);
      }
    }
    const runs: EnvironmentRun[] = [];
    for (const cluster of clusters) runs.push(await this.reconcileEnvironment(cluster));
    return runs;
  }

  /** The connection of a cluster, re-opened when an admin changed it (its updatedAt moved). */
  private async connectionFor(cluster: Cluster): Promise<KafkaCluster> {
    const version = cluster.updatedAt.toISOString();
    const known = this.connections.get(cluster.environment);
    if (known && known.version === version) return known.cluster;
    if (known) await known.cluster.close().catch(() => undefined);
    const settings = connectionSettings(cluster, this.options.secretsKey, this.options.clientId);
    const kafka = (this.options.connect ?? ((s, l) => new KafkaJsCluster(s, l)))(settings, this.log);
    this.connections.set(cluster.environment, { version, cluster: kafka });
    return kafka;
  }

  private async reconcileEnvironment(cluster: Cluster): Promise<EnvironmentRun> {
    const run: EnvironmentRun = { environment: cluster.environment, deployments: 0, activated: 0, grants: null, credentials: null, error: null };
    const rows = await this.db.productDeployment.findMany({ where: { environment: cluster.environment, status: { in: ["APPROVED", "ACTIVE"] } }, orderBy: { createdAt: "asc" } });
    const products = new Map(
      (await this.db.dataProduct.findMany({ where: { id: { in: rows.map((d) => d.productId) } }, select: { id: true, status: true, domainId: true } })).map((p) => [p.id, p]),
    );
    const all = rows.flatMap((d) => {
      const product = products.get(d.productId);
      return product ? [{ ...d, product }] : [];
    });
    // A retired product is taken off this cluster (environment-retirement.ts), not provisioned.
    const deployments = all.filter((d) => d.product.status !== "RETIRED");
    run.deployments = deployments.length;
    try {
      const kafka = await this.connectionFor(cluster);
      for (const d of all.filter((x) => x.product.status === "RETIRED")) {
        try {
          await retireDeployment(this.db, kafka, cluster, d, this.options.retiredTopics ?? "keep");
        } catch (error) {
          this.log.warn("could not retire a promoted product", { environment: cluster.environment, topic: d.topicName, error: errorMessage(error) });
          await this.db.productDeployment.update({ where: { id: d.id }, data: { lastError: errorMessage(error).slice(0, 2000) } });
        }
      }
      const actual: Map<string, TopicDescription> = deployments.length > 0 ? await kafka.describeTopics(deployments.map((d) => d.topicName)) : new Map<string, TopicDescription>();
      const live = new Map<string, string>();
      const needCredentials = new Set<string>();
      for (const deployment of deployments) {
        try {
          needCredentials.add(await this.reconcileDeployment(kafka, cluster, deployment, actual.get(deployment.topicName)));
          if (await this.markProvisioned(deployment)) run.activated++;
          live.set(deployment.productId, deployment.topicName);
        } catch (error) {
          const message = errorMessage(error);
          this.log.warn("could not provision a promoted product", { environment: cluster.environment, topic: deployment.topicName, error: message });
          await this.db.productDeployment.update({ where: { id: deployment.id }, data: { lastError: message.slice(0, 2000) } });
        }
      }
      // With nothing to provision, a metadata round trip still tells whether the cluster answers.
      if (deployments.length === 0) await kafka.listTopics();
      // Subscribers read only where the product is provisioned; every topic ever promoted here bounds what may be taken away.
      const promoted = await this.db.productDeployment.findMany({ where: { environment: cluster.environment }, select: { topicName: true } });
      // Credentials before grants: the producers of what is provisioned here and the granted subscribers.
      const subscribers = await this.db.subscription.findMany({ where: { environment: cluster.environment, status: { in: ["APPROVED", "ACTIVE"] }, productId: { in: [...live.keys()] } }, select: { serviceAccountId: true } });
      for (const s of subscribers) needCredentials.add(s.serviceAccountId);
      run.credentials = await reconcileEnvironmentCredentials(this.db, kafka, cluster, needCredentials, this.options.secretsKey, this.log);
      run.grants = await reconcileEnvironmentGrants(this.db, kafka, cluster, live, promoted.map((d) => d.topicName), run.credentials.ready, this.log);
      // What the cluster can do (null: it will not say, keep what is known), for the catalog's checks.
      const tieredStorage = await kafka.tieredStorageEnabled().catch(() => null);
      // Which of its brokers are up: an outage opens and closes as on the worker's own cluster.
      const brokers = await kafka.liveBrokers().catch(() => new Map<number, string>());
      await recordLiveBrokers(this.db, cluster, brokers);
      await this.db.cluster.update({ where: { id: cluster.id }, data: { lastSeenAt: new Date(), lastError: null, ...(tieredStorage === null ? {} : { tieredStorage }) }, select: { id: true } });
    } catch (error) {
      run.error = errorMessage(error);
      this.log.warn("environment unreachable", { environment: cluster.environment, error: run.error });
      await this.db.cluster.update({ where: { id: cluster.id }, data: { lastError: run.error.slice(0, 2000) }, select: { id: true } }).catch(() => undefined);
    }
    return run;
  }

  /** The topic and the producer's ACLs of one deployment; answers the producer account's id (it needs credentials here). */
  private async reconcileDeployment(kafka: KafkaCluster, cluster: Cluster, d: ProductDeployment, actual: TopicDescription | undefined): Promise<string> {
    const configs = Object.fromEntries(Object.entries(d.configs as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
    const diff = diffTopic({ name: d.topicName, partitions: d.partitions, configs }, actual);
    if (diff.create) await kafka.createTopics([diff.create]);
    if (diff.growPartitionsTo !== null) await kafka.createPartitions(d.topicName, diff.growPartitionsTo);
    if (Object.keys(diff.setConfigs).length > 0) await kafka.setTopicConfigs(d.topicName, diff.setConfigs);
    const product = await this.db.dataProduct.findUniqueOrThrow({ where: { id: d.productId }, select: { domainId: true } });
    const producer = await this.db.serviceAccount.findFirst({ where: { domainId: product.domainId, isProducer: true }, select: { id: true, name: true, domainId: true, isProducer: true } });
    if (!producer) throw new Error("the product's domain has no producer account");
    // As on the primary cluster: only a principal the worker owns gets ACLs, never this cluster's admin.
    await assertOwnedPrincipal(this.db, platformPrincipals(cluster.adminUser, []), producer);
    const principal = `User:${producer.name}`;
    const have = new Set((await kafka.describeAcls([principal])).map(aclKey));
    const missing: AclBinding[] = producerBindings(principal, [d.topicName]).filter((b) => !have.has(aclKey(b)));
    if (missing.length > 0) await kafka.createAcls(missing);
    return producer.id;
  }

  /** APPROVED → ACTIVE once (a second worker finds it ACTIVE already), audited; clears an earlier error. */
  private async markProvisioned(d: ProductDeployment): Promise<boolean> {
    return this.db.$transaction(async (tx) => {
      const moved = await tx.productDeployment.updateMany({ where: { id: d.id, status: "APPROVED" }, data: { status: "ACTIVE", provisionedAt: new Date(), lastError: null } });
      if (moved.count === 0) {
        if (d.lastError !== null) await tx.productDeployment.update({ where: { id: d.id }, data: { lastError: null } });
        return false;
      }
      await tx.auditEvent.create({
        data: { actorId: null, actorEmail: WORKER_ACTOR, action: "product.promotion.provisioned", entityType: "ProductDeployment", entityId: d.id, data: { productId: d.productId, environment: d.environment, topic: d.topicName, from: "APPROVED", to: "ACTIVE" } },
      });
      return true;
    });
  }
}
