import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, InvalidTransitionError } from "../errors.ts";
import { notify } from "../notifications/notify.ts";
import { hasGlobal } from "../permissions.ts";
import { assertMayDecideSchemaVersion, lockSchemaVersion } from "../schema-versions.ts";
import { reasonInput } from "../validation.ts";

/** Governance rejects a proposed schema version with a reason the owner reads; the version is kept as REJECTED. */
export async function rejectSchemaVersion(db: Db, acting: ActingUser, schemaVersionId: string, rawInput: unknown) {
  const { reason } = parseInput(reasonInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "product:review")) throw new ForbiddenError("Only governance reviewers can reject schema versions.");
    const { version, product } = await lockSchemaVersion(tx, schemaVersionId);
    if (version.status !== "PENDING") throw new InvalidTransitionError("schema version", version.status, "reject");
    assertMayDecideSchemaVersion(actor, version);
    const updated = await tx.schemaVersion.update({ where: { id: version.id }, data: { status: "REJECTED", decidedById: actor.id, decidedAt: new Date(), decisionReason: reason } });
    await recordAudit(tx, actor, "schemaVersion.rejected", "SchemaVersion", version.id, { product: product.topicName, version: version.version, reason });
    await notify(tx, {
      kind: "schema.version-rejected",
      title: `${product.name}: schema v${version.version} rejected`,
      body: reason,
      link: `/products/${product.id}/schema`,
      entityType: "SchemaVersion",
      entityId: version.id,
      audience: { domainOwners: [product.domainId], ...(version.proposedById ? { users: [version.proposedById] } : {}) },
      exclude: [actor.id],
    });
    return updated;
  });
}
