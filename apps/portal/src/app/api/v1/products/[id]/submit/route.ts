import { actingUser, submitForReview } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

export async function POST(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await submitForReview(db(), actingUser(actor), (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}
