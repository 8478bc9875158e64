import { actingUser, setGlobalRole } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** Sets a user's global role: `{ "globalRole": "USER" | "GOVERNANCE" | "ADMIN" }`. */
export async function PATCH(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await setGlobalRole(db(), actingUser(await currentActor()), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
