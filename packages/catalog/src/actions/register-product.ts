import { Prisma } from "@prisma/client";
import type { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import type { Tx, Db } from "../db.ts";
import { assertTieredStorageOffered } from "../environments/deployments.ts";
import { ConflictError, ForbiddenError } from "../errors.ts";
import { slugify, topicNameFor, topicNameProblem } from "../naming.ts";
import { canInDomain } from "../permissions.ts";
import { enforcePolicy } from "../policies/enforce.ts";
import { registerProductInput } from "../validation.ts";

/** Creates a DRAFT product with schema version 1 in one of the actor's domains. */
export async function registerProduct(db: Db, acting: ActingUser, rawInput: unknown) {
  const input = parseInput(registerProductInput, rawInput);
  return inTransaction(db, acting, (tx, actor) => registerProductInTx(tx, actor, input));
}

/** The registration inside a caller's transaction (contract apply registers and submits in one). */
export async function registerProductInTx(tx: Tx, actor: Actor, input: z.output<typeof registerProductInput>, extra: { contractSource?: string } = {}) {
  const domain = await tx.domain.findUnique({ where: { id: input.domainId } });
  if (!domain || !canInDomain(actor, "product:create", domain.id)) {
    // Same answer for "no such domain" and "not yours": no probing of domain ids.
    throw new ForbiddenError("Only owners of a domain can register its data products.");
  }
  if (domain.archivedAt) throw new ConflictError(`The ${domain.name} domain is archived and takes no new products.`, "DOMAIN_ARCHIVED");
  const slug = slugify(input.name);
  const majorVersion = 1;
  const candidate = `${domain.slug}.${slug}.v${majorVersion}`;
  const problem = topicNameProblem(candidate);
  if (problem) throw new ConflictError(problem, "INVALID_TOPIC_NAME", { name: [problem] });
  const topicName = topicNameFor(domain.slug, slug, majorVersion);
  const { schema, domainId: _domainId, ...fields } = input;
  await assertTieredStorageOffered(tx, fields.tieredStorage);
  const policy = await enforcePolicy(tx, actor, {
    event: "product.register",
    entityType: "DataProduct",
    entityId: null,
    facts: { product: { ...fields, schema } },
  });
  try {
    const product = await tx.dataProduct.create({
      data: {
        ...fields,
        domainId: domain.id,
        slug,
        majorVersion,
        topicName,
        retentionMs: BigInt(fields.retentionMs),
        localRetentionMs: BigInt(fields.localRetentionMs),
        availabilityPct: new Prisma.Decimal(fields.availabilityPct),
        createdById: actor.id,
        ...(extra.contractSource ? { contractSource: extra.contractSource, contractAppliedAt: new Date() } : {}),
        schemaVersions: { create: { version: 1, format: schema.format, definition: schema.definition } },
      },
    });
    const evaluation = await policy.record(product.id);
    await recordAudit(tx, actor, "product.registered", "DataProduct", product.id, {
      name: product.name,
      domain: domain.slug,
      topic: topicName,
      classification: product.classification,
      policy: evaluation.summary,
      ...(extra.contractSource ? { contractSource: extra.contractSource } : {}),
    });
    return product;
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      const message = `A product named "${input.name}" already exists in ${domain.slug} (topic ${topicName}).`;
      throw new ConflictError(message, "DUPLICATE_PRODUCT", { name: [message] });
    }
    throw error;
  }
}
