import "server-only";
import { clientAddressFrom, loadActor, UnauthenticatedError, type ActingUser, type Actor, type RequestContext } from "@kappa/catalog";
import { getServerSession } from "next-auth";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { env } from "@/env";
import { cache } from "react";
import { authOptions } from "./auth";
import { db } from "./db";

/**
 * The signed-in user with roles re-read from the database on every request,
 * so a revoked membership stops working at once even though the JWT lives on.
 * Throws UnauthenticatedError (→ 401 in the API).
 */
export const currentActor = cache(async (): Promise<Actor> => {
  const session = await getServerSession(authOptions());
  if (!session?.userId) throw new UnauthenticatedError();
  return loadActor(db(), session.userId);
});

/**
 * Where the current request came from, for the audit log (and anything else
 * that needs the client address). The address is read from X-Forwarded-For as
 * KAPPA_TRUSTED_PROXY_HOPS says (see clientAddressFrom); the catalog bounds
 * and checks both values before storing them.
 */
export const requestContext = cache(async (): Promise<RequestContext> => {
  const h = await headers();
  return {
    clientAddress: clientAddressFrom(h.get("x-forwarded-for"), env().KAPPA_TRUSTED_PROXY_HOPS),
    userAgent: h.get("user-agent"),
  };
});

/** The signed-in user as catalog actions take it: their id plus the request context. */
export const currentActing = cache(async (): Promise<ActingUser> => {
  const actor = await currentActor();
  return { userId: actor.id, request: await requestContext() };
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
