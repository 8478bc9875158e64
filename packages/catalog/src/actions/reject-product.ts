import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ForbiddenError } from "../errors.ts";
import { assertFourEyes } from "../four-eyes.ts";
import { notify } from "../notifications/notify.ts";
import { hasGlobal } from "../permissions.ts";
import { lockProduct, moveProductStatus } from "../product-access.ts";
import { nextProductStatus } from "../transitions.ts";
import { reasonInput } from "../validation.ts";

export async function rejectProduct(db: Db, acting: ActingUser, productId: string, rawInput: unknown) {
  const { reason } = parseInput(reasonInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "product:review")) throw new ForbiddenError("Only governance reviewers can reject data products.");
    const product = await lockProduct(tx, productId);
    const to = nextProductStatus(product.status, "reject");
    assertFourEyes(actor, product, "this product");
    const updated = await moveProductStatus(tx, product, to, { decidedById: actor.id, decidedAt: new Date(), decisionReason: reason, editorIds: [] });
    await tx.schemaVersion.updateMany({ where: { productId, status: "PENDING" }, data: { status: "REJECTED", decidedById: actor.id, decidedAt: new Date(), decisionReason: reason } });
    await recordAudit(tx, actor, "product.rejected", "DataProduct", productId, { from: product.status, to, reason });
    await notify(tx, {
      kind: "product.rejected",
      title: `${product.name} was rejected`,
      body: `${actor.name}: ${reason}`,
      link: `/products/${productId}`,
      entityType: "DataProduct",
      entityId: productId,
      audience: { domainMembers: [product.domainId] },
      exclude: [actor.id],
      data: { reason },
    });
    return updated;
  });
}
