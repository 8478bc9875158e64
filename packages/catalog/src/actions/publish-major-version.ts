import { Prisma, type DataProduct, type SchemaVersion } from "@prisma/client";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import type { Db, Tx } from "../db.ts";
import { ConflictError, InvalidTransitionError, ValidationError } from "../errors.ts";
import { policyNoticeDays, readerDomainIds } from "../major-versions.ts";
import { topicNameFor, topicNameProblem } from "../naming.ts";
import { notify } from "../notifications/notify.ts";
import { enforcePolicy, productFacts } from "../policies/enforce.ts";
import { activePolicy } from "../policies/store.ts";
import { lockProduct, moveProductStatus, requireDomainPermission } from "../product-access.ts";
import { checkMigrationRules, type MigrationRules } from "../quality/migration-rules.ts";
import { hasEncryptableFields } from "../quality/registry-rules.ts";
import { checkQualityRules, qualityLimitsFromPolicy, type QualityRule } from "../quality/rules.ts";
import { MARK_PII_FIRST, NOTHING_TO_ENCRYPT, qualityRulesOf, replaceQualityRules } from "../quality/store.ts";
import { schemaFingerprint } from "../schema/canonical.ts";
import { EVOLVABLE_STATUSES, requireValidDefinition, versionsOf } from "../schema-versions.ts";
import { nextProductStatus } from "../transitions.ts";
import { publishMajorVersionInput } from "../validation.ts";

/** What a contract file may set on the new version besides its schema (the rest is copied from the current one). */
export interface MajorVersionSettings {
  name: string;
  description: string;
  classification: DataProduct["classification"];
  tags: string[];
  freshnessSeconds: number;
  availabilityPct: number;
  partitions: number;
  retentionMs: number;
  cleanupPolicy: DataProduct["cleanupPolicy"];
  tieredStorage: boolean;
  localRetentionMs: number;
  contactEmail: string;
  keyFields: string[];
}

export interface PublishMajorVersionOptions {
  /** From `kappa apply`: the contract's fields, so everything in the file carries into the new version. */
  settings?: Partial<MajorVersionSettings>;
  /** The new version's schema format (a contract may change it); default: the current version's. */
  format?: SchemaVersion["format"];
  contractSource?: string;
  /** From `kappa apply`: the contract's data-quality rules and field encryption for the new version (checked against its schema). */
  quality?: { rules: readonly QualityRule[]; encryptPii: boolean };
}

/**
 * A breaking change becomes a new major version instead of a silent break:
 * `<domain>.<product>.v<N+1>` is created as a new product linked to its
 * predecessor — same owner domain, metadata and mode copied (or the contract's
 * fields), the new schema as its version 1, the data-quality rules and field
 * encryption that still fit the new schema (or the contract's) — and goes to review and
 * provisioning of its own. The current version is not touched: it is
 * deprecated only when governance approves the new one (approve-product.ts,
 * `supersedePredecessor`), with the sunset date the owner chose here or the
 * policy's notice; a rejected new version leaves it exactly as it was.
 */
export async function publishMajorVersion(db: Db, acting: ActingUser, productId: string, rawInput: unknown, options: PublishMajorVersionOptions = {}) {
  const input = parseInput(publishMajorVersionInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const current = await lockProduct(tx, productId);
    requireDomainPermission(actor, "product:update", current.domainId, "Only owners of the product's domain can publish its next major version.");
    if (!(EVOLVABLE_STATUSES as readonly string[]).includes(current.status)) throw new InvalidTransitionError("product", current.status, "publish a new major version of");
    const existing = await tx.dataProduct.findUnique({ where: { predecessorId: current.id }, select: { topicName: true } });
    if (existing) throw new ConflictError(`The next major version exists already: ${existing.topicName}.`, "SUCCESSOR_EXISTS");
    const versions = await versionsOf(tx, current.id);
    const format = options.format ?? versions[0]?.format ?? "AVRO";
    requireValidDefinition(format, input.definition);

    const domain = await tx.domain.findUniqueOrThrow({ where: { id: current.domainId } });
    const majorVersion = current.majorVersion + 1;
    const problem = topicNameProblem(`${domain.slug}.${current.slug}.v${majorVersion}`);
    if (problem) throw new ConflictError(problem, "INVALID_TOPIC_NAME");
    const topicName = topicNameFor(domain.slug, current.slug, majorVersion);
    const s = options.settings ?? {};
    const fields = {
      name: s.name ?? current.name,
      description: s.description ?? current.description,
      classification: s.classification ?? current.classification,
      tags: s.tags ?? current.tags,
      freshnessSeconds: s.freshnessSeconds ?? current.freshnessSeconds,
      availabilityPct: s.availabilityPct !== undefined ? new Prisma.Decimal(s.availabilityPct) : current.availabilityPct,
      partitions: s.partitions ?? current.partitions,
      retentionMs: s.retentionMs !== undefined ? BigInt(s.retentionMs) : current.retentionMs,
      cleanupPolicy: s.cleanupPolicy ?? current.cleanupPolicy,
      tieredStorage: s.tieredStorage ?? current.tieredStorage,
      localRetentionMs: s.localRetentionMs !== undefined ? BigInt(s.localRetentionMs) : current.localRetentionMs,
      contactEmail: s.contactEmail ?? current.contactEmail,
      keyFields: s.keyFields ?? current.keyFields,
    };
    const migrationRules = input.migrationRules ? await migrationRulesForSuccessor(input.migrationRules, versions, { format, definition: input.definition }, current.majorVersion) : null;
    const quality = await qualityForSuccessor(tx, current, { format, definition: input.definition }, options.quality);
    // The new major version is a registration: the registration rules apply to it whole.
    const policy = await enforcePolicy(tx, actor, { event: "product.register", entityType: "DataProduct", entityId: null, facts: { product: productFacts({ ...current, ...fields }, { format, definition: input.definition }) } });
    const now = new Date();
    let next;
    try {
      next = await tx.dataProduct.create({
        data: {
          domainId: current.domainId,
          slug: current.slug,
          ...fields,
          compatibilityMode: current.compatibilityMode,
          encryptPii: quality.encryptPii,
          ...(migrationRules ? { migrationRules: { ...migrationRules } } : {}),
          majorVersion,
          topicName,
          predecessorId: current.id,
          supersedeSunsetAt: input.sunsetAt ?? null,
          supersedeReason: input.reason ?? null,
          ...(options.contractSource ? { contractSource: options.contractSource, contractAppliedAt: now } : {}),
          // Publishing is the owner's submission: the new version goes straight to review.
          status: "IN_REVIEW",
          createdById: actor.id,
          submittedById: actor.id,
          submittedAt: now,
          schemaVersions: {
            create: { version: 1, format, definition: input.definition, fingerprint: schemaFingerprint(format, input.definition), proposedById: actor.id },
          },
        },
      });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
        throw new ConflictError(`Topic ${topicName} is taken by another product.`, "DUPLICATE_PRODUCT");
      }
      throw error;
    }
    await replaceQualityRules(tx, next.id, quality.rules);

    await recordAudit(tx, actor, "product.majorVersionPublished", "DataProduct", current.id, {
      successor: topicName,
      successorId: next.id,
      qualityRules: quality.rules.map((r) => r.name),
      ...(quality.leftBehind.length > 0 ? { qualityRulesLeftBehind: quality.leftBehind } : {}),
      encryptPii: quality.encryptPii,
      ...(migrationRules ? { migrationRules: migrationRules.upgrade ? ["DOWNGRADE", "UPGRADE"] : ["DOWNGRADE"] } : {}),
      // Nothing changes on this version until the successor is approved.
      sunsetAt: input.sunsetAt ? input.sunsetAt.toISOString() : "policy default, from the approval",
      ...(input.reason ? { reason: input.reason } : {}),
    });
    const evaluation = await policy.record(next.id);
    await recordAudit(tx, actor, "product.registered", "DataProduct", next.id, {
      name: next.name,
      domain: domain.slug,
      topic: topicName,
      classification: next.classification,
      predecessor: current.topicName,
      policy: evaluation.summary,
    });
    await recordAudit(tx, actor, "product.submitted", "DataProduct", next.id, { from: "DRAFT", to: "IN_REVIEW" });
    await notify(tx, {
      kind: "product.review-requested",
      title: `${next.name} v${majorVersion} waits for review`,
      body: `A new major version of ${current.topicName}, published by ${actor.name}. ${current.topicName} is deprecated only when you approve it.`,
      link: `/review/products/${next.id}`,
      entityType: "DataProduct",
      entityId: next.id,
      audience: { governance: true },
      webhookDomains: [current.domainId],
      exclude: [actor.id],
    });
    return next;
  });
}

/**
 * The migration rules stated with the new version, checked against the current
 * version's newest approved schema (the one its consumers read) and the new
 * schema: see checkMigrationRules. They need both in the same format.
 */
async function migrationRulesForSuccessor(
  raw: unknown,
  versions: readonly { status: string; format: SchemaVersion["format"]; definition: string }[],
  next: { format: SchemaVersion["format"]; definition: string },
  currentMajor: number,
): Promise<MigrationRules> {
  const previous = versions.findLast((v) => v.status === "APPROVED");
  if (!previous) throw new ValidationError("Migration rules need an approved schema of the current version.", { migrationRules: ["The current version has no approved schema to migrate to."] });
  if (previous.format !== next.format) throw new ValidationError("Migration rules need both versions in one schema format.", { migrationRules: [`The current version's schema is ${previous.format}, the new one ${next.format}.`] });
  return checkMigrationRules(raw, { format: next.format, previous: previous.definition, next: next.definition, previousMajor: currentMajor, nextMajor: currentMajor + 1 });
}

/**
 * The new version's data-quality rules and field encryption. A contract states
 * them: checked against the new schema and the policy, and a rule that does not
 * fit refuses the publication (nothing is written). Otherwise the current
 * version's carry over — the contract of the data does not lapse with a
 * breaking schema change — except a rule that no longer fits the new schema
 * (it names a field the schema dropped, say), which is left behind and named in
 * the audit; encryption carries over while the new schema has PII fields.
 * Governance sees the rules with the new version in its review.
 */
async function qualityForSuccessor(tx: Tx, current: DataProduct, schema: { format: SchemaVersion["format"]; definition: string }, stated: PublishMajorVersionOptions["quality"]): Promise<{ rules: QualityRule[]; encryptPii: boolean; leftBehind: string[] }> {
  const limits = qualityLimitsFromPolicy((await activePolicy(tx)).document);
  const encryptable = hasEncryptableFields(schema.format, schema.definition);
  if (stated) {
    checkQualityRules(stated.rules, schema, limits);
    if (stated.encryptPii && !encryptable) throw new ValidationError(NOTHING_TO_ENCRYPT, { encryptPii: [MARK_PII_FIRST] });
    return { rules: [...stated.rules], encryptPii: stated.encryptPii, leftBehind: [] };
  }
  const rules: QualityRule[] = [];
  const leftBehind: string[] = [];
  for (const rule of await qualityRulesOf(tx, current.id)) {
    try {
      checkQualityRules([rule], schema, limits);
      rules.push(rule);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      leftBehind.push(rule.name);
    }
  }
  return { rules, encryptPii: current.encryptPii && encryptable, leftBehind };
}

/**
 * Called when governance approves a new major version: its predecessor, if
 * still live, is deprecated now — with the sunset the owner set when
 * publishing (or, when none was set or it has passed, the policy's notice from
 * today) — and the predecessor's domain and its readers are told.
 */
export async function supersedePredecessor(tx: Tx, actor: Actor, successor: DataProduct): Promise<void> {
  if (!successor.predecessorId) return;
  const current = await lockProduct(tx, successor.predecessorId);
  if (current.status !== "ACTIVE" && current.status !== "DEPRECATED") return;
  const policy = await activePolicy(tx);
  const now = Date.now();
  let sunsetAt = successor.supersedeSunsetAt && successor.supersedeSunsetAt.getTime() > now ? successor.supersedeSunsetAt : new Date(now + policyNoticeDays(policy.document) * 86_400_000);
  const reason = successor.supersedeReason ? `Superseded by ${successor.topicName}: ${successor.supersedeReason}` : `Superseded by ${successor.topicName}.`;
  if (current.status === "ACTIVE") {
    await moveProductStatus(tx, current, nextProductStatus(current.status, "deprecate"), { sunsetAt, decisionReason: reason });
    await recordAudit(tx, actor, "product.deprecated", "DataProduct", current.id, { from: current.status, to: "DEPRECATED", reason, sunsetAt: sunsetAt.toISOString(), successor: successor.topicName });
  } else if (current.sunsetAt) {
    // Deprecated by its owners already: their sunset stands.
    sunsetAt = current.sunsetAt;
  }
  await notify(tx, {
    kind: "product.deprecated",
    title: `${current.name} v${current.majorVersion} is superseded by v${successor.majorVersion}`,
    body: `Sunset ${sunsetAt.toISOString().slice(0, 10)}. ${successor.topicName} replaces ${current.topicName}; request the same access on it from your subscription's page.${successor.supersedeReason ? ` ${successor.supersedeReason}` : ""}`,
    link: "/my-domain",
    entityType: "DataProduct",
    entityId: current.id,
    audience: { domainMembers: [current.domainId, ...(await readerDomainIds(tx, current.id))] },
    exclude: [actor.id],
    data: { reason, sunsetAt: sunsetAt.toISOString() },
  });
}
