import type { Prisma } from "@prisma/client";
import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";
import { lockProduct } from "../product-access.ts";

export const claimAclsInput = z.object({
  /** Indexes into the claim's found ACLs that are to be removed on approval; the rest stay. */
  remove: z.array(z.number().int().min(0)).max(1000),
});

/**
 * The reviewer of a claimed topic decides, binding by binding, which existing
 * ACLs stay and which the worker removes when the claim is approved (grants
 * made outside the catalog would otherwise keep working unseen). Only while
 * the product is in review; the decision is part of the audit trail.
 */
export async function decideClaimAcls(db: Db, acting: ActingUser, productId: string, rawInput: unknown) {
  const { remove } = parseInput(claimAclsInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "product:review")) throw new ForbiddenError("Only governance reviewers decide a claim's existing ACLs.");
    const product = await lockProduct(tx, productId);
    const claim = await tx.topicClaim.findUnique({ where: { productId } });
    if (!claim) throw new NotFoundError("Claim of product", productId);
    if (product.status !== "IN_REVIEW") throw new ConflictError(`The claim's ACLs are decided during review; the product is ${product.status}.`, "INVALID_TRANSITION");
    const found = Array.isArray(claim.foundAcls) ? claim.foundAcls : [];
    if (remove.some((i) => i >= found.length)) throw new ValidationError("Choose bindings from the list found on the topic.", { remove: ["Unknown binding."] });
    const chosen = [...new Set(remove)].sort((a, b) => a - b).map((i) => found[i]).filter((b): b is Prisma.JsonValue => b !== undefined && b !== null);
    // A PREFIXED or `*` binding also grants other topics: removing it is the cluster operator's call, not this claim's.
    const wide = chosen.find((b) => !removable(b, claim.topic));
    if (wide) throw new ValidationError("Only bindings on exactly this topic can be removed with the claim; prefixed and wildcard bindings cover other topics too.", { remove: ["Covers other topics."] });
    await tx.topicClaim.update({ where: { productId }, data: { removeAcls: chosen as Prisma.InputJsonValue[], aclsDecidedById: actor.id } });
    await recordAudit(tx, actor, "product.claimAclsDecided", "DataProduct", productId, { topic: claim.topic, remove: chosen.length, keep: found.length - chosen.length });
    return { productId, remove: chosen, keep: found.length - chosen.length };
  });
}

/** Whether the claim may remove this binding: LITERAL, on the claimed topic. */
export function removable(binding: unknown, topic: string): boolean {
  if (typeof binding !== "object" || binding === null) return false;
  const b = binding as { resourceType?: unknown; patternType?: unknown; resourceName?: unknown };
  return b.resourceType === "TOPIC" && b.patternType === "LITERAL" && b.resourceName === topic;
}
