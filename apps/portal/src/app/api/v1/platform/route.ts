import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { platformOverview } from "@/server/observations";

export async function GET() {
  try {
    return json(await platformOverview(db(), await currentActor()));
  } catch (error) {
    return errorResponse(error);
  }
}
