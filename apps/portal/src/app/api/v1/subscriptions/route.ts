import { requestSubscription } from "@kappa/catalog";
import { currentActing } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

export async function POST(request: Request) {
  try {
    return json(await requestSubscription(db(), await currentActing(), await readJson(request)), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
