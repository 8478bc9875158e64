import { platformOverview } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

export async function GET() {
  try {
    return json(await platformOverview(db(), await currentActor()));
  } catch (error) {
    return errorResponse(error);
  }
}
