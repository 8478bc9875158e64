import { productReview } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";

/** A product in review, whole: schema, configs, classification, and for a new major version the change from its predecessor. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await productReview(db(), await currentActor(), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
