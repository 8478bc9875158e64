import { actingUser, createServiceAccount, subscribableAccounts } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** The consumer accounts of the caller's domains (what a subscription may be for). */
export async function GET() {
  try {
    const actor = await currentActor();
    return json(await subscribableAccounts(db(), actor));
  } catch (error) {
    return errorResponse(error);
  }
}

export async function POST(request: Request) {
  try {
    const actor = await currentActor();
    return json(await createServiceAccount(db(), actingUser(actor), await readJson(request)), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
