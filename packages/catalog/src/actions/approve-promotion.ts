import { Prisma } from "@prisma/client";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { checkEnvironmentBounds, lockDeployment, readPendingUpdate } from "../environments/deployments.ts";
import { ConflictError, ForbiddenError, NotFoundError } from "../errors.ts";
import { assertFourEyes } from "../four-eyes.ts";
import { notify } from "../notifications/notify.ts";
import { hasGlobal } from "../permissions.ts";
import { enforcePolicy, productFacts } from "../policies/enforce.ts";
import { approvalCommentInput } from "../validation.ts";

/**
 * Governance approves a promotion (four eyes: not its requester). The copied
 * definition is checked again against the target environment's bounds and the
 * policy in force — either may have become stricter since the request — and
 * the deployment becomes APPROVED, which the worker provisions on that
 * environment's cluster.
 */
export async function approvePromotion(db: Db, acting: ActingUser, deploymentId: string, rawInput: unknown = {}) {
  const { comment } = parseInput(approvalCommentInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "product:review")) throw new ForbiddenError("Only governance reviewers can approve promotions.");
    const locked = await lockDeployment(tx, deploymentId);
    // An ACTIVE deployment with a later definition promoted again: that update is what is reviewed.
    const pending = locked.status === "ACTIVE" ? readPendingUpdate(locked) : null;
    if (locked.status !== "IN_REVIEW" && !pending) throw new ConflictError(`This promotion is ${locked.status}, not in review.`, "INVALID_TRANSITION");
    const deployment = pending
      ? { ...locked, partitions: pending.partitions, retentionMs: BigInt(pending.retentionMs), cleanupPolicy: pending.cleanupPolicy, configs: pending.configs, schemaVersionIds: pending.schemaVersionIds, requestedById: pending.requestedById }
      : locked;
    assertFourEyes(actor, deployment, "this promotion");
    const cluster = await tx.cluster.findUnique({ where: { environment: deployment.environment } });
    if (!cluster) throw new NotFoundError("Environment", deployment.environment);
    checkEnvironmentBounds(cluster, deployment);
    const product = await tx.dataProduct.findUniqueOrThrow({ where: { id: deployment.productId } });
    const schema = await tx.schemaVersion.findFirst({ where: { id: { in: deployment.schemaVersionIds } }, orderBy: { version: "desc" } });
    // The promoted definition is the product's as copied: evaluate that, not later edits.
    const facts = productFacts({ ...product, partitions: deployment.partitions, retentionMs: deployment.retentionMs, cleanupPolicy: deployment.cleanupPolicy }, schema);
    const policy = await enforcePolicy(tx, actor, { event: "product.register", entityType: "DataProduct", entityId: product.id, facts: { product: facts } });
    const decision = { decidedById: actor.id, decidedAt: new Date(), decisionReason: comment || null, lastError: null };
    // An approved update is copied over and stays ACTIVE: the worker grows the topic and sets its configs on its next cycle.
    const updated = pending
      ? await tx.productDeployment.update({
          where: { id: deploymentId },
          data: { ...decision, partitions: deployment.partitions, retentionMs: deployment.retentionMs, cleanupPolicy: deployment.cleanupPolicy, configs: pending.configs, schemaVersionIds: pending.schemaVersionIds, requestedById: pending.requestedById, pendingUpdate: Prisma.DbNull },
        })
      : await tx.productDeployment.update({ where: { id: deploymentId }, data: { ...decision, status: "APPROVED" } });
    const evaluation = await policy.record();
    await recordAudit(tx, actor, "product.promotion.approved", "ProductDeployment", deploymentId, {
      productId: product.id,
      environment: deployment.environment,
      topic: deployment.topicName,
      ...(pending ? { update: true, partitions: pending.partitions } : {}),
      policy: evaluation.summary,
      ...(comment ? { comment } : {}),
    });
    await notify(tx, {
      kind: "product.approved",
      title: `${product.name} was approved for ${deployment.environment}`,
      body: `Approved by ${actor.name}; the worker now creates ${deployment.topicName} on the ${deployment.environment} cluster.`,
      link: `/products/${product.id}`,
      entityType: "DataProduct",
      entityId: product.id,
      audience: { domainMembers: [product.domainId] },
      exclude: [actor.id],
    });
    return updated;
  });
}
