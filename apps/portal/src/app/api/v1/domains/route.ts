import { actingUser, createDomain, listDomains } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** Every domain with head counts (platform admins). */
export async function GET() {
  try {
    return json(await listDomains(db(), await currentActor()));
  } catch (error) {
    return errorResponse(error);
  }
}

export async function POST(request: Request) {
  try {
    return json(await createDomain(db(), actingUser(await currentActor()), await readJson(request)), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
