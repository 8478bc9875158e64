import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import { READING_STATUSES } from "../major-versions.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { migrationRulesOf } from "../quality/migration-rules.ts";
import { qualityRulesOf } from "../quality/store.ts";
import { checkCompatibility } from "../schema/check-compatibility.ts";
import { diffSchemaFields } from "../schema/field-diff.ts";
import { piiFieldPaths } from "../schema/pii.ts";
import { checkAgainstApproved, versionsOf } from "../schema-versions.ts";
import { topicConfigs } from "../tasks.ts";

type UserRef = { id: string; name: string; email: string } | null;

async function usersById(db: Db, ids: (string | null | undefined)[]) {
  const wanted = [...new Set(ids.filter((x): x is string => !!x))];
  const users = await db.user.findMany({ where: { id: { in: wanted } }, select: { id: true, name: true, email: true } });
  return (id: string | null | undefined): UserRef => users.find((u) => u.id === id) ?? null;
}

/** Who reads a product now: subscriptions that are approved or active, with their domains and accounts. */
async function readersOf(db: Db, productId: string) {
  return db.subscription.findMany({
    where: { productId, status: { in: [...READING_STATUSES] } },
    orderBy: { createdAt: "asc" },
    select: { id: true, status: true, consumingDomain: { select: { slug: true, name: true } }, serviceAccount: { select: { name: true } } },
  });
}

/** Schema versions waiting for governance, oldest first. */
export async function pendingSchemaVersions(db: Db, actor: Actor) {
  if (!hasGlobal(actor, "product:review")) return [];
  const versions = await db.schemaVersion.findMany({
    where: { status: "PENDING", version: { gt: 1 } },
    orderBy: { createdAt: "asc" },
    include: { product: { select: { id: true, name: true, topicName: true, compatibilityMode: true, status: true, domain: { select: { slug: true, name: true } } } } },
  });
  const who = await usersById(db, versions.map((v) => v.proposedById));
  return versions.map((v) => ({
    id: v.id,
    version: v.version,
    createdAt: v.createdAt,
    product: v.product,
    proposedBy: who(v.proposedById),
    compatibility: v.compatibility,
    mine: v.proposedById === actor.id,
  }));
}

/**
 * Everything a reviewer needs to decide on a proposed schema version: the
 * field-level change against the current version, the verdict under the
 * product's mode and each stricter one (computed now), and which active
 * subscriptions read the product — flagged when the new version is not
 * FORWARD compatible, i.e. their consumers, still on the current schema,
 * could not read what the producer will write.
 */
export async function schemaVersionReview(db: Db, actor: Actor, schemaVersionId: string) {
  const version = await db.schemaVersion.findUnique({
    where: { id: schemaVersionId },
    include: { product: { include: { domain: { select: { slug: true, name: true } } } } },
  });
  if (!version) throw new NotFoundError("Schema version", schemaVersionId);
  const product = version.product;
  if (!hasGlobal(actor, "product:review") && !canInDomain(actor, "product:update", product.domainId)) {
    throw new ForbiddenError("Only governance reviewers and the product's owners can open a schema version's review.");
  }
  const versions = await db.$transaction((tx) => versionsOf(tx, product.id));
  const check = checkAgainstApproved(product, version.format, versions, version.definition, version.version);
  const earlier = versions.filter((v) => v.status === "APPROVED" && v.version < version.version);
  const current = earlier[earlier.length - 1] ?? null;
  const forward = current
    ? checkCompatibility({ format: version.format, mode: "FORWARD", candidate: { version: version.version, definition: version.definition }, previous: [{ version: current.version, definition: current.definition }] })
    : null;
  const [readers, who] = await Promise.all([readersOf(db, product.id), usersById(db, [version.proposedById, version.decidedById])]);
  return {
    id: version.id,
    version: version.version,
    status: version.status,
    format: version.format,
    definition: version.definition,
    fingerprint: check.fingerprint,
    createdAt: version.createdAt,
    proposedBy: who(version.proposedById),
    decidedBy: who(version.decidedById),
    decidedAt: version.decidedAt,
    decisionReason: version.decisionReason,
    schemaId: version.schemaId,
    pii: piiFieldPaths(version.format, version.definition),
    product: { id: product.id, name: product.name, topicName: product.topicName, status: product.status, classification: product.classification, compatibilityMode: product.compatibilityMode, domain: product.domain },
    current: current ? { version: current.version, definition: current.definition } : null,
    fieldChanges: check.fieldChanges,
    verdict: { mode: check.result.mode, compatible: check.result.compatible, checkedVersions: check.result.checkedVersions, issues: check.result.issues },
    stricter: check.stricter,
    readers: readers.map((r) => ({ ...r, breaks: forward !== null && !forward.compatible })),
    forwardIssues: forward?.issues ?? [],
    mine: version.proposedById === actor.id,
  };
}

/**
 * A product in review, whole: its schema with the PII it declares, its topic
 * configs, classification and SLA, its data-quality rules and field
 * encryption; for a new major version also the change
 * from its predecessor's current schema and who reads the predecessor now.
 */
export async function productReview(db: Db, actor: Actor, productId: string) {
  const product = await db.dataProduct.findUnique({
    where: { id: productId },
    include: {
      domain: { select: { slug: true, name: true } },
      schemaVersions: { orderBy: { version: "desc" }, take: 1 },
      predecessor: { select: { id: true, name: true, topicName: true, status: true, sunsetAt: true, schemaVersions: { where: { status: "APPROVED" }, orderBy: { version: "desc" }, take: 1 } } },
    },
  });
  if (!product) throw new NotFoundError("Data product", productId);
  if (!hasGlobal(actor, "product:review") && !canInDomain(actor, "product:update", product.domainId)) {
    throw new ForbiddenError("Only governance reviewers and the product's owners can open a product's review.");
  }
  const schema = product.schemaVersions[0] ?? null;
  const previous = product.predecessor?.schemaVersions[0] ?? null;
  const [predecessorReaders, who, derived, inputs, rules] = await Promise.all([
    product.predecessor ? readersOf(db, product.predecessor.id) : Promise.resolve([]),
    usersById(db, [product.createdById, product.submittedById]),
    // A derived product (issue 34): governance reviews the statement and the inputs it reads, with their owning domains.
    db.derivedProduct.findUnique({ where: { productId }, select: { statement: true } }),
    db.productInput.findMany({ where: { productId }, orderBy: { createdAt: "asc" }, select: { input: { select: { id: true, name: true, topicName: true, domain: { select: { slug: true, name: true } } } } } }),
    // The contract on the data (issue 29): a draft's rules, or those a new major version carries, are decided with the product.
    qualityRulesOf(db, productId),
  ]);
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    topicName: product.topicName,
    status: product.status,
    classification: product.classification,
    tags: product.tags,
    freshnessSeconds: product.freshnessSeconds,
    availabilityPct: product.availabilityPct,
    partitions: product.partitions,
    compatibilityMode: product.compatibilityMode,
    contactEmail: product.contactEmail,
    domain: product.domain,
    configs: topicConfigs(product),
    createdBy: who(product.createdById),
    submittedBy: who(product.submittedById),
    submittedAt: product.submittedAt,
    schema: schema ? { version: schema.version, format: schema.format, definition: schema.definition, pii: piiFieldPaths(schema.format, schema.definition) } : null,
    predecessor: product.predecessor
      ? {
          id: product.predecessor.id,
          name: product.predecessor.name,
          topicName: product.predecessor.topicName,
          status: product.predecessor.status,
          sunsetAt: product.predecessor.sunsetAt,
          currentVersion: previous?.version ?? null,
          currentDefinition: previous?.definition ?? null,
          fieldChanges: previous && schema && previous.format === schema.format ? diffSchemaFields(schema.format, previous.definition, schema.definition) : [],
          readers: predecessorReaders,
        }
      : null,
    derived: derived ? { statement: derived.statement, inputs: inputs.map((i) => i.input) } : null,
    quality: { rules, encryptPii: product.encryptPii },
    /** A new major version's JSONata migration rules (DOWNGRADE to the predecessor's shape, optional UPGRADE), decided with it. */
    migrationRules: migrationRulesOf(product.migrationRules),
    mine: product.createdById === actor.id || product.submittedById === actor.id,
  };
}
