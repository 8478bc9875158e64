import { successorNotices } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

/** The actor's domains' subscriptions to deprecated products, with the newer major version to move to. */
export async function GET() {
  try {
    return json(await successorNotices(db(), await currentActor()));
  } catch (error) {
    return errorResponse(error);
  }
}
