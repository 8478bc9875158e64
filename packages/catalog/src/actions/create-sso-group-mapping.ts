import { Prisma } from "@prisma/client";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { lockDomain, requireNotArchived } from "../admin/domain-access.ts";
import { ssoGroupMappingInput } from "../admin-validation.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, ForbiddenError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";

/**
 * Maps an OpenID Connect group to a domain role or a global role. It takes
 * effect at each user's next SSO sign-in (see applySsoSignIn); existing
 * sessions keep the roles they have until then.
 */
export async function createSsoGroupMapping(db: Db, acting: ActingUser, rawInput: unknown) {
  const input = parseInput(ssoGroupMappingInput, rawInput);
  return inTransaction(db, acting, async (tx, actor) => {
    if (!hasGlobal(actor, "user:manage")) throw new ForbiddenError("Only platform admins can change the single-sign-on mapping.");
    if (input.domainId) requireNotArchived(await lockDomain(tx, input.domainId));
    try {
      const mapping = await tx.ssoGroupMapping.create({
        data: input.domainId
          ? { group: input.group, domainId: input.domainId, role: input.role ?? "MEMBER", createdById: actor.id }
          : { group: input.group, globalRole: input.globalRole ?? null, createdById: actor.id },
        include: { domain: { select: { slug: true, name: true } } },
      });
      await recordAudit(tx, actor, "sso.mappingCreated", "SsoGroupMapping", mapping.id, {
        group: mapping.group,
        ...(mapping.domain ? { domain: mapping.domain.slug, role: mapping.role ?? "" } : { globalRole: mapping.globalRole ?? "" }),
      });
      return mapping;
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
        const message = input.domainId ? `The group "${input.group}" is mapped to this domain already.` : `The group "${input.group}" has a global role already.`;
        throw new ConflictError(message, "DUPLICATE_MAPPING", { group: [message] });
      }
      throw error;
    }
  });
}
