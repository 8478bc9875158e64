import { actingUser, rejectPromotion } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** Body: `{ reason }`. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("promotion", (await params).id);
    return json(await rejectPromotion(db(), actingUser(actor), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
