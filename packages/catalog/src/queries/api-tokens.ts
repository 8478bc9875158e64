import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { grantableScopes } from "../tokens/scopes.ts";

/** The actor's own tokens and the service tokens of domains they own (never a secret or hash). */
export async function listApiTokens(db: Db, actor: Actor) {
  const ownedDomains = actor.memberships.filter((m) => m.role === "OWNER").map((m) => m.domainId);
  const tokens = await db.apiToken.findMany({
    where: { OR: [{ userId: actor.id }, { kind: "SERVICE", domainId: { in: ownedDomains } }] },
    omit: { secretHash: true },
    include: { user: { select: { email: true, name: true } } },
    orderBy: { createdAt: "desc" },
  });
  const now = Date.now();
  return {
    items: tokens.map((t) => ({ ...t, state: t.revokedAt ? "REVOKED" : t.expiresAt.getTime() <= now ? "EXPIRED" : "ACTIVE" })),
    grantableScopes: grantableScopes(actor),
    ownedDomains: actor.memberships.filter((m) => m.role === "OWNER").map((m) => ({ id: m.domainId, slug: m.domainSlug })),
  };
}
