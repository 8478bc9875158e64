import { actingUser, requestSubscription } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

export async function POST(request: Request) {
  try {
    const actor = await currentActor();
    return json(await requestSubscription(db(), actingUser(actor), await readJson(request)), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
