import { productRetirement } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** The sunset countdown of a deprecated product, or what its retirement removed. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await productRetirement(db(), actor, (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
