import type { DataProduct, SchemaVersion } from "@prisma/client";
import type { Tx } from "./db.ts";
import { CatalogError, NotFoundError, ValidationError } from "./errors.ts";
import { assertFourEyes } from "./four-eyes.ts";
import { topicNameFor } from "./naming.ts";
import { lockProduct } from "./product-access.ts";
import { normalizedSchema, schemaFingerprint } from "./schema/canonical.ts";
import { checkCompatibility, compatibilityByMode, type CompatibilityResult } from "./schema/check-compatibility.ts";
import { diffSchemaFields, type FieldChange } from "./schema/field-diff.ts";
import { stricterModes, type CompatibilityMode } from "./schema/modes.ts";
import { schemaDefinitionProblem } from "./schema-definition.ts";

/*
 * Shared steps of the schema-version actions: what a proposal is checked
 * against, how it is refused, and what the owner is offered instead.
 */

/** Products whose schema may evolve: they exist on Kafka and are not retired. */
export const EVOLVABLE_STATUSES = ["ACTIVE", "DEPRECATED"] as const;

export type VersionRow = Pick<SchemaVersion, "id" | "version" | "definition" | "status" | "format">;

export async function versionsOf(tx: Tx, productId: string): Promise<VersionRow[]> {
  return tx.schemaVersion.findMany({ where: { productId }, orderBy: { version: "asc" }, select: { id: true, version: true, definition: true, status: true, format: true } });
}

/** The schema text must be valid for the product's format; refused as a field error otherwise. */
export function requireValidDefinition(format: "AVRO" | "JSON_SCHEMA", definition: string): void {
  const problem = schemaDefinitionProblem(format, definition);
  if (problem) throw new ValidationError("The schema needs attention.", { definition: [problem] });
}

/** The approved version with exactly this schema (whitespace and key order aside), if any. */
export function identicalVersion(versions: VersionRow[], definition: string): VersionRow | undefined {
  const normalized = normalizedSchema(definition);
  return versions.find((v) => v.status === "APPROVED" && normalizedSchema(v.definition) === normalized);
}

/** The offer made when a change breaks the mode: the next major version as a new product and topic. */
export function newMajorOffer(product: DataProduct & { domain: { slug: string } }, hasSuccessor: boolean) {
  if (hasSuccessor) return null;
  const majorVersion = product.majorVersion + 1;
  return { majorVersion, topicName: topicNameFor(product.domain.slug, product.slug, majorVersion) };
}

export interface VersionCheck {
  version: number;
  fingerprint: string;
  result: CompatibilityResult;
  /** The verdict under each mode stricter than the product's. */
  stricter: { mode: CompatibilityMode; compatible: boolean; issues: CompatibilityResult["issues"] }[];
  /** Field-level changes against the latest approved version. */
  fieldChanges: FieldChange[];
  againstVersion: number | null;
}

/** Checks a definition as version `version` of the product against its approved versions. */
export function checkAgainstApproved(product: Pick<DataProduct, "compatibilityMode">, format: "AVRO" | "JSON_SCHEMA", versions: VersionRow[], definition: string, version: number): VersionCheck {
  const approved = versions.filter((v) => v.status === "APPROVED" && v.version !== version).map((v) => ({ version: v.version, definition: v.definition }));
  const candidate = { version, definition };
  const mode = product.compatibilityMode;
  const all = compatibilityByMode({ format, candidate, previous: approved });
  const latest = approved[approved.length - 1];
  return {
    version,
    fingerprint: schemaFingerprint(format, definition),
    result: all[mode],
    stricter: stricterModes(mode).map((m) => ({ mode: m, compatible: all[m].compatible, issues: all[m].issues })),
    fieldChanges: latest ? diffSchemaFields(format, latest.definition, definition) : [],
    againstVersion: latest?.version ?? null,
  };
}

/** Re-checks under the product's current mode (used at approval: the mode may have changed since). */
export function recheck(product: Pick<DataProduct, "compatibilityMode">, format: "AVRO" | "JSON_SCHEMA", versions: VersionRow[], candidate: { version: number; definition: string }): CompatibilityResult {
  const approved = versions.filter((v) => v.status === "APPROVED" && v.version !== candidate.version).map((v) => ({ version: v.version, definition: v.definition }));
  return checkCompatibility({ format, mode: product.compatibilityMode, candidate, previous: approved });
}

/** A breaking change: 409 with every incompatibility and the new-major offer in `details`. */
export class IncompatibleSchemaError extends CatalogError {
  constructor(result: CompatibilityResult, offer: { majorVersion: number; topicName: string } | null) {
    const n = result.issues.length;
    super(
      "INCOMPATIBLE_SCHEMA",
      409,
      `The schema is not ${result.mode} compatible with ${result.checkedVersions.map((v) => `v${v}`).join(", ")}: ${n} incompatibilit${n === 1 ? "y" : "ies"}.` +
        (offer ? ` Publish it as a new major version (${offer.topicName}) instead.` : ""),
      { definition: result.issues.map((i) => i.message) },
      undefined,
      { mode: result.mode, checkedVersions: result.checkedVersions, issues: result.issues, newMajorVersion: offer },
    );
  }
}

/**
 * Locks a schema version and its product for the rest of the transaction
 * (product first, the order every schema action takes), so two decisions on
 * one version, or a decision and a new proposal, serialise.
 */
export async function lockSchemaVersion(tx: Tx, schemaVersionId: string) {
  const found = await tx.schemaVersion.findUnique({ where: { id: schemaVersionId }, select: { productId: true } });
  if (!found) throw new NotFoundError("Schema version", schemaVersionId);
  const product = await lockProduct(tx, found.productId);
  await tx.$queryRaw`SELECT id FROM "SchemaVersion" WHERE id = ${schemaVersionId} FOR UPDATE`;
  const version = await tx.schemaVersion.findUniqueOrThrow({ where: { id: schemaVersionId } });
  return { version, product };
}

/**
 * Four eyes on a schema version: the owner who proposed it does not decide
 * on it. (The security helper's editor rule extends this to everyone who
 * changed the proposal; a proposal cannot be edited, so its proposer is the one.)
 */
export function assertMayDecideSchemaVersion(actor: { id: string }, version: Pick<SchemaVersion, "proposedById">): void {
  // The shared four-eyes rule (four-eyes.ts): the proposer submitted the version.
  assertFourEyes(actor, { submittedById: version.proposedById }, "this schema version");
}
