import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { checkEnvironmentBounds, lockDeployment } from "../environments/deployments.ts";
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
    const deployment = await lockDeployment(tx, deploymentId);
    if (deployment.status !== "IN_REVIEW") throw new ConflictError(`This promotion is ${deployment.status}, not in review.`, "INVALID_TRANSITION");
    assertFourEyes(actor, deployment, "this promotion");
    const cluster = await tx.cluster.findUnique({ where: { environment: deployment.environment } });
    if (!cluster) throw new NotFoundError("Environment", deployment.environment);
    checkEnvironmentBounds(cluster, deployment);
    const product = await tx.dataProduct.findUniqueOrThrow({ where: { id: deployment.productId } });
    const schema = await tx.schemaVersion.findFirst({ where: { id: { in: deployment.schemaVersionIds } }, orderBy: { version: "desc" } });
    // The promoted definition is the product's as copied: evaluate that, not later edits.
    const facts = productFacts({ ...product, partitions: deployment.partitions, retentionMs: deployment.retentionMs, cleanupPolicy: deployment.cleanupPolicy }, schema);
    const policy = await enforcePolicy(tx, actor, { event: "product.register", entityType: "DataProduct", entityId: product.id, facts: { product: facts } });
    const updated = await tx.productDeployment.update({
      where: { id: deploymentId },
      data: { status: "APPROVED", decidedById: actor.id, decidedAt: new Date(), decisionReason: comment || null, lastError: null },
    });
    const evaluation = await policy.record();
    await recordAudit(tx, actor, "product.promotion.approved", "ProductDeployment", deploymentId, {
      productId: product.id,
      environment: deployment.environment,
      topic: deployment.topicName,
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
