import "server-only";
import { loadActor, UnauthenticatedError, type Actor } from "@kappa/catalog";
import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
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
