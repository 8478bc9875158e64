import { actingUser, registerProduct, searchProducts } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, queryObject, readJson } from "@/server/http";

export async function GET(request: Request) {
  try {
    const actor = await currentActor();
    return json(await searchProducts(db(), actor, queryObject(request)));
  } catch (error) {
    return errorResponse(error);
  }
}

export async function POST(request: Request) {
  try {
    const actor = await currentActor();
    return json(await registerProduct(db(), actingUser(actor), await readJson(request)), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
