import { actingUser, deprecateProduct } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await deprecateProduct(db(), actingUser(actor), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
