import { inTransaction, type ActingUser } from "../action.ts";
import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import type { Db, Tx } from "../db.ts";
import { notify } from "../notifications/notify.ts";
import { enforcePolicy, productFacts } from "../policies/enforce.ts";
import { lockProduct, moveProductStatus, requireDomainPermission } from "../product-access.ts";
import { nextProductStatus } from "../transitions.ts";

export async function submitForReview(db: Db, acting: ActingUser, productId: string) {
  return inTransaction(db, acting, (tx, actor) => submitForReviewInTx(tx, actor, productId));
}

/** The submission inside a caller's transaction (contract apply). */
export async function submitForReviewInTx(tx: Tx, actor: Actor, productId: string) {
  const product = await lockProduct(tx, productId);
  requireDomainPermission(actor, "product:submit", product.domainId, "Only owners of the product's domain can submit it for review.");
  const to = nextProductStatus(product.status, "submit");
  // The registration rules again, under the policy in force now: review gets only compliant products.
  const schema = await tx.schemaVersion.findFirst({ where: { productId }, orderBy: { version: "desc" } });
  const policy = await enforcePolicy(tx, actor, { event: "product.register", entityType: "DataProduct", entityId: productId, facts: { product: productFacts(product, schema) } });
  const updated = await moveProductStatus(tx, product, to, {
    submittedById: actor.id,
    submittedAt: new Date(),
    decidedById: null,
    decidedAt: null,
    decisionReason: null,
  });
  const evaluation = await policy.record();
  await recordAudit(tx, actor, "product.submitted", "DataProduct", productId, { from: product.status, to, policy: evaluation.summary });
  await notify(tx, {
    kind: "product.review-requested",
    title: `${product.name} waits for review`,
    body: `Submitted by ${actor.name}: ${product.classification} product ${product.topicName}.`,
    link: `/products/${productId}`,
    entityType: "DataProduct",
    entityId: productId,
    audience: { governance: true },
    webhookDomains: [product.domainId],
    exclude: [actor.id],
  });
  return updated;
}
