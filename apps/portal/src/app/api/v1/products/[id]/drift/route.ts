import { productDrift } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** What the worker last found different from the catalog for this product, and what it did. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await productDrift(db(), await visibleActor("product", (await params).id), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
