import type { Prisma } from "@prisma/client";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, InvalidTransitionError } from "../errors.ts";
import { notify } from "../notifications/notify.ts";
import { enforcePolicy, productFacts } from "../policies/enforce.ts";
import { lockProduct, requireDomainPermission } from "../product-access.ts";
import { checkAgainstApproved, EVOLVABLE_STATUSES, identicalVersion, IncompatibleSchemaError, newMajorOffer, requireValidDefinition, versionsOf } from "../schema-versions.ts";
import { proposeSchemaVersionInput } from "../validation.ts";

/**
 * An owner proposes the next schema version of a live product. It is checked
 * under the product's compatibility mode against the approved versions; a
 * compatible one waits for review (PENDING), a breaking one is refused with
 * its incompatibilities and the offer of a new major version. One proposal
 * at a time per product, and an identical schema is not a new version.
 */
export async function proposeSchemaVersion(db: Db, acting: ActingUser, productId: string, rawInput: unknown) {
  const { definition } = parseInput(proposeSchemaVersionInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const product = await lockProduct(tx, productId);
    requireDomainPermission(actor, "product:update", product.domainId, "Only owners of the product's domain can propose its schema versions.");
    if (!(EVOLVABLE_STATUSES as readonly string[]).includes(product.status)) throw new InvalidTransitionError("product", product.status, "propose a schema version for");
    const versions = await versionsOf(tx, productId);
    const format = versions[0]?.format ?? "AVRO";
    requireValidDefinition(format, definition);
    const pending = versions.find((v) => v.status === "PENDING");
    if (pending) throw new ConflictError(`Version ${pending.version} is waiting for review; one proposal at a time.`, "SCHEMA_VERSION_PENDING");
    const same = identicalVersion(versions, definition);
    if (same) throw new ConflictError(`This schema is identical to version ${same.version}: it is not a new version.`, "SCHEMA_UNCHANGED", { definition: [`Identical to version ${same.version}.`] });

    const version = (versions[versions.length - 1]?.version ?? 0) + 1;
    const check = checkAgainstApproved(product, format, versions, definition, version);
    if (!check.result.compatible) {
      const [domain, successor] = await Promise.all([
        tx.domain.findUniqueOrThrow({ where: { id: product.domainId }, select: { slug: true } }),
        tx.dataProduct.findUnique({ where: { predecessorId: product.id }, select: { id: true } }),
      ]);
      throw new IncompatibleSchemaError(check.result, newMajorOffer({ ...product, domain }, successor !== null));
    }
    // The schema rules (PII tags, compacted keys) on the new schema; only failures it introduces block it.
    const latest = versions.filter((v) => v.status === "APPROVED").at(-1) ?? null;
    const policy = await enforcePolicy(tx, actor, {
      event: "schema.version",
      entityType: "SchemaVersion",
      entityId: null,
      facts: { product: productFacts(product, { format, definition }) },
      baseline: { product: productFacts(product, latest) },
    });
    const compatibility = {
      mode: check.result.mode,
      checkedVersions: check.result.checkedVersions,
      issues: check.result.issues.map((i) => ({ ...i })),
      stricter: check.stricter.map((s) => ({ mode: s.mode, compatible: s.compatible, issueCount: s.issues.length })),
    } satisfies Prisma.InputJsonObject;
    const created = await tx.schemaVersion.create({
      data: { productId, version, format, definition, status: "PENDING", fingerprint: check.fingerprint, proposedById: actor.id, compatibility },
    });
    const evaluation = await policy.record(created.id);
    await recordAudit(tx, actor, "schemaVersion.proposed", "SchemaVersion", created.id, {
      product: product.topicName,
      policy: evaluation.summary,
      version,
      fingerprint: check.fingerprint,
      mode: check.result.mode,
      checkedVersions: check.result.checkedVersions,
    });
    await notify(tx, {
      kind: "schema.version-submitted",
      title: `${product.name}: schema v${version} waits for review`,
      body: `Proposed by ${actor.name}; ${check.result.mode} compatible with ${check.result.checkedVersions.map((v) => `v${v}`).join(", ") || "no earlier version"}.`,
      link: `/review/schema-versions/${created.id}`,
      entityType: "SchemaVersion",
      entityId: created.id,
      audience: { governance: true },
      webhookDomains: [product.domainId],
      exclude: [actor.id],
    });
    return created;
  });
}
