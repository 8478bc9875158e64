import { productCost } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** The product's cost this month and over the last months (its domain and platform admins). */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await productCost(db(), actor, (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
