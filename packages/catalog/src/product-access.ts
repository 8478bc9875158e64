import type { DataProduct, ProductStatus } from "@prisma/client";
import type { Actor } from "./actor.ts";
import type { Tx } from "./db.ts";
import { ConflictError, ForbiddenError, NotFoundError } from "./errors.ts";
import { canInDomain, type Permission } from "./permissions.ts";

/**
 * Locks the product row for the rest of the transaction, so two concurrent
 * decisions on one product serialise and the loser sees the winner's status.
 */
export async function lockProduct(tx: Tx, productId: string): Promise<DataProduct> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "DataProduct" WHERE id = ${productId} FOR UPDATE`;
  if (rows.length === 0) throw new NotFoundError("Data product", productId);
  const product = await tx.dataProduct.findUnique({ where: { id: productId } });
  if (!product) throw new NotFoundError("Data product", productId);
  return product;
}

export function requireDomainPermission(actor: Actor, permission: Permission, domainId: string, message: string): void {
  if (!canInDomain(actor, permission, domainId)) throw new ForbiddenError(message);
}

/** Sets a new status only if the row still has the one we decided from. */
export async function moveProductStatus(tx: Tx, product: DataProduct, to: ProductStatus, data: Partial<Omit<DataProduct, "migrationRules">> = {}) {
  const result = await tx.dataProduct.updateMany({ where: { id: product.id, status: product.status }, data: { ...data, status: to } });
  if (result.count !== 1) throw new ConflictError("The product changed while you were deciding; reload and try again.");
  return { ...product, ...data, status: to } satisfies DataProduct;
}
