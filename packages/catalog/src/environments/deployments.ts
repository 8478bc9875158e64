import type { Cluster, DataProduct, ProductDeployment } from "@prisma/client";
import { z } from "zod";
import type { Actor } from "../actor.ts";
import type { Db, Tx } from "../db.ts";
import { NotFoundError, ValidationError } from "../errors.ts";
import { fourEyesConflict } from "../four-eyes.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { topicConfigs } from "../tasks.ts";
import { primaryEnvironment } from "./clusters.ts";

/*
 * A product's state per environment. The primary environment (the worker's
 * KAFKA_BROKERS cluster) is the product itself, as it always was; every other
 * environment is a ProductDeployment: the approved definition copied at
 * promotion, reviewed on its own, provisioned by the worker on that cluster.
 */

/** The definition a promotion copies, and the environment's own bounds it must meet. */
export function checkEnvironmentBounds(cluster: Pick<Cluster, "environment" | "maxPartitions" | "minRetentionMs" | "tieredStorage">, definition: { partitions: number; retentionMs: bigint; tieredStorage?: boolean }): void {
  const fields: Record<string, string[]> = {};
  if (definition.tieredStorage && cluster.tieredStorage === false) fields.tieredStorage = [noTieredStorage(cluster.environment)];
  if (cluster.maxPartitions !== null && definition.partitions > cluster.maxPartitions) {
    fields.partitions = [`${cluster.environment} allows at most ${cluster.maxPartitions} partitions; this product has ${definition.partitions}.`];
  }
  // retention.ms = -1 keeps records forever, which meets any minimum.
  if (cluster.minRetentionMs !== null && definition.retentionMs !== -1n && definition.retentionMs < cluster.minRetentionMs) {
    fields.retentionMs = [`${cluster.environment} requires a retention of at least ${cluster.minRetentionMs} ms; this product keeps ${definition.retentionMs} ms.`];
  }
  const messages = Object.values(fields).flat();
  if (messages.length > 0) throw new ValidationError(`Refused by the ${cluster.environment} environment's bounds: ${messages.join(" ")}`, fields);
}

/** What a tiered product hears where the worker found the brokers without tiered storage. */
export function noTieredStorage(environment: string): string {
  return `The ${environment} environment has no tiered storage (its Kafka brokers run with remote.log.storage.system.enable=false): turn tiered storage off for this product.`;
}

/**
 * Whether the primary environment offers tiered storage, as the worker last
 * read its brokers (null: not known yet, or no cluster registered) — what the
 * publish form says before anyone submits, with the words the server refuses with.
 */
export async function primaryTieredStorage(db: Db): Promise<{ environment: string; offered: boolean | null; refusal: string | null }> {
  const primary = await db.cluster.findFirst({ where: { primary: true }, select: { environment: true, tieredStorage: true } });
  if (!primary) return { environment: "primary", offered: null, refusal: null };
  return { environment: primary.environment, offered: primary.tieredStorage, refusal: primary.tieredStorage === false ? noTieredStorage(primary.environment) : null };
}

/**
 * Refuses a tiered product on the primary environment when the worker found
 * its brokers without tiered storage (Cluster.tieredStorage = false), before
 * it is submitted: Kafka would refuse the topic. Unknown (null) passes.
 */
export async function assertTieredStorageOffered(tx: Tx, tieredStorage: boolean): Promise<void> {
  if (!tieredStorage) return;
  const primary = await tx.cluster.findFirst({ where: { primary: true }, select: { environment: true, tieredStorage: true } });
  if (primary?.tieredStorage === false) throw new ValidationError(noTieredStorage(primary.environment), { tieredStorage: [noTieredStorage(primary.environment)] });
}

export async function lockDeployment(tx: Tx, deploymentId: string): Promise<ProductDeployment> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "ProductDeployment" WHERE id = ${deploymentId} FOR UPDATE`;
  if (rows.length === 0) throw new NotFoundError("Promotion", deploymentId);
  return tx.productDeployment.findUniqueOrThrow({ where: { id: deploymentId } });
}

export interface EnvironmentState {
  environment: string;
  primary: boolean;
  /** The product's status (primary) or the deployment's: IN_REVIEW, REJECTED, APPROVED, ACTIVE. */
  status: string;
  topicName: string;
  partitions: number;
  retentionMs: string;
  schemaVersions: number[];
  deploymentId: string | null;
  requestedBy: string | null;
  decidedBy: string | null;
  decisionReason: string | null;
  lastError: string | null;
  provisionedAt: string | null;
  /** Whether the actor may approve or reject this promotion (governance, not its requester). */
  canDecide: boolean;
  /** What the primary environment has that this one lacks (later schema versions, more partitions, other configs); empty: up to date. */
  behind: string[];
  /** A later definition promoted again and waiting for review (the environment keeps the current one until then). */
  pendingUpdate: { partitions: number; schemaVersions: number[]; requestedBy: string | null } | null;
  /** Open subscriptions in this environment the actor may see (the product's people and governance: all; others: their domains'). */
  subscribers: EnvironmentSubscriber[];
}

export interface EnvironmentSubscriber {
  subscriptionId: string;
  account: string;
  domain: string;
  status: string;
}

export interface ProductEnvironments {
  productId: string;
  environments: EnvironmentState[];
  /** Environments the actor may promote the product to now (registered, not yet promoted or rejected there). */
  promotableTo: string[];
}

const PROMOTABLE_STATUSES: readonly DataProduct["status"][] = ["ACTIVE"];

/** A promotion's definition as stored in `pendingUpdate`. */
export const pendingUpdateShape = z.object({
  partitions: z.number().int(),
  retentionMs: z.string(),
  cleanupPolicy: z.enum(["delete", "compact"]),
  configs: z.record(z.string(), z.string()),
  schemaVersionIds: z.array(z.string()),
  requestedById: z.string(),
  requestedAt: z.string(),
});
export type PendingUpdate = z.infer<typeof pendingUpdateShape>;

export function readPendingUpdate(d: Pick<ProductDeployment, "pendingUpdate">): PendingUpdate | null {
  return d.pendingUpdate === null ? null : pendingUpdateShape.parse(d.pendingUpdate);
}

/**
 * How a deployment lags behind the product on the primary environment: approved
 * schema versions it does not carry, a partition increase, changed topic
 * configs. Each entry reads "dev has v3, prod has v2".
 */
export function deploymentBehind(
  primary: string,
  product: Pick<DataProduct, "partitions" | "retentionMs" | "cleanupPolicy" | "tieredStorage" | "localRetentionMs">,
  approvedVersions: readonly { id: string; version: number }[],
  d: Pick<ProductDeployment, "environment" | "partitions" | "configs" | "schemaVersionIds">,
  versionOf: ReadonlyMap<string, number>,
): string[] {
  const out: string[] = [];
  const missing = approvedVersions.filter((v) => !d.schemaVersionIds.includes(v.id));
  if (missing.length > 0) {
    const newest = (list: number[]) => (list.length > 0 ? `v${Math.max(...list)}` : "no schema version");
    const theirs = d.schemaVersionIds.flatMap((id) => (versionOf.has(id) ? [versionOf.get(id) ?? 0] : []));
    out.push(`${primary} has ${newest(approvedVersions.map((v) => v.version))}, ${d.environment} has ${newest(theirs)}`);
  }
  if (product.partitions > d.partitions) out.push(`${primary} has ${product.partitions} partitions, ${d.environment} has ${d.partitions}`);
  const want = topicConfigs(product);
  const have = d.configs as Record<string, unknown>;
  // Stored configs are the strings topicConfigs() produced at promotion (a number only in rows written by hand).
  const asText = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : "");
  const changed = Object.keys(want).filter((k) => asText(have[k]) !== want[k]).sort();
  if (changed.length > 0) out.push(`${primary} has other topic configs (${changed.join(", ")})`);
  return out;
}

/** The product page's environments panel: each environment's state side by side. */
export async function productEnvironments(db: Db, actor: Actor, productId: string): Promise<ProductEnvironments> {
  const product = await db.dataProduct.findUnique({ where: { id: productId }, include: { schemaVersions: { where: { status: "APPROVED" }, select: { id: true, version: true } } } });
  if (!product) throw new NotFoundError("Data product", productId);
  const seesAll = canInDomain(actor, "product:update", product.domainId) || hasGlobal(actor, "product:review");
  const [primary, clusters, deployments, subscriptions] = await Promise.all([
    primaryEnvironment(db),
    db.cluster.findMany({ where: { primary: false }, select: { environment: true }, orderBy: { environment: "asc" } }),
    db.productDeployment.findMany({ where: { productId }, orderBy: { environment: "asc" } }),
    db.subscription.findMany({
      where: { productId, status: { in: ["REQUESTED", "APPROVED", "ACTIVE"] }, ...(seesAll ? {} : { consumingDomainId: { in: actor.memberships.map((m) => m.domainId) } }) },
      select: { id: true, environment: true, status: true, serviceAccount: { select: { name: true } }, consumingDomain: { select: { name: true } } },
      orderBy: { createdAt: "asc" },
    }),
  ]);
  const subscribersIn = (environment: string | null): EnvironmentSubscriber[] =>
    subscriptions.filter((s) => s.environment === environment).map((s) => ({ subscriptionId: s.id, account: s.serviceAccount.name, domain: s.consumingDomain.name, status: s.status }));
  const pendingOf = new Map(deployments.map((d) => [d.id, readPendingUpdate(d)]));
  const people = await db.user.findMany({
    where: { id: { in: deployments.flatMap((d) => [d.requestedById, d.decidedById ?? "", pendingOf.get(d.id)?.requestedById ?? ""]) } },
    select: { id: true, name: true },
  });
  const nameOf = (id: string | null) => (id === null ? null : (people.find((p) => p.id === id)?.name ?? null));
  const versionOf = new Map<string, number>();
  const referenced = deployments.flatMap((d) => [...d.schemaVersionIds, ...(pendingOf.get(d.id)?.schemaVersionIds ?? [])]);
  for (const v of await db.schemaVersion.findMany({ where: { id: { in: referenced } }, select: { id: true, version: true } })) versionOf.set(v.id, v.version);
  const versionsOf = (ids: readonly string[]) => ids.flatMap((id) => (versionOf.has(id) ? [versionOf.get(id) ?? 0] : [])).sort((a, b) => a - b);
  const reviewer = hasGlobal(actor, "product:review");
  const environments: EnvironmentState[] = [
    {
      environment: primary,
      primary: true,
      status: product.status,
      topicName: product.topicName,
      partitions: product.partitions,
      retentionMs: product.retentionMs.toString(),
      schemaVersions: product.schemaVersions.map((v) => v.version).sort((a, b) => a - b),
      deploymentId: null,
      requestedBy: null,
      decidedBy: null,
      decisionReason: product.decisionReason,
      lastError: null,
      provisionedAt: null,
      canDecide: false,
      behind: [],
      pendingUpdate: null,
      subscribers: subscribersIn(null),
    },
    ...deployments.map(
      (d): EnvironmentState => ({
        environment: d.environment,
        primary: false,
        status: d.status,
        topicName: d.topicName,
        partitions: d.partitions,
        retentionMs: d.retentionMs.toString(),
        schemaVersions: versionsOf(d.schemaVersionIds),
        deploymentId: d.id,
        requestedBy: nameOf(d.requestedById),
        decidedBy: nameOf(d.decidedById),
        decisionReason: d.decisionReason,
        lastError: d.lastError,
        provisionedAt: d.provisionedAt?.toISOString() ?? null,
        canDecide:
          reviewer &&
          ((d.status === "IN_REVIEW" && fourEyesConflict(actor.id, { requestedById: d.requestedById }) === null) ||
            (d.status === "ACTIVE" && pendingOf.get(d.id) != null && fourEyesConflict(actor.id, { requestedById: pendingOf.get(d.id)?.requestedById ?? "" }) === null)),
        behind: d.status === "ACTIVE" ? deploymentBehind(primary, product, product.schemaVersions, d, versionOf) : [],
        pendingUpdate: (() => {
          const pending = pendingOf.get(d.id);
          return pending ? { partitions: pending.partitions, schemaVersions: versionsOf(pending.schemaVersionIds), requestedBy: nameOf(pending.requestedById) } : null;
        })(),
        subscribers: subscribersIn(d.environment),
      }),
    ),
  ];
  const canPromote = canInDomain(actor, "product:promote", product.domainId) && PROMOTABLE_STATUSES.includes(product.status);
  const open = new Map(deployments.map((d) => [d.environment, d]));
  // Promote again where the environment is ACTIVE but behind, with no update in review yet.
  const again = (d: ProductDeployment) => d.status === "ACTIVE" && pendingOf.get(d.id) === null && deploymentBehind(primary, product, product.schemaVersions, d, versionOf).length > 0;
  const promotableTo = canPromote
    ? clusters.map((c) => c.environment).filter((e) => {
        const d = open.get(e);
        return d === undefined || d.status === "REJECTED" || again(d);
      })
    : [];
  return { productId, environments, promotableTo };
}

export { PROMOTABLE_STATUSES };
