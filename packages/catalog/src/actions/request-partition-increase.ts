import { Prisma } from "@prisma/client";
import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import { CHANGE_KINDS, enforcePartitionPolicy, notifyChangeAwaitsReview } from "../changes/change-requests.ts";
import type { Db } from "../db.ts";
import { ConflictError, ValidationError } from "../errors.ts";
import { lockProduct, requireDomainPermission } from "../product-access.ts";
import { LIMITS, reasonInput } from "../validation.ts";

export const partitionIncreaseInput = z.object({
  partitions: z
    .number({ message: "Partitions must be a number." })
    .int("Partitions must be a whole number.")
    .max(LIMITS.partitionsMax, `At most ${LIMITS.partitionsMax} partitions.`),
  reason: reasonInput.shape.reason,
});

/**
 * An owner asks for more partitions on an ACTIVE product. Governance reviews
 * it like any change (four eyes), because it changes what consumers see: a
 * key's records go to `hash(key) % partitions`, so after the increase new
 * records of a key may land on another partition than its older ones — per-key
 * order holds only within the old and within the new records. Kafka cannot
 * remove partitions again.
 */
export async function requestPartitionIncrease(db: Db, acting: ActingUser, productId: string, rawInput: unknown) {
  const input = parseInput(partitionIncreaseInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const product = await lockProduct(tx, productId);
    requireDomainPermission(actor, "product:update", product.domainId, "Only owners of the product's domain can add partitions.");
    if (product.status !== "ACTIVE") {
      throw new ConflictError(`Partitions can only be added to an ACTIVE product; this one is ${product.status}.`, "PRODUCT_NOT_ACTIVE");
    }
    if (input.partitions <= product.partitions) {
      const message = `The product has ${product.partitions} partitions; ask for more (Kafka cannot remove partitions).`;
      throw new ValidationError(message, { partitions: [message] });
    }
    // The policy's partition bounds (not only the catalog's hard limit), before anyone reviews it.
    const policy = await enforcePartitionPolicy(tx, actor, product, input.partitions);
    try {
      const request = await tx.productChangeRequest.create({
        data: {
          productId,
          kind: CHANGE_KINDS.ADD_PARTITIONS,
          payload: { from: product.partitions, to: input.partitions },
          reason: input.reason,
          requestedById: actor.id,
        },
      });
      await recordAudit(tx, actor, "product.partitionIncreaseRequested", "DataProduct", productId, { from: product.partitions, to: input.partitions, reason: input.reason, changeRequestId: request.id, policy: (await policy.record()).summary });
      await notifyChangeAwaitsReview(tx, actor, { id: productId, name: product.name, domainId: product.domainId }, `${product.partitions} → ${input.partitions} partitions waits for review`, input.reason);
      return request;
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
        throw new ConflictError("A partition increase for this product is waiting for review already.", "CHANGE_PENDING");
      }
      throw error;
    }
  });
}
