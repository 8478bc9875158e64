import { Prisma } from "@prisma/client";
import type { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import type { Db, Tx } from "../db.ts";
import { assertTieredStorageOffered } from "../environments/deployments.ts";
import { ConflictError, InvalidTransitionError, ValidationError } from "../errors.ts";
import { withEditor } from "../four-eyes.ts";
import { slugify, topicNameFor } from "../naming.ts";
import { enforcePolicy, productFacts } from "../policies/enforce.ts";
import { lockProduct, requireDomainPermission } from "../product-access.ts";
import { FULLY_EDITABLE_STATUSES, METADATA_EDITABLE_STATUSES } from "../transitions.ts";
import { updateProductInput } from "../validation.ts";

/** Fields that describe the product; they may change at any time before retirement. */
const METADATA_FIELDS = new Set(["description", "tags", "freshnessSeconds", "availabilityPct", "contactEmail"]);

/** Where a change that an edit cannot make goes instead. */
function lockedFieldMessage(field: string, status: string): string {
  if (field === "schema") return `Cannot change the schema of a ${status} product here; propose a new schema version (reviewed), or publish a new major version for a breaking change.`;
  if (field === "compatibilityMode") return `Cannot change the compatibility mode of a ${status} product here; request a reviewed change with a reason on its schema versions page.`;
  return `Cannot change ${field} of a ${status} product; publish a new major version instead.`;
}

/**
 * Edits a product. Before approval everything may change (a REJECTED product
 * returns to DRAFT); once it exists on Kafka only descriptive metadata may, since
 * the topic's shape changes through a new major version, not an edit.
 */
export async function updateProduct(db: Db, acting: ActingUser, productId: string, rawInput: unknown) {
  const input = parseInput(updateProductInput, rawInput);
  return inTransaction(db, acting, (tx, actor) => updateProductInTx(tx, actor, productId, input));
}

/** The edit inside a caller's transaction (contract apply). */
export async function updateProductInTx(tx: Tx, actor: Actor, productId: string, input: z.output<typeof updateProductInput>, extra: { contractSource?: string } = {}) {
  const product = await lockProduct(tx, productId);
  requireDomainPermission(actor, "product:update", product.domainId, "Only owners of the product's domain can edit it.");
  if (!METADATA_EDITABLE_STATUSES.includes(product.status)) throw new InvalidTransitionError("product", product.status, "edit");
  const latestSchema = await tx.schemaVersion.findFirst({ where: { productId }, orderBy: { version: "desc" } });
  // A client may send a whole form back: values equal to the stored ones are no change.
  const current: Record<string, unknown> = {
    ...product,
    retentionMs: Number(product.retentionMs),
    localRetentionMs: Number(product.localRetentionMs),
    availabilityPct: product.availabilityPct.toNumber(),
    schema: latestSchema ? { format: latestSchema.format, definition: latestSchema.definition } : undefined,
  };
  const changed = Object.keys(input).filter((k) => {
    const value = input[k as keyof typeof input];
    return value !== undefined && JSON.stringify(value) !== JSON.stringify(current[k]);
  });
  if (changed.length === 0) throw new ValidationError("Nothing to change.");
  const fullyEditable = FULLY_EDITABLE_STATUSES.includes(product.status);
  const locked = changed.filter((k) => !METADATA_FIELDS.has(k));
  if (!fullyEditable && locked.length > 0) {
    const fields = Object.fromEntries(locked.map((k) => [k, [lockedFieldMessage(k, product.status)]]));
    throw new ConflictError(`Only the description, tags, SLA and contact of a ${product.status} product can change.`, "FIELD_LOCKED", fields);
  }
  // Cross-field rules must hold for the merged result, not just the patch.
  const merged = {
    cleanupPolicy: input.cleanupPolicy ?? product.cleanupPolicy,
    tieredStorage: input.tieredStorage ?? product.tieredStorage,
    retentionMs: input.retentionMs ?? Number(product.retentionMs),
    localRetentionMs: input.localRetentionMs ?? Number(product.localRetentionMs),
  };
  parseInput(updateProductInput, merged);
  // Turning tiered storage on where the cluster has none is refused; a product already tiered may still change other fields.
  if (input.tieredStorage === true && !product.tieredStorage) await assertTieredStorageOffered(tx, true);
  const before = productFacts(product, latestSchema);
  const after = {
    name: input.name ?? before.name,
    description: input.description ?? before.description,
    contactEmail: input.contactEmail ?? before.contactEmail,
    classification: input.classification ?? before.classification,
    partitions: input.partitions ?? before.partitions,
    retentionMs: merged.retentionMs,
    cleanupPolicy: merged.cleanupPolicy,
    tieredStorage: merged.tieredStorage,
    keyFields: input.keyFields ?? before.keyFields,
    schema: input.schema ?? before.schema,
  };
  const policy = await enforcePolicy(tx, actor, {
    event: "product.update",
    entityType: "DataProduct",
    entityId: productId,
    facts: { product: after },
    baseline: { product: before },
  });

  const patch = Object.fromEntries(changed.map((k) => [k, input[k as keyof typeof input]])) as typeof input;
  const { schema, name, retentionMs, localRetentionMs, availabilityPct, ...rest } = patch;
  // Four eyes: whoever changes a product may not be the one who approves it.
  const data: Prisma.DataProductUpdateInput = { ...rest, editorIds: withEditor(product.editorIds, actor.id) };
  if (retentionMs !== undefined) data.retentionMs = BigInt(retentionMs);
  if (localRetentionMs !== undefined) data.localRetentionMs = BigInt(localRetentionMs);
  if (availabilityPct !== undefined) data.availabilityPct = new Prisma.Decimal(availabilityPct);
  if (name !== undefined && name !== product.name) {
    const domain = await tx.domain.findUniqueOrThrow({ where: { id: product.domainId } });
    data.name = name;
    data.slug = slugify(name);
    data.topicName = topicNameFor(domain.slug, data.slug, product.majorVersion);
  }
  if (product.status === "REJECTED") data.status = "DRAFT";
  if (extra.contractSource) {
    data.contractSource = extra.contractSource;
    data.contractAppliedAt = new Date();
  }
  if (schema) {
    // Before approval the draft's pending schema is replaced; versions count approved history.
    if (latestSchema && latestSchema.status !== "APPROVED") {
      await tx.schemaVersion.update({ where: { id: latestSchema.id }, data: { format: schema.format, definition: schema.definition, status: "PENDING", decidedById: null, decidedAt: null, decisionReason: null } });
    } else {
      await tx.schemaVersion.create({ data: { productId, version: (latestSchema?.version ?? 0) + 1, format: schema.format, definition: schema.definition } });
    }
  }
  try {
    const updated = await tx.dataProduct.update({ where: { id: productId }, data });
    const evaluation = await policy.record();
    await recordAudit(tx, actor, "product.updated", "DataProduct", productId, { fields: changed, policy: evaluation.summary });
    return updated;
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      const message = `Another product already uses the name "${name}" in this domain.`;
      throw new ConflictError(message, "DUPLICATE_PRODUCT", { name: [message] });
    }
    throw error;
  }
}
