import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, ValidationError } from "../errors.ts";
import { lockProduct, requireDomainPermission } from "../product-access.ts";

export const productInputsInput = z.object({
  inputProductIds: z.array(z.string().min(1).max(100)).max(50, "At most 50 input products."),
});

const DECLARABLE = ["APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"];

/**
 * Declares the products a derived product is made from (an in-stream join or
 * aggregation). Inputs must be published products other than this one, and
 * the edges may not close a cycle (a product cannot feed itself through
 * others). The set replaces the previous one; reviewers see it in review and
 * the lineage graph marks each input as granted/observed.
 */
export async function setProductInputs(db: Db, acting: ActingUser, productId: string, rawInput: unknown) {
  const { inputProductIds } = parseInput(productInputsInput, rawInput);
  const wanted = [...new Set(inputProductIds)];
  return inTransaction(db, acting, async (tx, actor) => {
    const product = await lockProduct(tx, productId);
    requireDomainPermission(actor, "product:update", product.domainId, "Only owners of the product's domain declare its inputs.");
    if (product.status === "RETIRED") throw new ConflictError("A retired product's lineage is history; it cannot change.", "INVALID_TRANSITION");
    if (wanted.includes(productId)) throw new ValidationError("A product cannot be its own input.", { inputProductIds: ["A product cannot be its own input."] });
    const inputs = await tx.dataProduct.findMany({ where: { id: { in: wanted } }, select: { id: true, name: true, status: true } });
    const unusable = wanted.filter((id) => !inputs.some((p) => p.id === id && DECLARABLE.includes(p.status)));
    if (unusable.length > 0) throw new ValidationError("Inputs must be published products.", { inputProductIds: [`Not a published product: ${unusable.join(", ")}`] });
    // Cycle check: walk upstream from every input; reaching this product means a loop.
    const edges = await tx.productInput.findMany({ select: { productId: true, inputProductId: true } });
    const upstream = new Map<string, string[]>();
    for (const e of edges) if (e.productId !== productId) upstream.set(e.productId, [...(upstream.get(e.productId) ?? []), e.inputProductId]);
    const seen = new Set<string>();
    const stack = [...wanted];
    while (stack.length > 0) {
      const id = stack.pop() ?? "";
      if (id === productId) throw new ValidationError("These inputs would make the product feed itself.", { inputProductIds: ["This would close a cycle in the lineage."] });
      if (seen.has(id)) continue;
      seen.add(id);
      stack.push(...(upstream.get(id) ?? []));
    }
    const before = (await tx.productInput.findMany({ where: { productId }, select: { inputProductId: true } })).map((e) => e.inputProductId);
    await tx.productInput.deleteMany({ where: { productId, inputProductId: { notIn: wanted } } });
    await tx.productInput.createMany({ data: wanted.filter((id) => !before.includes(id)).map((inputProductId) => ({ productId, inputProductId })) });
    const added = wanted.filter((id) => !before.includes(id));
    const removed = before.filter((id) => !wanted.includes(id));
    const name = (id: string) => inputs.find((p) => p.id === id)?.name ?? id;
    await recordAudit(tx, actor, "product.inputsChanged", "DataProduct", productId, { added: added.map(name), removed, inputs: wanted.map(name) });
    return { productId, inputProductIds: wanted };
  });
}
