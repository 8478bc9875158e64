import { parseInput } from "../action.ts";
import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { schemaDefinitionProblem } from "../schema-definition.ts";
import { checkAgainstApproved, EVOLVABLE_STATUSES, identicalVersion, newMajorOffer, versionsOf } from "../schema-versions.ts";
import { proposeSchemaVersionInput } from "../validation.ts";

/**
 * What proposing this schema would do, before anything is submitted: invalid,
 * identical to an approved version, compatible under the product's mode (and
 * under each stricter one), or refused with every incompatibility and the
 * new-major-version offer. Writes nothing.
 */
export async function checkSchemaVersion(db: Db, actor: Actor, productId: string, rawInput: unknown) {
  const { definition } = parseInput(proposeSchemaVersionInput, rawInput);
  return db.$transaction(async (tx) => {
    const product = await tx.dataProduct.findUnique({ where: { id: productId }, include: { domain: { select: { slug: true } }, successor: { select: { id: true, topicName: true } } } });
    if (!product) throw new NotFoundError("Data product", productId);
    if (!canInDomain(actor, "product:update", product.domainId) && !hasGlobal(actor, "product:review")) {
      throw new ForbiddenError("Only owners of the product's domain and governance reviewers can check its schema versions.");
    }
    const versions = await versionsOf(tx, productId);
    const format = versions[0]?.format ?? "AVRO";
    const proposedVersion = (versions[versions.length - 1]?.version ?? 0) + 1;
    const pending = versions.find((v) => v.status === "PENDING");
    const base = {
      productId,
      format,
      mode: product.compatibilityMode,
      proposedVersion,
      evolvable: (EVOLVABLE_STATUSES as readonly string[]).includes(product.status),
      status: product.status,
      pending: pending ? { id: pending.id, version: pending.version } : null,
      successor: product.successor,
    };
    const problem = schemaDefinitionProblem(format, definition);
    if (problem) return { ...base, valid: false as const, problem };
    const same = identicalVersion(versions, definition);
    if (same) return { ...base, valid: true as const, identicalTo: same.version };
    const check = checkAgainstApproved(product, format, versions, definition, proposedVersion);
    return {
      ...base,
      valid: true as const,
      identicalTo: null,
      compatible: check.result.compatible,
      checkedVersions: check.result.checkedVersions,
      issues: check.result.issues,
      stricter: check.stricter.map((s) => ({ mode: s.mode, compatible: s.compatible, issueCount: s.issues.length })),
      fieldChanges: check.fieldChanges,
      againstVersion: check.againstVersion,
      fingerprint: check.fingerprint,
      newMajorVersion: check.result.compatible ? null : newMajorOffer(product, product.successor !== null),
    };
  });
}
