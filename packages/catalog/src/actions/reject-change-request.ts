import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import { lockChangeRequest } from "../changes/change-requests.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";
import { reasonInput } from "../validation.ts";

/** Governance rejects a product change with a reason; nothing on the product or the cluster changes. */
export async function rejectChangeRequest(db: Db, acting: ActingUser, changeRequestId: string, rawInput: unknown) {
  const { reason } = parseInput(reasonInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "product:review")) throw new ForbiddenError("Only governance reviewers can reject product changes.");
    const request = await lockChangeRequest(tx, changeRequestId);
    if (request.status !== "REQUESTED") throw new ConflictError(`This change was ${request.status.toLowerCase()} already.`, "INVALID_TRANSITION");
    const updated = await tx.productChangeRequest.update({
      where: { id: changeRequestId },
      data: { status: "REJECTED", decidedById: actor.id, decidedAt: new Date(), decisionReason: reason },
    });
    await recordAudit(tx, actor, "product.changeRejected", "DataProduct", request.productId, { kind: request.kind, changeRequestId, reason });
    return updated;
  });
}
