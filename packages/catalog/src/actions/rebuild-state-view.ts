import { inTransaction, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError } from "../errors.ts";
import { lockProduct, requireDomainPermission } from "../product-access.ts";

/**
 * Owners ask for the latest-state view to be rebuilt from the log start
 * (e.g. after a producer bug was fixed by compaction of corrected values).
 * The worker sees the new generation, clears the view and replays the topic.
 */
export async function rebuildStateView(db: Db, acting: ActingUser, productId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    const product = await lockProduct(tx, productId);
    requireDomainPermission(actor, "stateView:rebuild", product.domainId, "Only owners of the product's domain can rebuild its latest-state view.");
    if (product.cleanupPolicy !== "compact") throw new ConflictError(`"${product.name}" is not compacted: it has no latest-state view.`, "NOT_COMPACTED");
    const view = await tx.stateView.upsert({
      where: { productId },
      create: { productId, topic: product.topicName, generation: 2, rebuildRequestedAt: new Date(), rebuildRequestedBy: actor.email },
      update: { generation: { increment: 1 }, rebuildRequestedAt: new Date(), rebuildRequestedBy: actor.email },
    });
    await recordAudit(tx, actor, "state.rebuild-requested", "DataProduct", productId, { generation: view.generation });
    return view;
  });
}
