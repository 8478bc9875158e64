import { listCosts } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, queryObject } from "@/server/http";

/** Showback and chargeback for one month (`?month=YYYY-MM`): admins every domain, others their own. */
export async function GET(request: Request) {
  try {
    return json(await listCosts(db(), await currentActor(), queryObject(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
