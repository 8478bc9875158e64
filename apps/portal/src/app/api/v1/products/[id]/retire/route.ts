import { actingUser, retireProduct } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** Early retirement by an owner (`{ reason }`): only a DEPRECATED product without active subscriptions. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await retireProduct(db(), actingUser(actor), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
