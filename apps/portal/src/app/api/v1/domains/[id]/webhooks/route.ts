import { actingUser, createWebhook, domainWebhooks, parseSecretsKey, toJson } from "@kappa/catalog";
import { env } from "@/env";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, notConfigured, readJson } from "@/server/http";

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await currentActor();
    return json(await domainWebhooks(db(), actor, (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}

/** Creates an endpoint; the answer carries its signing `secret` once (never shown again). */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await currentActor();
    const key = env().KAPPA_SECRETS_KEY;
    if (!key) return notConfigured("This portal has no KAPPA_SECRETS_KEY, so it cannot seal webhook secrets. Ask a platform admin to configure it.");
    const body = await readJson(request);
    const input = typeof body === "object" && body !== null ? { ...body, domainId: (await params).id } : body;
    const created = await createWebhook(db(), parseSecretsKey(key), actingUser(actor), input);
    return Response.json(toJson(created), { status: 201, headers: { "cache-control": "no-store" } });
  } catch (error) {
    return errorResponse(error);
  }
}
