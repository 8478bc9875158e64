import { Prisma } from "@prisma/client";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { requireDomainAdmin } from "../admin/domain-access.ts";
import { createDomainInput } from "../admin-validation.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError } from "../errors.ts";
import { assertDomainSlugAvailable } from "../principals.ts";

/** A platform admin creates a domain; its slug becomes the first segment of its topics and the prefix of its principals. */
export async function createDomain(db: Db, acting: ActingUser, rawInput: unknown) {
  const input = parseInput(createDomainInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    requireDomainAdmin(actor, "create domains");
    // Reserved prefixes (kappa-…) and namespaces already holding other domains' accounts are refused.
    await assertDomainSlugAvailable(tx, input.slug);
    try {
      const domain = await tx.domain.create({ data: { slug: input.slug, name: input.name, description: input.description } });
      await recordAudit(tx, actor, "domain.created", "Domain", domain.id, { slug: domain.slug, name: domain.name });
      return domain;
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
        const message = `A domain with the slug "${input.slug}" exists already (archived domains keep their slug).`;
        throw new ConflictError(message, "DUPLICATE_DOMAIN", { slug: [message] });
      }
      throw error;
    }
  });
}
