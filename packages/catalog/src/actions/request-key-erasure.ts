import { Prisma } from "@prisma/client";
import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import { CHANGE_KINDS, notifyChangeAwaitsReview } from "../changes/change-requests.ts";
import type { Db } from "../db.ts";
import { ConflictError, ValidationError } from "../errors.ts";
import { lockProduct, requireDomainPermission } from "../product-access.ts";
import { reasonInput } from "../validation.ts";

export const keyErasureInput = z
  .object({
    reason: reasonInput.shape.reason,
    /** The requester states that they know the erasure cannot be undone (the UI's checkbox; an API client sends it too). */
    irreversible: z.literal(true, { message: "Confirm that destroying the keys is irreversible (irreversible: true)." }),
  })
  .strict();

/**
 * An owner's erasure request (issue 29): crypto-shredding a live product's
 * encryption keys without retiring it, e.g. to meet an erasure obligation for
 * the personal data already in the log. Governance reviews it (four eyes: the
 * requester cannot approve it); on approval the product's DEKs are deleted
 * (change kind KEY_ERASURE, applied in change-requests.ts), so nobody can
 * decrypt the PII fields of the records written with them — in the log and in
 * any remote tier — ever again. Irreversible. The next write of an encrypting
 * producer gets a new DEK from the registry; records written before stay
 * unreadable. Audited on request and on approval.
 */
export async function requestKeyErasure(db: Db, acting: ActingUser, productId: string, rawInput: unknown) {
  const input = parseInput(keyErasureInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const product = await lockProduct(tx, productId);
    requireDomainPermission(actor, "product:update", product.domainId, "Only owners of the product's domain can ask for its encryption keys to be destroyed.");
    if (product.status === "RETIRED") throw new ConflictError("The product is retired: its keys were destroyed with it.", "PRODUCT_RETIRED");
    const deks = await tx.registryDek.findMany({ where: { productId }, select: { subject: true, version: true, algorithm: true }, orderBy: [{ subject: "asc" }, { version: "asc" }] });
    if (deks.length === 0) {
      const message = "The product has no encryption keys: nothing was written encrypted since the last erasure (or ever), so there is nothing to destroy.";
      throw new ValidationError(message, { _: [message] });
    }
    try {
      const request = await tx.productChangeRequest.create({
        data: { productId, kind: CHANGE_KINDS.KEY_ERASURE, payload: { keys: deks.length, subjects: [...new Set(deks.map((d) => d.subject))] }, reason: input.reason, requestedById: actor.id },
      });
      await recordAudit(tx, actor, "product.keyErasureRequested", "DataProduct", productId, { keys: deks.length, reason: input.reason, changeRequestId: request.id });
      await notifyChangeAwaitsReview(tx, actor, { id: productId, name: product.name, domainId: product.domainId }, `destroying ${deks.length === 1 ? "its encryption key" : `its ${deks.length} encryption keys`} waits for review`, input.reason);
      return request;
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") throw new ConflictError("An erasure of this product's keys is waiting for review already.", "CHANGE_PENDING");
      throw error;
    }
  });
}
