import type { Actor } from "../actor.ts";
import { ForbiddenError } from "../errors.ts";

/*
 * API token scopes. A token acts as its user, with the user's roles re-read
 * on every request, narrowed by its scopes for anything that changes state:
 *   read            — reads only (every token may read what its user may read)
 *   write:<domain>  — the user's domain-scoped permissions in that one domain
 *   review          — the user's governance permissions (reviewers only)
 *   admin           — the user's platform-admin permissions (admins only)
 * Pure: the portal's token form uses it to offer only grantable scopes.
 */

export const SCOPE_PATTERN = /^(read|review|admin|write:[a-z0-9]+(?:-[a-z0-9]+)*)$/;

export function isScope(value: string): boolean {
  return SCOPE_PATTERN.test(value);
}

/** Scopes this user may put on a token: never more than the user holds. */
export function grantableScopes(actor: Pick<Actor, "globalRole" | "memberships">): string[] {
  const scopes = ["read", ...actor.memberships.map((m) => `write:${m.domainSlug}`)];
  if (actor.globalRole === "GOVERNANCE") scopes.push("review");
  if (actor.globalRole === "ADMIN") scopes.push("admin");
  return scopes;
}

/**
 * The actor as a token with these scopes may act in a change: memberships
 * only in domains it has `write:<domain>` for, and the global role only with
 * `review` (GOVERNANCE) or `admin` (ADMIN). Every permission check of the
 * catalog then applies unchanged, so a token can never do more than a session.
 */
export function restrictToScopes(actor: Actor, token: NonNullable<Actor["token"]>): Actor {
  const scopes = new Set(token.scopes);
  const globalRole =
    (actor.globalRole === "GOVERNANCE" && scopes.has("review")) || (actor.globalRole === "ADMIN" && scopes.has("admin")) ? actor.globalRole : "USER";
  return {
    ...actor,
    globalRole,
    memberships: actor.memberships.filter((m) => scopes.has(`write:${m.domainSlug}`)),
    token,
  };
}

/**
 * For changes that no domain or global permission guards (the user's own
 * tokens and notifications): a token needs a scope beyond `read` to make them,
 * so a read-only token stays read-only (issue 30, finding 11).
 */
export function requireWriteScope(actor: Pick<Actor, "token">, what: string): void {
  if (actor.token && !actor.token.scopes.some((s) => s !== "read")) throw new ForbiddenError(`A read-only API token cannot ${what}; use a token with a write, review or admin scope, or the portal.`);
}
