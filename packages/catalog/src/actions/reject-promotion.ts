import { Prisma } from "@prisma/client";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { lockDeployment, readPendingUpdate } from "../environments/deployments.ts";
import { ConflictError, ForbiddenError } from "../errors.ts";
import { assertFourEyes } from "../four-eyes.ts";
import { notify } from "../notifications/notify.ts";
import { hasGlobal } from "../permissions.ts";
import { reasonInput } from "../validation.ts";

/** Governance rejects a promotion with a reason; the owners may promote again after fixing it. */
export async function rejectPromotion(db: Db, acting: ActingUser, deploymentId: string, rawInput: unknown) {
  const { reason } = parseInput(reasonInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "product:review")) throw new ForbiddenError("Only governance reviewers can reject promotions.");
    const deployment = await lockDeployment(tx, deploymentId);
    const pending = deployment.status === "ACTIVE" ? readPendingUpdate(deployment) : null;
    if (deployment.status !== "IN_REVIEW" && !pending) throw new ConflictError(`This promotion is ${deployment.status}, not in review.`, "INVALID_TRANSITION");
    assertFourEyes(actor, pending ? { requestedById: pending.requestedById } : deployment, "this promotion");
    // A rejected update leaves the environment ACTIVE on what it runs; the owners may promote again.
    const decision = { decidedById: actor.id, decidedAt: new Date(), decisionReason: reason };
    const updated = pending
      ? await tx.productDeployment.update({ where: { id: deploymentId }, data: { ...decision, pendingUpdate: Prisma.DbNull } })
      : await tx.productDeployment.update({ where: { id: deploymentId }, data: { ...decision, status: "REJECTED" } });
    const product = await tx.dataProduct.findUniqueOrThrow({ where: { id: deployment.productId }, select: { id: true, name: true, domainId: true } });
    await recordAudit(tx, actor, "product.promotion.rejected", "ProductDeployment", deploymentId, { productId: product.id, environment: deployment.environment, reason, ...(pending ? { update: true } : {}) });
    await notify(tx, {
      kind: "product.rejected",
      title: `${product.name} was not approved for ${deployment.environment}`,
      body: `${actor.name}: ${reason}`,
      link: `/products/${product.id}`,
      entityType: "DataProduct",
      entityId: product.id,
      audience: { domainMembers: [product.domainId] },
      exclude: [actor.id],
      data: { reason },
    });
    return updated;
  });
}
