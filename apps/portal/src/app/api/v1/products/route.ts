import { actingUser, registerDerivedProduct, registerProduct, searchProducts } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { flinkSettings } from "@/server/flink";
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
    const body = await readJson(request);
    // `"derived": {"statement"}`: a product Flink computes from other products (its schema is the planner's).
    if (typeof body === "object" && body !== null && "derived" in body) return json(await registerDerivedProduct(db(), actingUser(actor), body, flinkSettings()), 201);
    return json(await registerProduct(db(), actingUser(actor), body), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
