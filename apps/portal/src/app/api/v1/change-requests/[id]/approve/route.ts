import { actingUser, approveChangeRequest } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await approveChangeRequest(db(), actingUser(await visibleActor("changeRequest", (await params).id)), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
