import { productReview } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** A product in review, whole: schema, configs, classification, and for a new major version the change from its predecessor. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await productReview(db(), await visibleActor("product", (await params).id), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
