import { actingUser, requestCredentialRotation } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

/** Queues new credentials for the account; the worker issues them and they can be picked up once. */
export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await currentActor();
    return json(await requestCredentialRotation(db(), actingUser(actor), (await params).id), 202);
  } catch (error) {
    return errorResponse(error);
  }
}
