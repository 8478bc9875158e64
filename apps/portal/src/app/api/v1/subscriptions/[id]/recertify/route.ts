import { actingUser, recertifySubscription } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";

/** `{ decision: "keep" | "revoke", reason }` (the product's owners, governance). */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    return json(await recertifySubscription(db(), actingUser(await currentActor()), (await params).id, await readJson(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
