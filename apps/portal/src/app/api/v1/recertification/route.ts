import { recertificationQueue } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

/** The actor's recertification list: granted subscriptions of their products, unused first, with due dates. */
export async function GET() {
  try {
    return json(await recertificationQueue(db(), await currentActor()));
  } catch (error) {
    return errorResponse(error);
  }
}
