import "server-only";
import { authenticateApiToken, loadActor, UnauthenticatedError, type Actor } from "@kappa/catalog";
import { getServerSession } from "next-auth";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { METHOD_HEADER, PATH_HEADER } from "@/lib/request-path";
import { cache } from "react";
import { authOptions } from "./auth";
import { db } from "./db";

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
    return authenticateApiToken(db(), bearer[1], { method: h.get(METHOD_HEADER) ?? "unknown", path: h.get(PATH_HEADER) ?? "unknown" });
  }
  const session = await getServerSession(authOptions());
  if (!session?.userId) throw new UnauthenticatedError();
  return loadActor(db(), session.userId);
});

/** For pages: the actor, or a redirect to the sign-in page. */
export async function requireActor(returnTo?: string): Promise<Actor> {
  try {
    return await currentActor();
  } catch (error) {
    if (error instanceof UnauthenticatedError) {
      redirect(returnTo ? `/signin?callbackUrl=${encodeURIComponent(returnTo)}` : "/signin");
    }
    throw error;
  }
}
