import { Prisma } from "@prisma/client";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, InvalidTransitionError } from "../errors.ts";
import { readerDomainIds } from "../major-versions.ts";
import { topicNameFor, topicNameProblem } from "../naming.ts";
import { notify } from "../notifications/notify.ts";
import { enforcePolicy, productFacts } from "../policies/enforce.ts";
import { lockProduct, moveProductStatus, requireDomainPermission } from "../product-access.ts";
import { schemaFingerprint } from "../schema/canonical.ts";
import { EVOLVABLE_STATUSES, requireValidDefinition, versionsOf } from "../schema-versions.ts";
import { nextProductStatus } from "../transitions.ts";
import { publishMajorVersionInput } from "../validation.ts";

/**
 * A breaking change becomes a new major version instead of a silent break:
 * `<domain>.<product>.v<N+1>` is created as a new product linked to its
 * predecessor — same owner domain, metadata and mode copied, the new schema as
 * its version 1 — and goes to review and provisioning of its own. The current
 * version is deprecated with the sunset date the owner chose; its subscribers
 * see that on their subscription and can request the same access on the new
 * version in one step.
 */
export async function publishMajorVersion(db: Db, acting: ActingUser, productId: string, rawInput: unknown) {
  const input = parseInput(publishMajorVersionInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const current = await lockProduct(tx, productId);
    requireDomainPermission(actor, "product:update", current.domainId, "Only owners of the product's domain can publish its next major version.");
    if (!(EVOLVABLE_STATUSES as readonly string[]).includes(current.status)) throw new InvalidTransitionError("product", current.status, "publish a new major version of");
    const existing = await tx.dataProduct.findUnique({ where: { predecessorId: current.id }, select: { topicName: true } });
    if (existing) throw new ConflictError(`The next major version exists already: ${existing.topicName}.`, "SUCCESSOR_EXISTS");
    const versions = await versionsOf(tx, current.id);
    const format = versions[0]?.format ?? "AVRO";
    requireValidDefinition(format, input.definition);

    const domain = await tx.domain.findUniqueOrThrow({ where: { id: current.domainId } });
    const majorVersion = current.majorVersion + 1;
    const problem = topicNameProblem(`${domain.slug}.${current.slug}.v${majorVersion}`);
    if (problem) throw new ConflictError(problem, "INVALID_TOPIC_NAME");
    const topicName = topicNameFor(domain.slug, current.slug, majorVersion);
    // The new major version is a registration: the registration rules apply to it whole.
    const policy = await enforcePolicy(tx, actor, { event: "product.register", entityType: "DataProduct", entityId: null, facts: { product: productFacts(current, { format, definition: input.definition }) } });
    const now = new Date();
    let next;
    try {
      next = await tx.dataProduct.create({
        data: {
          domainId: current.domainId,
          name: current.name,
          slug: current.slug,
          description: current.description,
          classification: current.classification,
          tags: current.tags,
          freshnessSeconds: current.freshnessSeconds,
          availabilityPct: current.availabilityPct,
          partitions: current.partitions,
          retentionMs: current.retentionMs,
          cleanupPolicy: current.cleanupPolicy,
          tieredStorage: current.tieredStorage,
          localRetentionMs: current.localRetentionMs,
          contactEmail: current.contactEmail,
          keyFields: current.keyFields,
          compatibilityMode: current.compatibilityMode,
          majorVersion,
          topicName,
          predecessorId: current.id,
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

    const reason = input.reason ? `Superseded by ${topicName}: ${input.reason}` : `Superseded by ${topicName}.`;
    if (current.status === "ACTIVE") {
      await moveProductStatus(tx, current, nextProductStatus(current.status, "deprecate"), { sunsetAt: input.sunsetAt, decisionReason: reason });
    } else {
      await tx.dataProduct.update({ where: { id: current.id }, data: { sunsetAt: input.sunsetAt, decisionReason: reason } });
    }
    await recordAudit(tx, actor, "product.majorVersionPublished", "DataProduct", current.id, {
      successor: topicName,
      successorId: next.id,
      sunsetAt: input.sunsetAt.toISOString(),
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
      kind: "product.deprecated",
      title: `${current.name} v${current.majorVersion} is superseded by v${majorVersion}`,
      body: `Sunset ${input.sunsetAt.toISOString().slice(0, 10)}. ${topicName} replaces ${current.topicName}; request the same access on it from your subscription's page once it is approved.${input.reason ? ` ${input.reason}` : ""}`,
      link: "/my-domain",
      entityType: "DataProduct",
      entityId: current.id,
      audience: { domainMembers: [current.domainId, ...(await readerDomainIds(tx, current.id))] },
      exclude: [actor.id],
    });
    await notify(tx, {
      kind: "product.review-requested",
      title: `${next.name} v${majorVersion} waits for review`,
      body: `A new major version of ${current.topicName}, published by ${actor.name}.`,
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
