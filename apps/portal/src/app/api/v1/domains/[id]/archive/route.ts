import { actingUser, archiveDomain } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await archiveDomain(db(), actingUser(await currentActor()), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
