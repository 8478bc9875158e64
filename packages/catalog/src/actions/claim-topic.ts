import { Prisma } from "@prisma/client";
import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors.ts";
import { slugify } from "../naming.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { enforcePolicy } from "../policies/enforce.ts";
import { registerProductInput } from "../validation.ts";

/** Kafka's and the ecosystem's own topics are never products. */
export const PLATFORM_TOPIC = /^(__|_schemas$|_confluent|connect-(configs|offsets|status)$|kappa[._-])/;

export const claimTopicInput = z.object({ topic: z.string().max(249).trim().min(1) }).and(registerProductInput);

/**
 * The domain whose namespace a topic name lies in: the one with the longest
 * slug that the name starts with, followed by ".", "-" or "_" (a longer slug
 * owns its namespace inside a shorter one's, as with account names), or null.
 */
export function namespaceOwner<D extends { slug: string }>(topic: string, domains: readonly D[]): D | null {
  let best: D | null = null;
  for (const d of domains) {
    const inside = topic === d.slug || [".", "-", "_"].some((sep) => topic.startsWith(`${d.slug}${sep}`));
    if (inside && (!best || d.slug.length > best.slug.length)) best = d;
  }
  return best;
}

/**
 * "Claim as data product": an owner registers a product over a topic that
 * already exists on the cluster and no product owns. The product is an ordinary
 * DRAFT (review, policies and four eyes as usual) whose topic name is the
 * existing one; on approval the worker adopts it without recreating it — data
 * kept, partitions grown only, configs set to the approved ones. The ACL
 * bindings found on the topic are kept with the claim for the reviewer, who
 * decides which to remove (decideClaimAcls).
 */
export async function claimTopic(db: Db, acting: ActingUser, rawInput: unknown) {
  const input = parseInput(claimTopicInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    const domain = await tx.domain.findUnique({ where: { id: input.domainId } });
    if (!domain || !canInDomain(actor, "product:create", domain.id)) throw new ForbiddenError("Only owners of a domain can claim topics for it.");
    if (domain.archivedAt) throw new ConflictError(`The ${domain.name} domain is archived and takes no new products.`, "DOMAIN_ARCHIVED");
    if (PLATFORM_TOPIC.test(input.topic)) throw new ValidationError(`${input.topic} belongs to Kafka or the platform and cannot become a data product.`, { topic: ["A platform topic cannot be claimed."] });
    // A topic under another domain's prefix is that domain's to claim (issue 30, finding 11): an owner
    // elsewhere claiming it first would block the domain's own claim. Admins may assign it.
    const prefixOwner = namespaceOwner(input.topic, await tx.domain.findMany({ select: { id: true, slug: true } }));
    if (prefixOwner && prefixOwner.id !== domain.id && !hasGlobal(actor, "platform:admin")) {
      const message = `${input.topic} lies under the ${prefixOwner.slug} domain's prefix ("${prefixOwner.slug}."); only that domain's owners or a platform admin can claim it.`;
      throw new ForbiddenError(message);
    }
    const observed = await tx.clusterTopic.findUnique({ where: { name: input.topic } });
    if (!observed) throw new NotFoundError("Topic on the cluster", input.topic);
    const owner = await tx.dataProduct.findUnique({ where: { topicName: input.topic }, select: { id: true, status: true } });
    if (owner || observed.productId) throw new ConflictError(`${input.topic} belongs to a data product already.`, "TOPIC_MANAGED");
    if (input.partitions < observed.partitions) {
      const message = `The topic has ${observed.partitions} partitions; Kafka cannot remove any, so ask for at least ${observed.partitions}.`;
      throw new ValidationError(message, { partitions: [message] });
    }
    const slug = slugify(input.name);
    const { schema, domainId: _domainId, topic, ...fields } = input;
    const policy = await enforcePolicy(tx, actor, { event: "product.register", entityType: "DataProduct", entityId: null, facts: { product: { ...fields, schema } } });
    try {
      const product = await tx.dataProduct.create({
        data: {
          ...fields,
          domainId: domain.id,
          slug,
          majorVersion: 1,
          topicName: topic,
          retentionMs: BigInt(fields.retentionMs),
          localRetentionMs: BigInt(fields.localRetentionMs),
          availabilityPct: new Prisma.Decimal(fields.availabilityPct),
          createdById: actor.id,
          schemaVersions: { create: { version: 1, format: schema.format, definition: schema.definition } },
          claim: { create: { topic, foundAcls: observed.acls ?? [] } },
        },
      });
      const evaluation = await policy.record(product.id);
      await recordAudit(tx, actor, "product.claimed", "DataProduct", product.id, {
        name: product.name,
        domain: domain.slug,
        topic,
        existingPartitions: observed.partitions,
        existingAcls: Array.isArray(observed.acls) ? observed.acls.length : 0,
        policy: evaluation.summary,
      });
      return product;
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
        const message = `A product named "${input.name}" already exists in ${domain.slug}, or the topic was claimed a moment ago.`;
        throw new ConflictError(message, "DUPLICATE_PRODUCT", { name: [message] });
      }
      throw error;
    }
  });
}
