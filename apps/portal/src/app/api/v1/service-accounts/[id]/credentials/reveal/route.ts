import { actingUser, parseSecretsKey, revealCredentialOnce } from "@kappa/catalog";
import { env } from "@/env";
import { db } from "@/server/db";
import type { ApiErrorBody } from "@/server/http";
import { errorResponse } from "@/server/http";
import { visibleActor } from "@/server/visible";

// The password must never sit in a cache between here and the owner's screen.
const NO_STORE = { "cache-control": "no-store, max-age=0", pragma: "no-cache" };

/** The one-time pickup of an issued password (owners of the account's domain; a second call is a 409). */
export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("serviceAccount", (await params).id);
    const key = env().KAPPA_SECRETS_KEY;
    if (!key) {
      const body: ApiErrorBody = { error: { code: "NOT_CONFIGURED", message: "This portal has no KAPPA_SECRETS_KEY, so it cannot show issued passwords. Ask a platform admin to configure it." } };
      return Response.json(body, { status: 503, headers: NO_STORE });
    }
    const revealed = await revealCredentialOnce(db(), parseSecretsKey(key), actingUser(actor), (await params).id);
    return Response.json(
      { username: revealed.username, password: revealed.password, mechanism: revealed.mechanism, issuedAt: revealed.issuedAt?.toISOString() ?? null },
      { headers: NO_STORE },
    );
  } catch (error) {
    return errorResponse(error);
  }
}
