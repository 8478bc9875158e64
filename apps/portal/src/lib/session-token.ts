import { decode as decodeJwt } from "next-auth/jwt";

/*
 * The signed-in user's id from next-auth's session cookie, for every request
 * (src/server/actor.ts). next-auth's getServerSession ran its whole session
 * endpoint for this: option checks, the JWE decrypt, the callbacks, and then
 * a fresh JWE encrypt of a renewed token whose cookie a route handler cannot
 * set (App Router) and so threw away — most of a request's fixed cost
 * (issue 14, notes/catalog-speed.md). Here the cookie is decoded with
 * next-auth's own `decode`, and a decoded token is remembered by its exact
 * value:
 *  - decoding is a pure function of the token, the secret and the clock, so
 *    a remembered result is what decoding again would give, as long as the
 *    token has not expired — checked on every use (a token past `exp` is
 *    decoded again, and next-auth's decode applies its own clock tolerance);
 *  - only tokens that decrypted under the secret are remembered, so a client
 *    cannot fill the cache with made-up values; it holds at most
 *    MAX_REMEMBERED tokens (oldest dropped first);
 *  - the token's session version (`sv`) is remembered with it and compared
 *    with the user's current one on every request (src/server/actor.ts):
 *    signing out or losing a role bumps the user's version, so a remembered
 *    (or copied) token stops working at once (issue 30, finding 13). Roles
 *    and memberships are NOT here — the actor is re-read from the database
 *    on every request, so a removed member loses access at once.
 */

/** The cookie next-auth keeps the session in: the `__Secure-` name when the portal's URL is https (as next-auth decides). */
export function sessionCookieName(portalUrl: string): string {
  return portalUrl.startsWith("https://") ? "__Secure-next-auth.session-token" : "next-auth.session-token";
}

/**
 * The session token from the request's cookies: next-auth splits a large one
 * into `<name>.0`, `<name>.1`, …, which are joined in order (as next-auth's
 * SessionStore reads them).
 */
export function sessionTokenFrom(cookies: Iterable<{ name: string; value: string }>, cookieName: string): string | null {
  const parts: { order: number; value: string }[] = [];
  for (const { name, value } of cookies) {
    if (name.startsWith(cookieName)) parts.push({ order: Number.parseInt(name.split(".").pop() ?? "0") || 0, value });
  }
  if (parts.length === 0) return null;
  return parts.sort((a, b) => a.order - b.order).map((p) => p.value).join("") || null;
}

export const MAX_REMEMBERED = 1_000;

/** What a session token says: whose it is, and the session version it was issued under (0 for tokens from before versions). */
export interface SessionClaims {
  userId: string;
  sessionVersion: number;
}

interface Remembered {
  claims: SessionClaims | null;
  /** `exp` in seconds since the epoch. */
  exp: number;
}

type Decode = (params: { token: string; secret: string }) => Promise<Record<string, unknown> | null>;

/** A session decoder with its memory; one per process (src/server/actor.ts), a fresh one per test. */
export function createSessionDecoder(options: { secret: string; decode?: Decode; now?: () => number; maxRemembered?: number }) {
  const decode: Decode = options.decode ?? ((params) => decodeJwt(params));
  const now = options.now ?? Date.now;
  const max = options.maxRemembered ?? MAX_REMEMBERED;
  const remembered = new Map<string, Remembered>();

  /** The token's user id (`sub`) and session version, or null when it does not decrypt, has expired or names nobody. */
  return async function sessionClaims(token: string | null): Promise<SessionClaims | null> {
    if (!token) return null;
    const nowSeconds = now() / 1000;
    const hit = remembered.get(token);
    if (hit && nowSeconds < hit.exp) return hit.claims;
    if (hit) remembered.delete(token);
    let payload: Record<string, unknown> | null;
    try {
      payload = await decode({ token, secret: options.secret });
    } catch {
      // Tampered, foreign or expired: no session (what getServerSession answered too).
      return null;
    }
    if (!payload) return null;
    const userId = typeof payload.sub === "string" && payload.sub !== "" ? payload.sub : null;
    const claims = userId === null ? null : { userId, sessionVersion: typeof payload.sv === "number" && Number.isInteger(payload.sv) ? payload.sv : 0 };
    // Only a token whose validity is nothing but its expiry is remembered (next-auth sets no `nbf`).
    if (typeof payload.exp === "number" && payload.nbf === undefined && nowSeconds < payload.exp) {
      if (remembered.size >= max) {
        const oldest = remembered.keys().next();
        if (!oldest.done) remembered.delete(oldest.value);
      }
      remembered.set(token, { claims, exp: payload.exp });
    }
    return claims;
  };
}
