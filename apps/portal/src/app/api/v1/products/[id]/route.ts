import { actingUser, getProduct, updateProduct } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

type Context = { params: Promise<{ id: string }> };

export async function GET(_request: Request, { params }: Context) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await getProduct(db(), actor, (await params).id));
  } catch (error) {
    return errorResponse(error);
  }
}

export async function PATCH(request: Request, { params }: Context) {
  try {
    const actor = await visibleActor("product", (await params).id);
    return json(await updateProduct(db(), actingUser(actor), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
