import { actingUser, addReservedPrincipal, listReservedPrincipals } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** Kafka user names and prefixes no service account may take, with the accounts under each (platform admins). */
export async function GET() {
  try {
    return json(await listReservedPrincipals(db(), await currentActor()));
  } catch (error) {
    return errorResponse(error);
  }
}

/** `{ name, match: "EXACT"|"PREFIX", reason }`: reserve a name (audited `reservedPrincipal.added`). */
export async function POST(request: Request) {
  try {
    return json(await addReservedPrincipal(db(), actingUser(await currentActor()), await readJson(request)), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
