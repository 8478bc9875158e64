import { listUsers } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, queryObject } from "@/server/http";

/** People, their global roles and memberships (platform admins); `?q=` filters by e-mail or name. */
export async function GET(request: Request) {
  try {
    return json(await listUsers(db(), await currentActor(), queryObject(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
