import { productSlo } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** The product's freshness against its SLA (met / at risk / breached) with history, and the alerts the viewer may see. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await productSlo(db(), actor, (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
