import { markNotificationsRead } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** `{ ids: [..] }` or `{ all: true }` → `{ marked, unread }`. */
export async function POST(request: Request) {
  try {
    const actor = await currentActor();
    return json(await markNotificationsRead(db(), { userId: actor.id }, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
