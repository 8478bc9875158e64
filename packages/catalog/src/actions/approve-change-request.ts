import { inTransaction, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import { addPartitionsPayload, applyChange, CHANGE_KINDS, enforcePartitionPolicy, lockChangeRequest } from "../changes/change-requests.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";
import { lockProduct } from "../product-access.ts";

/** Governance approves a product change (four eyes): the change is applied and the worker's step queued in one transaction. */
export async function approveChangeRequest(db: Db, acting: ActingUser, changeRequestId: string) {
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "product:review")) throw new ForbiddenError("Only governance reviewers can approve product changes.");
    const request = await lockChangeRequest(tx, changeRequestId);
    if (request.status !== "REQUESTED") throw new ConflictError(`This change was ${request.status.toLowerCase()} already.`, "INVALID_TRANSITION");
    if (request.requestedById === actor.id) throw new ForbiddenError("Four-eyes rule: you cannot approve a change you requested.");
    const product = await lockProduct(tx, request.productId);
    // A policy changed since the request still applies: nothing outside its bounds reaches Kafka.
    const partitions = request.kind === CHANGE_KINDS.ADD_PARTITIONS ? addPartitionsPayload.safeParse(request.payload) : null;
    const policy = partitions?.success ? await enforcePartitionPolicy(tx, actor, product, partitions.data.to) : null;
    const applied = await applyChange(tx, { ...request, product }, actor);
    if (request.kind === CHANGE_KINDS.KEY_ERASURE) {
      await recordAudit(tx, actor, "product.keys-destroyed", "DataProduct", request.productId, { trigger: "erasure-request", changeRequestId, keys: applied.keysDestroyed ?? 0, subjects: applied.subjects ?? "" });
    }
    const updated = await tx.productChangeRequest.update({ where: { id: changeRequestId }, data: { status: "APPROVED", decidedById: actor.id, decidedAt: new Date() } });
    await recordAudit(tx, actor, "product.changeApproved", "DataProduct", request.productId, { kind: request.kind, changeRequestId, ...applied, ...(policy ? { policy: (await policy.record()).summary } : {}) });
    return updated;
  });
}
