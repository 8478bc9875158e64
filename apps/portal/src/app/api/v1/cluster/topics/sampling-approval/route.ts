import { actingUser, approveClaimSampling } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** `{ topic }`: a platform admin allows the owners of the open claim on the topic to have the worker sample it (schema inference). */
export async function POST(request: Request) {
  try {
    return json(await approveClaimSampling(db(), actingUser(await currentActor()), await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
