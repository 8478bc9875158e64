import { quotaUsage } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** The client quota in force for the product's account (class and rates), what was chosen or waits for governance, and the account's bytes per second per minute against it. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    const id = (await params).id;
    return json(await quotaUsage(db(), actor, { productId: id }));
  } catch (error) {
    return errorResponse(error);
  }
}
