import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { notify } from "../notifications/notify.ts";
import { enforcePolicy } from "../policies/enforce.ts";
import { lockProduct, moveProductStatus, requireDomainPermission } from "../product-access.ts";
import { nextProductStatus } from "../transitions.ts";
import { deprecateProductInput } from "../validation.ts";

/** Marks an ACTIVE product deprecated with a sunset date its subscribers see. */
export async function deprecateProduct(db: Db, acting: ActingUser, productId: string, rawInput: unknown) {
  const { reason, sunsetAt } = parseInput(deprecateProductInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const product = await lockProduct(tx, productId);
    requireDomainPermission(actor, "product:deprecate", product.domainId, "Only owners of the product's domain can deprecate it.");
    const to = nextProductStatus(product.status, "deprecate");
    const activeSubscriptions = await tx.subscription.count({ where: { productId, status: { in: ["APPROVED", "ACTIVE"] } } });
    const policy = await enforcePolicy(tx, actor, {
      event: "product.deprecate",
      entityType: "DataProduct",
      entityId: productId,
      facts: { deprecation: { sunsetAt: sunsetAt.getTime(), now: Date.now(), activeSubscriptions } },
    });
    const updated = await moveProductStatus(tx, product, to, { sunsetAt, decisionReason: reason });
    await recordAudit(tx, actor, "product.deprecated", "DataProduct", productId, { from: product.status, to, reason, sunsetAt: sunsetAt.toISOString(), policy: (await policy.record()).summary });
    const subscribers = await tx.subscription.findMany({ where: { productId, status: { in: ["REQUESTED", "APPROVED", "ACTIVE"] } }, select: { consumingDomainId: true } });
    await notify(tx, {
      kind: "product.deprecated",
      title: `${product.name} is deprecated`,
      body: `Sunset ${sunsetAt.toISOString().slice(0, 10)}: then its subscriptions are revoked and ${product.topicName} is retired. ${reason}`,
      link: `/products/${productId}`,
      entityType: "DataProduct",
      entityId: productId,
      audience: { domainMembers: [product.domainId, ...new Set(subscribers.map((s) => s.consumingDomainId))] },
      exclude: [actor.id],
      data: { reason, sunsetAt: sunsetAt.toISOString() },
    });
    return updated;
  });
}
