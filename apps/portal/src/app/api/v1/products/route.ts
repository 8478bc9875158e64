import { actingUser, registerDerivedProduct, registerProduct, searchProducts, withQualityScores } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { flinkSettings } from "@/server/flink";
import { errorResponse, json, queryObject, readJson } from "@/server/http";

export async function GET(request: Request) {
  try {
    const actor = await currentActor();
    const found = await searchProducts(db(), actor, queryObject(request));
    // Each item's observed quality (issue 29): the share of sampled records passing its rules over 24 h, null where not measured.
    return json(await withQualityScores(db(), found));
  } catch (error) {
    return errorResponse(error);
  }
}

export async function POST(request: Request) {
  try {
    const actor = await currentActor();
    const body = await readJson(request);
    const derived = typeof body === "object" && body !== null && "derived" in body;
    if (!derived) return json(await registerProduct(db(), actingUser(actor), body), 201);
    // `"derived": {"statement"}`: a product Flink computes from other products (its schema is the planner's).
    return json(await registerDerivedProduct(db(), actingUser(actor), body, flinkSettings()), 201);
  } catch (error) {
    return errorResponse(error);
  }
}
