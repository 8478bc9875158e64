import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ForbiddenError, ValidationError } from "../errors.ts";
import { canInDomain } from "../permissions.ts";
import { grantableScopes, SCOPE_PATTERN } from "../tokens/scopes.ts";
import { displayPrefix, hashTokenSecret, newTokenSecret } from "../tokens/secret.ts";
import { cleanString } from "../validation.ts";

export const TOKEN_MAX_DAYS = 365;

export const createApiTokenInput = z.object({
  name: cleanString("The token name").max(80, "Token names are at most 80 characters.").trim().min(3, "Name the token in at least 3 characters."),
  scopes: z
    .array(z.string().regex(SCOPE_PATTERN, "Scopes are read, review, admin or write:<domain>."))
    .min(1, "Give the token at least one scope.")
    .max(20, "At most 20 scopes.")
    .refine((s) => new Set(s).size === s.length, "Scopes must be unique.")
    // The document states it (issue 30, finding 18).
    .meta({ uniqueItems: true }),
  expiresInDays: z.number({ message: "expiresInDays must be a number of days." }).int("Whole days only.").min(1, "At least 1 day.").max(TOKEN_MAX_DAYS, `At most ${TOKEN_MAX_DAYS} days.`).default(90),
  /** PERSONAL (default) or SERVICE: a service token belongs to a domain and is managed by all its owners. */
  kind: z.enum(["PERSONAL", "SERVICE"]).default("PERSONAL"),
  domainId: z.string().min(1).optional(),
});
export type CreateApiTokenInput = z.input<typeof createApiTokenInput>;

/**
 * Issues an API token. Its scopes can only be ones the user holds now (a
 * token never carries more than its user). The secret is returned once; only
 * its SHA-256 is stored. Tokens cannot mint tokens: that needs a session.
 */
export async function createApiToken(db: Db, acting: ActingUser, rawInput: unknown) {
  const input = parseInput(createApiTokenInput, rawInput);
  if (acting.token) throw new ForbiddenError("API tokens are created from a signed-in session, not with another token.");
  return inTransaction(db, acting, async (tx, actor) => {
    const grantable = new Set(grantableScopes(actor));
    const refused = input.scopes.filter((s) => !grantable.has(s));
    if (refused.length > 0) {
      throw new ValidationError("Some fields need attention.", { scopes: [`You cannot grant ${refused.join(", ")}: a token carries only permissions you hold (${[...grantable].join(", ")}).`] });
    }
    let domainId: string | null = null;
    if (input.kind === "SERVICE") {
      const domain = input.domainId ? await tx.domain.findUnique({ where: { id: input.domainId } }) : null;
      if (!domain || !canInDomain(actor, "product:update", domain.id)) throw new ForbiddenError("Service tokens are created by owners of their domain.");
      const foreign = input.scopes.filter((s) => s !== "read" && s !== `write:${domain.slug}`);
      if (foreign.length > 0) throw new ValidationError("Some fields need attention.", { scopes: [`A service token of ${domain.slug} has only read and write:${domain.slug}, not ${foreign.join(", ")}.`] });
      domainId = domain.id;
    }
    const secret = newTokenSecret();
    const token = await tx.apiToken.create({
      data: {
        name: input.name,
        kind: input.kind,
        userId: actor.id,
        domainId,
        scopes: input.scopes,
        prefix: displayPrefix(secret),
        secretHash: hashTokenSecret(secret),
        expiresAt: new Date(Date.now() + input.expiresInDays * 86_400_000),
      },
      omit: { secretHash: true },
    });
    await recordAudit(tx, actor, "token.created", "ApiToken", token.id, { name: token.name, kind: token.kind, scopes: token.scopes, expiresAt: token.expiresAt.toISOString() });
    return { ...token, token: secret };
  });
}
