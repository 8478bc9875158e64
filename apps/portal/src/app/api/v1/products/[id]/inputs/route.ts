import { actingUser, setProductInputs } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** Declares the product's input products: `{ inputProductIds: [...] }` replaces the set (owners). */
export async function PUT(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await setProductInputs(db(), actingUser(await currentActor()), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
