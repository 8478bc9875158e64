import { actingUser, approveSubscription } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("subscription", (await params).id);
    return json(await approveSubscription(db(), actingUser(actor), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
