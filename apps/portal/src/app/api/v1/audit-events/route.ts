import { listAuditEvents } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, queryObject } from "@/server/http";

export async function GET(request: Request) {
  try {
    return json(await listAuditEvents(db(), await currentActor(), queryObject(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
