import { actingUser, rejectPromotion } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** Body: `{ reason }`. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await currentActor();
    return json(await rejectPromotion(db(), actingUser(actor), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
