import { actingUser, planContracts } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** What applying the contracts would do, per product, with the policy verdicts (read-only). */
export async function POST(request: Request) {
  try {
    const actor = await currentActor();
    return json(await planContracts(db(), actingUser(actor), await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
