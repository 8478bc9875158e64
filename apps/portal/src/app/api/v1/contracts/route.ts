import { actingUser, applyContracts } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { flinkSettings } from "@/server/flink";
import { errorResponse, json, readJson } from "@/server/http";

/**
 * Registers or updates products from ODCS contracts `{ contracts: [{ content, source? }] }`
 * through the same validation, policies, review and provisioning as the form
 * (a derived product's new statement planned by Flink, as the product page's change is).
 * Each file's outcome is in `items` (a refused file does not stop the others).
 */
export async function POST(request: Request) {
  try {
    const actor = await currentActor();
    return json(await applyContracts(db(), actingUser(actor), await readJson(request), flinkSettings()));
  } catch (error) {
    return errorResponse(error);
  }
}
