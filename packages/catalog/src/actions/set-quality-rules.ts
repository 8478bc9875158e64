import { Prisma } from "@prisma/client";
import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import { CHANGE_KINDS, notifyChangeAwaitsReview } from "../changes/change-requests.ts";
import type { Db, Tx } from "../db.ts";
import { ConflictError, ValidationError } from "../errors.ts";
import { lockProduct, requireDomainPermission } from "../product-access.ts";
import { hasDlqRule, qualityRulesInput, sameRules } from "../quality/rules.ts";
import { checkEncryptable, checkRulesFor, qualityRulesOf, replaceQualityRules } from "../quality/store.ts";
import { FULLY_EDITABLE_STATUSES } from "../transitions.ts";
import { reasonInput } from "../validation.ts";

export const setQualityRulesInput = qualityRulesInput.extend({
  reason: reasonInput.shape.reason.optional(),
  /** Issue 29: encrypt the fields the schema classifies as PII (the registry serves an ENCRYPT rule); absent: as it is. */
  encryptPii: z.boolean({ message: "encryptPii is true or false." }).optional(),
});

export type SetQualityRulesResult =
  | { applied: true; rules: z.output<typeof qualityRulesInput>["rules"]; encryptPii: boolean; changeRequestId: null }
  | { applied: false; rules: z.output<typeof qualityRulesInput>["rules"]; encryptPii: boolean; changeRequestId: string };

/**
 * An owner sets the product's data-quality rules (the whole list, in order).
 * A draft takes them at once (the product's own review covers them); a live
 * product's rules change like its schema — a reviewed change with a reason
 * (kind QUALITY_RULES), applied when governance approves it (four eyes),
 * audited. The rules are checked first (CEL compiles, names exist, the
 * policy's limits), so nothing reaches a reviewer that clients cannot run.
 */
export async function setQualityRules(db: Db, acting: ActingUser, productId: string, rawInput: unknown): Promise<SetQualityRulesResult> {
  const input = parseInput(setQualityRulesInput, rawInput);
  return inTransaction(db, acting, (tx, actor) => setQualityRulesInTx(tx, actor, productId, input));
}

/** The same inside the caller's transaction (`kappa apply` sets a contract's rules with its other changes). */
export async function setQualityRulesInTx(tx: Tx, actor: Actor, productId: string, input: z.output<typeof setQualityRulesInput>): Promise<SetQualityRulesResult> {
  const product = await lockProduct(tx, productId);
  requireDomainPermission(actor, "product:update", product.domainId, "Only owners of the product's domain can change its data-quality rules.");
  if (product.status === "IN_REVIEW") throw new ConflictError("The product is in review: wait for the decision before changing its rules.", "PRODUCT_IN_REVIEW");
  if (product.status === "RETIRED") throw new ConflictError("The product is retired.", "PRODUCT_RETIRED");
  const current = await qualityRulesOf(tx, productId);
  const encryptPii = input.encryptPii ?? product.encryptPii;
  const encryptionChanges = encryptPii !== product.encryptPii;
  if (sameRules(current, input.rules) && !encryptionChanges) throw new ValidationError("These are the product's rules already: nothing changes.", { rules: ["Unchanged."] });
  await checkRulesFor(tx, productId, input.rules);
  if (encryptPii && encryptionChanges) await checkEncryptable(tx, productId);

  if (FULLY_EDITABLE_STATUSES.includes(product.status)) {
    await replaceQualityRules(tx, productId, input.rules);
    if (encryptionChanges) await tx.dataProduct.update({ where: { id: productId }, data: { encryptPii } });
    await recordAudit(tx, actor, "product.qualityRulesSet", "DataProduct", productId, { rules: input.rules.map((r) => r.name), dlq: hasDlqRule(input.rules), encryptPii });
    return { applied: true, rules: input.rules, encryptPii, changeRequestId: null };
  }
  if (!input.reason) throw new ValidationError("Say why the rules change: governance reads it.", { reason: ["Give a reason."] });
  try {
    const request = await tx.productChangeRequest.create({
      data: {
        productId,
        kind: CHANGE_KINDS.QUALITY_RULES,
        payload: { from: current, to: input.rules, ...(encryptionChanges ? { encryptPii: { from: product.encryptPii, to: encryptPii } } : {}) },
        reason: input.reason,
        requestedById: actor.id,
      },
    });
    await recordAudit(tx, actor, "product.qualityRulesChangeRequested", "DataProduct", productId, {
      from: current.map((r) => r.name),
      to: input.rules.map((r) => r.name),
      ...(encryptionChanges ? { encryptPii } : {}),
      reason: input.reason,
      changeRequestId: request.id,
    });
    await notifyChangeAwaitsReview(tx, actor, { id: productId, name: product.name, domainId: product.domainId }, `data-quality rules wait for review`, input.reason);
    return { applied: false, rules: input.rules, encryptPii, changeRequestId: request.id };
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      throw new ConflictError("A change of this product's data-quality rules is waiting for review already.", "CHANGE_PENDING");
    }
    throw error;
  }
}
