import { productCost } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

/** The product's cost this month and over the last months (its domain and platform admins). */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await productCost(db(), await currentActor(), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
