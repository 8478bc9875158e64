import { actingUser, setProductInputs } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** Declares the product's input products: `{ inputProductIds: [...] }` replaces the set (owners). */
export async function PUT(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await setProductInputs(db(), actingUser(await visibleActor("product", (await params).id)), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
