import { actingUser, policyOverview, updatePolicy } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** Governance view: versions, and the products the policy in force finds in violation. */
export async function GET() {
  try {
    return json(await policyOverview(db(), await currentActor()));
  } catch (error) {
    return errorResponse(error);
  }
}

/** Publishes a new policy version `{ source, reason }` (admins); answers with the products now in violation. */
export async function POST(request: Request) {
  try {
    const actor = await currentActor();
    return json(await updatePolicy(db(), actingUser(actor), await readJson(request)), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
