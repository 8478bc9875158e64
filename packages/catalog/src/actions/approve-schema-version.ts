import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError, InvalidTransitionError } from "../errors.ts";
import { readerDomainIds } from "../major-versions.ts";
import { notify } from "../notifications/notify.ts";
import { hasGlobal } from "../permissions.ts";
import { registrySchemaId } from "../schema-registry/registry-ids.ts";
import { assertMayDecideSchemaVersion, EVOLVABLE_STATUSES, IncompatibleSchemaError, lockSchemaVersion, recheck, versionsOf } from "../schema-versions.ts";
import { approveSchemaVersionInput } from "../validation.ts";

/**
 * Governance approves a proposed schema version. The reviewer sends the
 * fingerprint of the version they opened, so an approval always names what
 * was looked at. The check runs again under the product's current mode; the
 * version gets its global registry id, and from then on the Schema Registry
 * API serves it and producers may register it.
 */
export async function approveSchemaVersion(db: Db, acting: ActingUser, schemaVersionId: string, rawInput: unknown) {
  const { comment, fingerprint } = parseInput(approveSchemaVersionInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "product:review")) throw new ForbiddenError("Only governance reviewers can approve schema versions.");
    const { version, product } = await lockSchemaVersion(tx, schemaVersionId);
    if (version.status !== "PENDING") throw new InvalidTransitionError("schema version", version.status, "approve");
    assertMayDecideSchemaVersion(actor, version);
    if (version.fingerprint !== fingerprint) {
      throw new ConflictError("The version you approve is not the one you opened; open it again.", "FINGERPRINT_MISMATCH", { fingerprint: ["Open the change before approving it."] });
    }
    if (!(EVOLVABLE_STATUSES as readonly string[]).includes(product.status)) throw new InvalidTransitionError("product", product.status, "approve a schema version for");
    const result = recheck(product, version.format, await versionsOf(tx, product.id), version);
    if (!result.compatible) throw new IncompatibleSchemaError(result, null);
    const schemaId = await registrySchemaId(tx, version.format, version.definition);
    const updated = await tx.schemaVersion.update({
      where: { id: version.id },
      data: { status: "APPROVED", decidedById: actor.id, decidedAt: new Date(), decisionReason: comment || null, schemaId },
    });
    await recordAudit(tx, actor, "schemaVersion.approved", "SchemaVersion", version.id, {
      product: product.topicName,
      version: version.version,
      schemaId,
      fingerprint,
      ...(comment ? { comment } : {}),
    });
    // The owners, and every domain that reads the product: their consumers meet the new schema id.
    await notify(tx, {
      kind: "schema.version-approved",
      title: `${product.name}: schema v${version.version} approved`,
      body: `Registry id ${schemaId}; producers may now write it. ${comment ?? ""}`.trim(),
      link: `/products/${product.id}/schema`,
      entityType: "SchemaVersion",
      entityId: version.id,
      audience: { domainMembers: [product.domainId, ...(await readerDomainIds(tx, product.id))] },
      exclude: [actor.id],
    });
    return updated;
  });
}
