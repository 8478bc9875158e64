import { actingUser, deleteSsoGroupMapping } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

export async function DELETE(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await deleteSsoGroupMapping(db(), actingUser(await currentActor()), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
