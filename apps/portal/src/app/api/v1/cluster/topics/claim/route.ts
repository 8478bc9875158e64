import { actingUser, claimTopic } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** "Claim as data product": `{ topic, ...the product form }` → a DRAFT product over the existing topic (201). */
export async function POST(request: Request) {
  try {
    return json(await claimTopic(db(), actingUser(await currentActor()), await readJson(request)), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
