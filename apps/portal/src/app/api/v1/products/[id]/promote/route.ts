import { actingUser, promoteProduct } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** Body: `{ environment }`. Copies the approved definition and schema versions into a promotion that waits for review. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await promoteProduct(db(), actingUser(actor), (await params).id, await readJson(request)), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
