import { actingUser, markNotificationsRead } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** `{ ids: [..] }` or `{ all: true }` → `{ marked, unread }`. */
export async function POST(request: Request) {
  try {
    const actor = await currentActor();
    return json(await markNotificationsRead(db(), actingUser(actor), await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
