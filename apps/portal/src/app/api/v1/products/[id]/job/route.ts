import { productJob } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** A derived product's Flink job (state, rates, watermark lag, checkpoint, restarts, error) as the worker last observed it; read from the catalog, never from Flink. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await productJob(db(), actor, (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
