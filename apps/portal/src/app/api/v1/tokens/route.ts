import { actingUser, createApiToken, listApiTokens } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

export async function GET() {
  try {
    const actor = await currentActor();
    return json(await listApiTokens(db(), actor));
  } catch (error) {
    return errorResponse(error);
  }
}

/** Issues a token; the secret is in this one answer only (`token`), never again. */
export async function POST(request: Request) {
  try {
    const actor = await currentActor();
    const { token, ...meta } = await createApiToken(db(), actingUser(actor), await readJson(request));
    const response = json({ token, ...meta }, 201);
    response.headers.set("cache-control", "no-store, max-age=0");
    return response;
  } catch (error) {
    return errorResponse(error);
  }
}
