import { actingUser, revokeApiToken } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await currentActor();
    return json(await revokeApiToken(db(), actingUser(actor), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
