import type { Actor } from "../actor.ts";
import { loadActor } from "../actor.ts";
import type { Db } from "../db.ts";
import { UnauthenticatedError } from "../errors.ts";
import { hashTokenSecret, TOKEN_PATTERN } from "./secret.ts";

/**
 * Authenticates `Authorization: Bearer <token>`: the token must exist, be
 * unrevoked and unexpired. Every use is audited (`token.used`, with the token
 * id, method and path) and sets last-used. The actor keeps its full roles for
 * reads; actions narrow them by the token's scopes (restrictToScopes).
 */
export async function authenticateApiToken(db: Db, secret: string, use: { method: string; path: string }): Promise<Actor> {
  // One message for every failure: a client learns nothing about which tokens exist.
  const refuse = () => new UnauthenticatedError("The API token is invalid, expired or revoked.");
  if (!TOKEN_PATTERN.test(secret)) throw refuse();
  const token = await db.apiToken.findUnique({ where: { secretHash: hashTokenSecret(secret) }, omit: { secretHash: true } });
  const now = new Date();
  if (!token || token.revokedAt || token.expiresAt <= now) throw refuse();
  const actor = await loadActor(db, token.userId);
  await db.$transaction([
    db.apiToken.update({ where: { id: token.id }, data: { lastUsedAt: now }, select: { id: true } }),
    db.auditEvent.create({
      data: { actorId: actor.id, actorEmail: actor.email, action: "token.used", entityType: "ApiToken", entityId: token.id, data: { tokenId: token.id, method: use.method, path: use.path.slice(0, 500) } },
    }),
  ]);
  return { ...actor, token: { id: token.id, name: token.name, scopes: token.scopes } };
}
