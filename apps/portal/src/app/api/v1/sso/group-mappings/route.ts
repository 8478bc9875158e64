import { actingUser, createSsoGroupMapping, listSsoGroupMappings } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** The OIDC group → domain role / global role mapping applied at each SSO sign-in (platform admins). */
export async function GET() {
  try {
    return json(await listSsoGroupMappings(db(), await currentActor()));
  } catch (error) {
    return errorResponse(error);
  }
}

export async function POST(request: Request) {
  try {
    return json(await createSsoGroupMapping(db(), actingUser(await currentActor()), await readJson(request)), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
