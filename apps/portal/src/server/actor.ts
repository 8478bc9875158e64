import "server-only";
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { authenticateApiToken, loadActor, UnauthenticatedError, type Actor, type RequestContext } from "@kappa/catalog";
import { env } from "@/env";
import { REQUEST_ID_HEADER } from "@/lib/request-id";
import { METHOD_HEADER, PATH_HEADER } from "@/lib/request-path";
import { createSessionDecoder, sessionCookieName, sessionTokenFrom } from "@/lib/session-token";
import { clientAddress } from "./client-address";
import { db } from "./db";
import { busyOnOverload } from "./page-data";

/** Decoded session cookies, remembered by value for this process (src/lib/session-token.ts). */
let sessionDecoder: ReturnType<typeof createSessionDecoder> | undefined;

/**
 * The signed-in user with roles re-read from the database on every request,
 * so a revoked membership stops working at once even though the JWT lives on.
 * A request with an `Authorization` header is authenticated by that header
 * alone (`Bearer <API token>`), never by a cookie: so a cross-site request
 * cannot borrow a session by adding one (BOARD convention with security).
 * Throws UnauthenticatedError (→ 401 in the API).
 */
export const currentActor = cache(async (): Promise<Actor> => {
  const h = await headers();
  const authorization = h.get("authorization");
  if (authorization !== null) {
    const bearer = /^Bearer[ ]+([^\s]+)$/i.exec(authorization.trim());
    if (!bearer?.[1]) throw new UnauthenticatedError("Send an API token as Authorization: Bearer <token>.");
    const tokenActor = await authenticateApiToken(db(), bearer[1], { method: h.get(METHOD_HEADER) ?? "unknown", path: h.get(PATH_HEADER) ?? "unknown" });
    return { ...tokenActor, request: await requestContext() };
  }
  const e = env();
  // next-auth's session cookie, decoded as its session endpoint would (src/lib/session-token.ts).
  sessionDecoder ??= createSessionDecoder({ secret: e.NEXTAUTH_SECRET });
  const session = await sessionDecoder(sessionTokenFrom((await cookies()).getAll(), sessionCookieName(e.NEXTAUTH_URL)));
  if (!session) throw new UnauthenticatedError();
  const actor = await loadActor(db(), session.userId);
  // Signed out (or a role removed) since this session was issued: the cookie, copied or not, no longer works (issue 30, finding 13).
  if (actor.sessionVersion !== undefined && actor.sessionVersion !== session.sessionVersion) throw new UnauthenticatedError("This session has ended; sign in again.");
  // The request context rides along, so actingUser(actor) hands it to the action's audit event.
  return { ...actor, request: await requestContext() };
});

/**
 * Where the current request came from, for the audit log (and anything else
 * that needs the client address). The address is the TCP peer, or the
 * X-Forwarded-For entry KAPPA_TRUSTED_PROXY_HOPS names (client-address.ts); the catalog bounds
 * and checks both values before storing them.
 */
export const requestContext = cache(async (): Promise<RequestContext> => {
  const h = await headers();
  return {
    // The TCP peer, or the trusted proxies' X-Forwarded-For entry — never an address the client alone chose.
    clientAddress: clientAddress(h),
    userAgent: h.get("user-agent"),
    // The proxy's id of this request (src/proxy.ts): audit events and provisioning tasks carry it.
    ...(h.get(REQUEST_ID_HEADER) ? { requestId: h.get(REQUEST_ID_HEADER)! } : {}),
  };
});

/** For pages: the actor, or a redirect to the sign-in page (or, when the database is saturated, to the busy page). */
export async function requireActor(returnTo?: string): Promise<Actor> {
  try {
    return await currentActor();
  } catch (error) {
    if (error instanceof UnauthenticatedError) {
      redirect(returnTo ? `/signin?callbackUrl=${encodeURIComponent(returnTo)}` : "/signin");
    }
    await busyOnOverload(error, returnTo);
    throw error;
  }
}
