import { Prisma } from "@prisma/client";
import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import { CHANGE_KINDS, notifyChangeAwaitsReview } from "../changes/change-requests.ts";
import type { Db } from "../db.ts";
import { ConflictError, ValidationError } from "../errors.ts";
import { lockProduct, requireDomainPermission } from "../product-access.ts";
import { COMPATIBILITY_MODES } from "../schema/modes.ts";
import { FULLY_EDITABLE_STATUSES } from "../transitions.ts";
import { reasonInput } from "../validation.ts";

export const compatibilityModeChangeInput = z.object({
  mode: z.enum(COMPATIBILITY_MODES, { message: "Choose a compatibility mode." }),
  reason: reasonInput.shape.reason,
});

/**
 * An owner asks to change the compatibility mode of an approved product —
 * loosening it (NONE switches the checks off) as much as tightening it — with
 * a reason governance reads. It applies when a reviewer approves it (four
 * eyes), as any reviewed change to a live product. Drafts change the mode
 * on the form.
 */
export async function requestCompatibilityModeChange(db: Db, acting: ActingUser, productId: string, rawInput: unknown) {
  const input = parseInput(compatibilityModeChangeInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const product = await lockProduct(tx, productId);
    requireDomainPermission(actor, "product:update", product.domainId, "Only owners of the product's domain can change its compatibility mode.");
    if (FULLY_EDITABLE_STATUSES.includes(product.status)) {
      throw new ConflictError(`A ${product.status} product changes its mode on the form; no review is needed before approval.`, "EDIT_INSTEAD");
    }
    if (product.status === "RETIRED") throw new ConflictError("The product is retired.", "PRODUCT_RETIRED");
    if (input.mode === product.compatibilityMode) {
      const message = `The mode is ${product.compatibilityMode} already.`;
      throw new ValidationError(message, { mode: [message] });
    }
    try {
      const request = await tx.productChangeRequest.create({
        data: { productId, kind: CHANGE_KINDS.COMPATIBILITY_MODE, payload: { from: product.compatibilityMode, to: input.mode }, reason: input.reason, requestedById: actor.id },
      });
      await recordAudit(tx, actor, "product.compatibilityModeChangeRequested", "DataProduct", productId, {
        from: product.compatibilityMode,
        to: input.mode,
        reason: input.reason,
        changeRequestId: request.id,
      });
      await notifyChangeAwaitsReview(tx, actor, { id: productId, name: product.name, domainId: product.domainId }, `compatibility ${product.compatibilityMode} → ${input.mode} waits for review`, input.reason);
      return request;
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
        throw new ConflictError("A change of this product's compatibility mode is waiting for review already.", "CHANGE_PENDING");
      }
      throw error;
    }
  });
}
