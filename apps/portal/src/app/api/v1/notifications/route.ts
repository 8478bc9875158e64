import { listNotifications } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, queryObject } from "@/server/http";

/** The signed-in user's notification centre: `{ notifications: [...], unread, nextBefore }` (`?unread=true&limit=&before=`). */
export async function GET(request: Request) {
  try {
    const actor = await currentActor();
    return json(await listNotifications(db(), actor, queryObject(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
