import { actingUser, listClusters, parseSecretsKey, registerCluster } from "@kappa/catalog";
import { env } from "@/env";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, notConfigured, readJson } from "@/server/http";

/** Every cluster (environment), the worker's own first; passwords never leave the catalog. */
export async function GET() {
  try {
    const actor = await currentActor();
    return json(await listClusters(db(), actor));
  } catch (error) {
    return errorResponse(error);
  }
}

/** Registers a cluster as an environment; the admin password is sealed under KAPPA_SECRETS_KEY and never returned. */
export async function POST(request: Request) {
  try {
    const actor = await currentActor();
    const key = env().KAPPA_SECRETS_KEY;
    if (!key) return notConfigured("This portal has no KAPPA_SECRETS_KEY, so it cannot seal cluster passwords. Ask a platform admin to configure it.");
    return json(await registerCluster(db(), actingUser(actor), parseSecretsKey(key), await readJson(request)), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
