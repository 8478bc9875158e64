import type { DataProduct, ProductDeployment } from "@prisma/client";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import type { Db, Tx } from "../db.ts";
import { primaryEnvironment } from "../environments/clusters.ts";
import { checkEnvironmentBounds, deploymentBehind, PROMOTABLE_STATUSES, type PendingUpdate } from "../environments/deployments.ts";
import { promoteProductInput } from "../environments/validation.ts";
import { ConflictError, ForbiddenError, NotFoundError } from "../errors.ts";
import { notify } from "../notifications/notify.ts";
import { canInDomain } from "../permissions.ts";
import { lockProduct } from "../product-access.ts";
import { topicConfigs } from "../tasks.ts";

/**
 * A domain owner promotes an ACTIVE product to another environment: its
 * approved definition (topic, partitions, configs) and approved schema
 * versions are copied into a deployment that waits for its own review. The
 * target environment's bounds apply already here, so a promotion that could
 * never be approved is refused at once with the field that breaks them.
 */
export async function promoteProduct(db: Db, acting: ActingUser, productId: string, rawInput: unknown) {
  const { environment } = parseInput(promoteProductInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const product = await lockProduct(tx, productId);
    if (!canInDomain(actor, "product:promote", product.domainId)) throw new ForbiddenError("Only owners of the product's domain can promote it.");
    if (!PROMOTABLE_STATUSES.includes(product.status)) throw new ConflictError(`Only an ACTIVE product can be promoted; ${product.name} is ${product.status}.`, "NOT_PROMOTABLE");
    const cluster = await tx.cluster.findUnique({ where: { environment } });
    if (!cluster) throw new NotFoundError("Environment", environment);
    if (cluster.primary) throw new ConflictError(`${environment} is the environment the product was published to; promote it to another one.`, "SAME_ENVIRONMENT");
    checkEnvironmentBounds(cluster, product);
    const existing = await tx.productDeployment.findUnique({ where: { productId_environment: { productId, environment } } });
    const schemaVersions = await tx.schemaVersion.findMany({ where: { productId, status: "APPROVED" }, select: { id: true, version: true }, orderBy: { version: "asc" } });
    if (existing?.status === "ACTIVE") return promoteAgain(tx, actor, product, existing, schemaVersions);
    if (existing && existing.status !== "REJECTED") throw new ConflictError(`${product.name} is already promoted to ${environment} (${existing.status}).`, "ALREADY_PROMOTED");
    const definition = {
      status: "IN_REVIEW" as const,
      topicName: product.topicName,
      partitions: product.partitions,
      retentionMs: product.retentionMs,
      cleanupPolicy: product.cleanupPolicy,
      configs: topicConfigs(product),
      schemaVersionIds: schemaVersions.map((v) => v.id),
      sourceEnvironment: (await tx.cluster.findFirst({ where: { primary: true }, select: { environment: true } }))?.environment ?? "default",
      requestedById: actor.id,
      decidedById: null,
      decidedAt: null,
      decisionReason: null,
      lastError: null,
      provisionedAt: null,
    };
    const deployment = existing
      ? await tx.productDeployment.update({ where: { id: existing.id }, data: definition })
      : await tx.productDeployment.create({ data: { productId, environment, ...definition } });
    await recordAudit(tx, actor, "product.promotion.requested", "ProductDeployment", deployment.id, {
      productId,
      topic: product.topicName,
      from: definition.sourceEnvironment,
      to: environment,
      partitions: product.partitions,
      schemaVersions: schemaVersions.map((v) => v.version),
    });
    await notify(tx, {
      kind: "product.review-requested",
      title: `${product.name} awaits review for ${environment}`,
      body: `${actor.name} promoted ${product.topicName} to ${environment}; a reviewer other than them must approve it.`,
      link: `/products/${productId}`,
      entityType: "DataProduct",
      entityId: productId,
      audience: { governance: true },
      exclude: [actor.id],
    });
    return deployment;
  });
}

/**
 * Promoting again to an environment where the product is ACTIVE: the later
 * definition (more partitions, new schema versions, other configs) is stored
 * as the deployment's pending update and reviewed like a promotion; the
 * environment keeps running what was approved until then — nothing on that
 * cluster changes silently.
 */
async function promoteAgain(tx: Tx, actor: Actor, product: DataProduct, existing: ProductDeployment, schemaVersions: { id: string; version: number }[]) {
  if (existing.pendingUpdate !== null) throw new ConflictError(`An update of ${product.name} for ${existing.environment} is already in review.`, "ALREADY_PROMOTED");
  const primary = await primaryEnvironment(tx);
  const versionOf = new Map((await tx.schemaVersion.findMany({ where: { id: { in: existing.schemaVersionIds } }, select: { id: true, version: true } })).map((v) => [v.id, v.version]));
  const behind = deploymentBehind(primary, product, schemaVersions, existing, versionOf);
  if (behind.length === 0) throw new ConflictError(`${existing.environment} already has ${product.name} as it is in ${primary}; there is nothing to promote.`, "ALREADY_PROMOTED");
  const pending: PendingUpdate = {
    partitions: product.partitions,
    retentionMs: product.retentionMs.toString(),
    cleanupPolicy: product.cleanupPolicy,
    configs: topicConfigs(product),
    schemaVersionIds: schemaVersions.map((v) => v.id),
    requestedById: actor.id,
    requestedAt: new Date().toISOString(),
  };
  const deployment = await tx.productDeployment.update({ where: { id: existing.id }, data: { pendingUpdate: pending } });
  await recordAudit(tx, actor, "product.promotion.requested", "ProductDeployment", deployment.id, {
    productId: product.id,
    topic: product.topicName,
    from: primary,
    to: existing.environment,
    update: true,
    behind,
    partitions: product.partitions,
    schemaVersions: schemaVersions.map((v) => v.version),
  });
  await notify(tx, {
    kind: "product.review-requested",
    title: `An update of ${product.name} awaits review for ${existing.environment}`,
    body: `${actor.name} promoted ${product.topicName} to ${existing.environment} again (${behind.join("; ")}); a reviewer other than them must approve it.`,
    link: `/products/${product.id}`,
    entityType: "DataProduct",
    entityId: product.id,
    audience: { governance: true },
    exclude: [actor.id],
  });
  return deployment;
}
