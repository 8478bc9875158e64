import { actingUser, parseSecretsKey, updateCluster } from "@kappa/catalog";
import { env } from "@/env";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, notConfigured, readJson } from "@/server/http";

/** Changes a registered cluster; `adminPassword` replaces the stored one when given, none keeps it. */
export async function PATCH(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await currentActor();
    const key = env().KAPPA_SECRETS_KEY;
    if (!key) return notConfigured("This portal has no KAPPA_SECRETS_KEY, so it cannot seal cluster passwords. Ask a platform admin to configure it.");
    return json(await updateCluster(db(), actingUser(actor), parseSecretsKey(key), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
