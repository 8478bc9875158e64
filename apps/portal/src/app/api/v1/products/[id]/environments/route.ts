import { productEnvironments } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** The product's state in each environment, side by side, and where the caller may promote it. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await productEnvironments(db(), actor, (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
